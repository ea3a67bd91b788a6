// ESLint rule: the direction of imports between Setpoint's packages (docs/architecture.md).
// - a relative import must stay inside its own package;
// - a package may import only the workspace packages listed for it below;
// - a workspace package is imported only through the entry points its package.json exports.
import { dirname, resolve, sep } from 'node:path';
import { readFileSync, existsSync } from 'node:fs';

const root = resolve(dirname(new URL(import.meta.url).pathname), '../..');

/** Which workspace packages each package may import ("*" = any). Subpaths listed as "pkg/sub". */
export const allowedImports = {
  api: [],
  // The work queue, rate limiters, Fifo and backoff: imports nothing of ours; every package but api may use it.
  workqueue: [],
  // Its tests run the queues on @setpoint/api's FakeClock.
  'workqueue:testing': ['api'],
  store: ['api', 'workqueue'],
  apiserver: ['api', 'store', 'workqueue'],
  // The client is a library for real clusters: it never imports the server or the store.
  client: ['api', 'workqueue'],
  // The client's own tests start Setpoint's server, in-process or by hand (TLS, discovery).
  'client:testing': ['api', 'store', 'apiserver', 'testing', 'workqueue'],
  // The in-process control plane for tests (like envtest): the API server on the memory store, and a client for it.
  testing: ['api', 'store', 'apiserver', 'client', 'workqueue'],
  controllers: ['api', 'client', 'workqueue'],
  'controllers:testing': ['api', 'client', 'testing', 'workqueue'],
  agent: ['api', 'client', 'workqueue'],
  'agent:testing': ['api', 'client', 'testing', 'workqueue'],
  // The dashboard is a browser bundle: @setpoint/api, the client's browser-safe Watcher, the work queue's helpers.
  dashboard: ['api', 'client/watcher', 'workqueue'],
  // The dashboard's browser tests start an API server in-process (the app itself talks HTTP only).
  'dashboard:testing': ['api', 'store', 'apiserver', 'client', 'testing', 'workqueue'],
  setpoint: ['*'],
  bench: ['*'],
  examples: ['api', 'client', 'workqueue'],
  // The examples' tests run them against the in-process control plane of @setpoint/testing.
  'examples:testing': ['api', 'client', 'testing', 'workqueue'],
};

const exportsCache = new Map();
function exportedSubpaths(pkg) {
  if (!exportsCache.has(pkg)) {
    const file = resolve(root, 'packages', pkg, 'package.json');
    let subs = ['.'];
    if (existsSync(file)) {
      const json = JSON.parse(readFileSync(file, 'utf8'));
      if (json.exports && typeof json.exports === 'object') subs = Object.keys(json.exports);
    }
    exportsCache.set(pkg, subs);
  }
  return exportsCache.get(pkg);
}

/** The area a file belongs to: a package name, "client:testing" and the like, "bench", "examples", or null. */
function areaOf(file) {
  const rel = file.slice(root.length + 1).split(sep);
  if (rel[0] === 'packages' && rel[1]) {
    // The client's own tests may start Setpoint's server (its non-test code may not).
    if (rel[1] === 'client' && (rel[rel.length - 1].endsWith('.test.ts') || rel[2] === 'test')) return 'client:testing';
    // Controllers' tests run them against the in-process control plane of @setpoint/testing.
    if (rel[1] === 'controllers' && (rel.includes('testing') || rel[rel.length - 1].endsWith('.test.ts') || rel[2] === 'test')) return 'controllers:testing';
    // The agent's tests run it against the in-process control plane of @setpoint/testing.
    if (rel[1] === 'agent' && (rel.includes('testing') || rel[rel.length - 1].endsWith('.test.ts') || rel[2] === 'test')) return 'agent:testing';
    // The work queue's tests run on @setpoint/api's FakeClock.
    if (rel[1] === 'workqueue' && rel[rel.length - 1].endsWith('.test.ts')) return 'workqueue:testing';
    // The dashboard's tests (test/) serve the built app from an in-process API server.
    if (rel[1] === 'dashboard' && rel[2] === 'test') return 'dashboard:testing';
    return rel[1];
  }
  // The examples' tests run them against the in-process control plane of @setpoint/testing.
  if (rel[0] === 'examples' && rel[rel.length - 1].endsWith('.test.ts')) return 'examples:testing';
  if (rel[0] === 'bench' || rel[0] === 'examples') return rel[0];
  return null;
}

function packageRootOf(file) {
  const rel = file.slice(root.length + 1).split(sep);
  if (rel[0] === 'packages' && rel[1]) return resolve(root, 'packages', rel[1]);
  if (rel[0] === 'examples' && rel[1]) return resolve(root, 'examples', rel[1]);
  return resolve(root, rel[0] ?? '');
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'enforce the direction of imports between Setpoint packages' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    if (!file.startsWith(root + sep)) return {};
    const area = areaOf(file);
    if (area === null) return {};
    const allowed = allowedImports[area] ?? [];
    const check = (node, source) => {
      if (typeof source !== 'string') return;
      if (source.startsWith('.')) {
        const target = resolve(dirname(file), source);
        const own = packageRootOf(file);
        if (!(target === own || target.startsWith(own + sep))) {
          context.report({ node, message: `relative import "${source}" leaves its package; import the package by name` });
        }
        return;
      }
      const m = /^@setpoint\/([^/]+)(?:\/(.+))?$/.exec(source);
      if (!m) return;
      const [, pkg, sub] = m;
      const ownPkg = area.split(':')[0];
      if (pkg === ownPkg) {
        context.report({ node, message: `a package imports its own files relatively, not as "${source}"` });
        return;
      }
      if (!allowed.includes('*') && !allowed.includes(pkg) && !(sub !== undefined && allowed.includes(`${pkg}/${sub}`))) {
        context.report({ node, message: `${area} may not import @setpoint/${pkg} (see docs/architecture.md)` });
        return;
      }
      if (sub !== undefined && !exportedSubpaths(pkg).includes(`./${sub}`)) {
        context.report({ node, message: `deep import "${source}": use the entry points of @setpoint/${pkg}` });
      }
    };
    return {
      ImportDeclaration: (node) => check(node, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
      ExportAllDeclaration: (node) => check(node, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    };
  },
};
