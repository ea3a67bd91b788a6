/**
 * The snapshot socket: how `setpoint snapshot save` gets a consistent copy of the store from a
 * running server. The server keeps an exclusive lock on state.db (one process owns it), so a second
 * process cannot read the file; instead the server listens on a Unix socket in its data directory
 * (DATA/snapshot.sock, mode 0600 in a 0700 directory: only the owner reaches it) and answers
 * `GET /snapshot` with a copy taken by SQLite's online backup while it keeps serving.
 *
 * Expected flow: the server calls serveSnapshots after opening the store (it holds the lock then,
 * so a socket file left by a killed server is stale and is replaced); `snapshot save` calls
 * requestSnapshot, which answers false when no server listens (then it copies the file itself).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, mkdtemp, readdir, rm, stat, unlink } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from '@setpoint/api';
import type { SqliteStore } from '@setpoint/store';

/** The socket's file name in the data directory. */
export const SNAPSHOT_SOCKET = 'snapshot.sock';

/** Longest Unix socket path Linux and macOS accept (sun_path less the terminator, with margin). */
const MAX_SOCKET_PATH = 100;

export interface SnapshotServer {
  readonly socketPath: string;
  close(): Promise<void>;
}

/**
 * Serves snapshots of `store` on `dataDir`/snapshot.sock. Resolves undefined (after a warning) when
 * the socket cannot be made — the server runs without it; snapshots then need it stopped.
 */
export async function serveSnapshots(options: { store: SqliteStore; dataDir: string; logger: Logger }): Promise<SnapshotServer | undefined> {
  const { store, dataDir, logger } = options;
  const socketPath = join(dataDir, SNAPSHOT_SOCKET);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    logger.warn({ socketPath }, 'data directory path too long for the snapshot socket; snapshot save needs the server stopped');
    return undefined;
  }
  const server: Server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/snapshot') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    void (async () => {
      const dir = await mkdtemp(join(dataDir, 'snapshot-'));
      try {
        const file = join(dir, 'state.db');
        const revision = await store.currentRevision();
        await store.backup(file);
        const size = (await stat(file)).size;
        res.writeHead(200, { 'content-type': 'application/vnd.sqlite3', 'content-length': size, 'x-setpoint-revision': String(revision) });
        await pipeline(createReadStream(file), res);
        logger.info({ bytes: size }, 'snapshot sent');
      } catch (err) {
        logger.error({ err: (err as Error).message }, 'snapshot failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' }).end(`${(err as Error).message}\n`);
        else res.destroy(err as Error);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    })();
  });
  try {
    // The store's exclusive lock is ours: a socket file or a snapshot directory here is left over
    // from a server that died.
    for (const entry of await readdir(dataDir, { withFileTypes: true })) {
      if (entry.isDirectory() && entry.name.startsWith('snapshot-')) await rm(join(dataDir, entry.name), { recursive: true, force: true });
    }
    await unlink(socketPath).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    await chmod(socketPath, 0o600);
  } catch (err) {
    logger.warn({ socketPath, err: (err as Error).message }, 'cannot serve snapshots on a Unix socket; snapshot save needs the server stopped');
    server.close();
    return undefined;
  }
  return {
    socketPath,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await unlink(socketPath).catch(() => undefined);
    },
  };
}

/**
 * Asks the server listening on `socketPath` for a snapshot and writes it to `destination`.
 * Resolves false when nothing listens there (no socket file, or a stale one); throws Error with the
 * server's message when it fails to make one.
 */
export async function requestSnapshot(socketPath: string, destination: string): Promise<boolean> {
  return new Promise<boolean>((resolve, reject) => {
    // A connection of its own (no keep-alive pool), and no request body to send.
    const req = request({ socketPath, path: '/snapshot', method: 'GET', agent: false }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => reject(new Error(`the server could not make a snapshot: ${text.trim() || `HTTP ${res.statusCode}`}`)));
        return;
      }
      const expected = Number(res.headers['content-length']);
      let received = 0;
      res.on('data', (chunk: Buffer) => (received += chunk.length));
      pipeline(res, createWriteStream(destination, { mode: 0o600 })).then(
        () => (Number.isFinite(expected) && received !== expected ? reject(new Error(`the snapshot stream ended after ${received} of ${expected} bytes`)) : resolve(true)),
        reject,
      );
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') resolve(false);
      else reject(err);
    });
    req.end();
  });
}
