/**
 * The dashboard's static files (a built single-page app) at /ui/.
 *
 * Guarantees: only regular files inside `dir` are served (no `..`, no absolute paths, no dot
 * files, no directory listings); hashed assets (`/ui/assets/…`) are cached for a year as
 * immutable, everything else is revalidated (`no-cache`) so a new build shows at the next load; a
 * path that names no file and has no file extension is a client-side route and gets index.html
 * (SPA fallback); a missing file with an extension is a 404. Every answer carries a strict
 * Content-Security-Policy (scripts, styles and connections to this origin only), `nosniff` and
 * `Referrer-Policy: no-referrer`. A missing build answers 503 with how to make one.
 */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyReply } from 'fastify';

/** Where the dashboard is mounted. */
export const DASHBOARD_PREFIX = '/ui/';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Serves the files of one build directory. */
export class DashboardFiles {
  private readonly root: string;

  /** `dir`: the build output (index.html and assets/). It may not exist yet: requests then get 503. */
  constructor(dir: string) {
    this.root = resolve(dir);
  }

  /**
   * Answers a GET or HEAD for `urlPath` (the request path, query removed), which starts with /ui.
   * Never throws for a bad path: it answers 404 (or 400 for undecodable escapes).
   */
  async serve(urlPath: string, reply: FastifyReply): Promise<FastifyReply> {
    reply.headers(SECURITY_HEADERS);
    if (urlPath === '/ui') return reply.code(301).header('location', DASHBOARD_PREFIX).type('text/plain').send(`${DASHBOARD_PREFIX}\n`);
    let relative: string;
    try {
      relative = decodeURIComponent(urlPath.slice(DASHBOARD_PREFIX.length));
    } catch {
      return reply.code(400).type('text/plain').send('bad path\n');
    }
    const file = this.fileFor(relative);
    if (file === undefined) return reply.code(404).type('text/plain').send('404 page not found\n');
    const found = file === '' ? undefined : await this.read(file);
    if (found !== undefined) {
      const cache = relative.startsWith('assets/') ? IMMUTABLE : 'no-cache';
      return reply.code(200).header('cache-control', cache).type(CONTENT_TYPES[extname(file)] ?? 'application/octet-stream').send(found);
    }
    // A client-side route (no extension) gets the app; a missing asset is a 404.
    if (relative !== '' && extname(relative) !== '') return reply.code(404).type('text/plain').send('404 page not found\n');
    const index = await this.read(join(this.root, 'index.html'));
    if (index === undefined) {
      return reply.code(503).type('text/plain').send(`the dashboard is not built: no ${join(this.root, 'index.html')} (run npm run build)\n`);
    }
    return reply.code(200).header('cache-control', 'no-cache').type(CONTENT_TYPES['.html']!).send(index);
  }

  /** The absolute file `relative` names inside the root, '' for the root itself, undefined when it may not be served. */
  private fileFor(relative: string): string | undefined {
    if (relative === '') return '';
    if (relative.includes('\0') || relative.includes('\\')) return undefined;
    const parts = relative.split('/');
    if (parts.some((p) => p.startsWith('.'))) return undefined; // "..", ".", dot files
    const file = resolve(this.root, ...parts.filter((p) => p !== ''));
    return file.startsWith(this.root + sep) ? file : undefined;
  }

  /** The file's bytes when it is a regular file, else undefined. */
  private async read(file: string): Promise<Buffer | undefined> {
    try {
      if (!(await stat(file)).isFile()) return undefined;
      return await readFile(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      throw err;
    }
  }
}
