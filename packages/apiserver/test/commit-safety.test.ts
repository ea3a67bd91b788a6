/**
 * Property (issue #19, item 2): nothing after the store's commit can fail a response. Random
 * creates, updates and patches (every patch type, apply included) carry hostile field names and
 * values — characters outside Latin-1 (U+FFFF, emoji), lone surrogates, control characters,
 * quotes and backslashes, `__proto__`, patch directives, huge numbers, very long names — with
 * random fieldValidation, dryRun, fieldManager and Accept (JSON, YAML, protobuf, Table), in JSON
 * or YAML bodies; and deletes with random grace periods and propagation policies. On the memory
 * and the SQLite store. Checked
 * for every answer:
 *
 * - a 5xx leaves the store exactly as it was (its revision and every key's value);
 * - every error is a Kubernetes Status (JSON, kind Status, the HTTP code in the body);
 * - a 2xx write that was not a dry run is what the store holds (same resourceVersion);
 * - every Warning header line is `299 - "…"` and the head stays within what Node's and Python's
 *   clients read (16 KiB in all, under 100 lines).
 *
 * Seed: fixed (20261201) unless COMMIT_FUZZ_SEED=<n> or =random (printed); COMMIT_FUZZ_RUNS=<n>
 * (default 300 on memory, 150 on SQLite).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { it } from 'node:test';
import fc from 'fast-check';
import { startTestServer, type TestServer } from './harness.js';

const HOSTILE_NAMES = ['a😀b', '\uffff', 'x\ud800', '\udfff', 'tab\tkey', 'new\nline', 'nul\u0000', 'del\u007f', 'c1\u0085', '"quoted"', 'back\\slash', '__proto__', 'constructor', '$patch', '$retainKeys', 'a.b', 'a/b', '~0~1', '', ' ', 'é', '\u200b', '😀'.repeat(300), 'k'.repeat(5000)];
const fieldName = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...HOSTILE_NAMES) }, { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) });
const hostileValue = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom(1e308, -0, 2 ** 63, 18446744073709551616, 1.5, null, '', '😀\uffff', 'x'.repeat(10_000)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);

interface Kind {
  readonly collection: string;
  readonly template: Record<string, unknown>;
}
const KINDS: readonly Kind[] = [
  { collection: '/api/v1/namespaces/default/configmaps', template: { apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } } },
  { collection: '/api/v1/namespaces/default/secrets', template: { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', stringData: { k: 'v' } } },
  { collection: '/api/v1/namespaces/default/pods', template: { apiVersion: 'v1', kind: 'Pod', spec: { containers: [{ name: 'c', image: 'i' }] } } },
  {
    collection: '/apis/apps/v1/namespaces/default/deployments',
    template: { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 1, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } } },
  },
  { collection: '/api/v1/nodes', template: { apiVersion: 'v1', kind: 'Node' } },
  { collection: '/apis/example.com/v1/namespaces/default/widgets', template: { apiVersion: 'example.com/v1', kind: 'Widget', spec: { size: 'small' } } },
];
const NAMES = ['o1', 'o2', 'o3'];
const ACCEPTS = [undefined, 'application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io'];

/** Where in the object the hostile field goes. */
const PLACES = [[], ['metadata'], ['metadata', 'labels'], ['metadata', 'annotations'], ['data'], ['spec'], ['spec', 'template', 'spec'], ['status']] as const;

function place(obj: Record<string, unknown>, at: readonly string[], name: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(obj);
  let node: Record<string, unknown> = copy;
  for (const step of at) {
    const next = node[step];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[step] = {};
    node = node[step] as Record<string, unknown>;
  }
  Object.defineProperty(node, name, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

interface Write {
  readonly method: 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body: string;
  readonly contentType: string;
  readonly accept: string | undefined;
  readonly dryRun: boolean;
}

const write: fc.Arbitrary<Write> = fc
  .record({
    kind: fc.constantFrom(...KINDS),
    name: fc.constantFrom(...NAMES),
    verb: fc.constantFrom('create', 'update', 'merge', 'strategic', 'json', 'apply', 'delete'),
    yaml: fc.constantFrom(false, false, false, true),
    grace: fc.constantFrom(undefined, '0', '30', '-1', '9223372036854775807', 'x'),
    propagation: fc.constantFrom(undefined, 'Foreground', 'Orphan', 'Bogus'),
    fields: fc.array(fc.tuple(fc.constantFrom(...PLACES), fieldName, hostileValue), { minLength: 1, maxLength: 4 }),
    fieldValidation: fc.constantFrom(undefined, 'Warn', 'Strict', 'Ignore'),
    dryRun: fc.constantFrom(false, false, false, true),
    fieldManager: fc.constantFrom(undefined, 'fuzz', 'm😀', 'x'.repeat(200)),
    accept: fc.constantFrom(...ACCEPTS),
    jsonPath: fc.constantFrom('/metadata', '/metadata/labels', '/data', '/spec', '', '/status'),
    jsonOp: fc.constantFrom('add', 'replace', 'remove', 'move', 'copy'),
  })
  .map((r) => {
    const named = { ...r.kind.template, metadata: { name: r.name } };
    let obj: Record<string, unknown> = named;
    for (const [at, name, value] of r.fields) obj = place(obj, at, name, value);
    const query = new URLSearchParams();
    if (r.fieldValidation !== undefined) query.set('fieldValidation', r.fieldValidation);
    if (r.dryRun) query.set('dryRun', 'All');
    if (r.verb === 'apply') query.set('fieldManager', r.fieldManager ?? 'fuzz');
    else if (r.fieldManager !== undefined) query.set('fieldManager', r.fieldManager);
    const qs = query.size > 0 ? `?${query.toString()}` : '';
    const item = `${r.kind.collection}/${r.name}${qs}`;
    const [firstPlace, firstName, firstValue] = r.fields[0]!;
    // YAML bodies carry the same object (JSON is YAML; the hostile keys arrive through the YAML parser).
    const bodyType = r.yaml ? 'application/yaml' : 'application/json';
    switch (r.verb) {
      case 'create':
        return { method: 'POST', path: `${r.kind.collection}${qs}`, body: JSON.stringify(obj), contentType: bodyType, accept: r.accept, dryRun: r.dryRun };
      case 'update':
        return { method: 'PUT', path: item, body: JSON.stringify(obj), contentType: bodyType, accept: r.accept, dryRun: r.dryRun };
      case 'delete': {
        const dq = new URLSearchParams();
        if (r.dryRun) dq.set('dryRun', 'All');
        if (r.grace !== undefined) dq.set('gracePeriodSeconds', r.grace);
        if (r.propagation !== undefined) dq.set('propagationPolicy', r.propagation);
        const path = `${r.kind.collection}/${r.name}${dq.size > 0 ? `?${dq.toString()}` : ''}`;
        return { method: 'DELETE', path, body: JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', [firstName]: firstValue }), contentType: 'application/json', accept: r.accept, dryRun: r.dryRun };
      }
      case 'json': {
        const path = `${[...firstPlace].map((p) => `/${p}`).join('')}/${firstName.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        const ops = [{ op: r.jsonOp, path: r.jsonOp === 'move' || r.jsonOp === 'copy' ? path : r.jsonPath || path, from: r.jsonPath, value: firstValue }, { op: 'add', path, value: firstValue }];
        return { method: 'PATCH', path: item, body: JSON.stringify(ops), contentType: 'application/json-patch+json', accept: r.accept, dryRun: r.dryRun };
      }
      default: {
        const { apiVersion: _a, kind: _k, ...patch } = obj;
        const body = r.verb === 'apply' ? obj : patch;
        const type = r.verb === 'merge' ? 'application/merge-patch+json' : r.verb === 'strategic' ? 'application/strategic-merge-patch+json' : 'application/apply-patch+yaml';
        return { method: 'PATCH', path: item, body: JSON.stringify(body), contentType: type, accept: r.accept, dryRun: r.dryRun };
      }
    }
  });

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly text: string;
  readonly rawHeaders: readonly string[];
}

function send(srv: TestServer, w: Write): Promise<Answer> {
  const payload = Buffer.from(w.body, 'utf8');
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': w.contentType, 'content-length': String(payload.length) };
    if (w.accept !== undefined) headers.accept = w.accept;
    const req = http.request(new URL(w.path, srv.url), { method: w.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8'), rawHeaders: res.rawHeaders }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** The store's whole contents: its revision and every key with its value and modRevision. */
async function snapshot(srv: TestServer): Promise<string> {
  const rev = await srv.store.currentRevision();
  const list = await srv.store.list('');
  return JSON.stringify([rev, list.items.map((kv) => [kv.key, kv.modRevision, kv.value])]);
}

function describeWrite(w: Write): string {
  const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 300)}…` : s);
  return JSON.stringify({ method: w.method, path: clip(w.path), contentType: w.contentType, accept: w.accept, body: clip(w.body) });
}

for (const backend of ['memory', 'sqlite'] as const) it(`after any 5xx the store is unchanged, every error is a Status, every 2xx write is what the store holds (${backend})`, async (t) => {
  const seedEnv = process.env.COMMIT_FUZZ_SEED;
  const seed = seedEnv === 'random' ? Math.floor(Math.random() * 2 ** 31) : seedEnv !== undefined ? Number(seedEnv) : 20261201;
  const numRuns = process.env.COMMIT_FUZZ_RUNS !== undefined ? Number(process.env.COMMIT_FUZZ_RUNS) : backend === 'memory' ? 300 : 150;
  t.diagnostic(`COMMIT_FUZZ_SEED=${seed} COMMIT_FUZZ_RUNS=${numRuns}`);
  await using srv = await startTestServer({ backend });
  assert.equal((await srv.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd())).status, 201);
  const deadline = Date.now() + 10_000;
  while ((await srv.request('GET', '/apis/example.com/v1/namespaces/default/widgets')).status !== 200) {
    if (Date.now() > deadline) throw new Error('the widget CRD was not served within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // o1 and o2 of every kind exist (updates and patches find them); o3 does not (creates, apply).
  for (const kind of KINDS) {
    for (const name of ['o1', 'o2']) assert.equal((await srv.request('POST', kind.collection, { ...kind.template, metadata: { name } })).status, 201, `${kind.collection}/${name}`);
  }
  const codes = new Map<number, number>();
  const fiveHundreds: string[] = [];
  await fc.assert(
    fc.asyncProperty(write, async (w) => {
      Object.defineProperty(w, fc.toStringMethod, { value: () => describeWrite(w) });
      const before = await snapshot(srv);
      const ans = await send(srv, w);
      codes.set(ans.status, (codes.get(ans.status) ?? 0) + 1);
      const what = `${describeWrite(w)} → HTTP ${ans.status}: ${ans.text.slice(0, 300)}`;
      if (ans.status >= 500) {
        fiveHundreds.push(what);
        assert.notEqual(ans.status, 500, `an internal error: ${what}`);
        assert.equal(await snapshot(srv), before, `a 5xx changed the store: ${what}`);
      }
      // The head: Warning lines well-formed, and small enough for every client.
      const lines = ans.rawHeaders.length / 2;
      assert.ok(lines < 100, `${lines} header lines: ${what}`);
      let headBytes = 0;
      for (let i = 0; i < ans.rawHeaders.length; i += 2) {
        headBytes += Buffer.byteLength(ans.rawHeaders[i]!, 'latin1') + Buffer.byteLength(ans.rawHeaders[i + 1]!, 'latin1') + 4;
        if (ans.rawHeaders[i]!.toLowerCase() === 'warning') assert.match(Buffer.from(ans.rawHeaders[i + 1]!, 'latin1').toString('utf8'), /^299 - "(?:[^"\\]|\\.)*"$/su, what);
      }
      assert.ok(headBytes < 16 * 1024, `a ${headBytes}-byte head: ${what}`);
      if (ans.status >= 400) {
        assert.match(ans.type, /^application\/json/, `an error that is not JSON: ${what}`);
        const status = JSON.parse(ans.text) as { kind?: string; apiVersion?: string; status?: string; code?: number; reason?: string };
        assert.equal(status.kind, 'Status', what);
        assert.equal(status.apiVersion, 'v1', what);
        assert.equal(status.status, 'Failure', what);
        assert.equal(status.code, ans.status, what);
        assert.equal(typeof status.reason, 'string', what);
        return;
      }
      if (w.dryRun || w.method === 'DELETE' || !/^application\/json/.test(ans.type) || w.accept?.includes('Table')) return;
      // A 2xx write: the answer is what the store holds.
      const answered = JSON.parse(ans.text) as { metadata?: { name?: string; resourceVersion?: string; deletionTimestamp?: string; finalizers?: string[] } };
      const collection = w.method === 'POST' ? w.path.split('?')[0]! : w.path.split('?')[0]!.replace(/\/[^/]+$/, '');
      const stored = await srv.request('GET', `${collection}/${answered.metadata?.name ?? ''}`);
      // A write that leaves a deleting object without finalizers removes it (as in Kubernetes).
      if (answered.metadata?.deletionTimestamp !== undefined && (answered.metadata.finalizers ?? []).length === 0) {
        assert.equal(stored.status, 404, `a deleting object without finalizers is still stored: ${what}`);
        return;
      }
      assert.equal(stored.status, 200, `the object answered is not stored: ${what}`);
      assert.equal(stored.body.metadata.resourceVersion, answered.metadata?.resourceVersion, `the stored object differs from the answer: ${what}`);
    }),
    { seed, numRuns, includeErrorInReport: true },
  );
  t.diagnostic(`answers by HTTP code: ${[...codes].sort(([a], [b]) => a - b).map(([code, n]) => `${code}×${n}`).join(' ')}`);
  for (const what of fiveHundreds.slice(0, 10)) t.diagnostic(`5xx: ${what}`);
});

function widgetCrd(): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: { type: 'object', properties: { size: { type: 'string', enum: ['small', 'large'] }, free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
                status: { type: 'object', properties: { replicas: { type: 'integer' } } },
              },
            },
          },
          subresources: { status: {} },
        },
      ],
    },
  };
}
