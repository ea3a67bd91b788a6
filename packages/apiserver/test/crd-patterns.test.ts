/**
 * CRD `pattern`s are RE2, as Kubernetes' (Go's regexp): Go's syntax such as `(?i)` works, matching
 * is a linear-time search, so no value can make validation backtrack and stall the server, and a
 * pattern that is not valid RE2 is refused when the CRD is written, naming the field.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import type { KubeObject } from '@setpoint/api';
import { request, startTestServer, type TestServer } from './harness.js';
import { assertStatus, ok, waitFor } from './support.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function crd(group: string, plural: string, kind: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, kind },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec } } } }],
    },
  };
}

const widgets = (props: Record<string, unknown>) => crd('example.com', 'widgets', 'Widget', { type: 'object', properties: props });
const widget = (name: string, spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

async function established(base: string, name: string): Promise<void> {
  await waitFor(async () => {
    const res = await request(base, 'GET', `${CRDS}/${name}`);
    return ((res.body?.status?.conditions ?? []) as Array<{ type: string; status: string }>).some((c) => c.type === 'Established' && c.status === 'True');
  }, 10_000, `${name} Established`);
}

/** A fetch that gives up at `ms` (the server's thread may be stuck; this one is not). */
async function fetchWithin(ms: number, url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(ms) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

/** A worker thread running the TypeScript module `url` (through tsx, as this process runs). */
function startWorker(url: URL): Worker {
  const bootstrap = 'const { workerData: w } = require("node:worker_threads"); import(w.tsx).then((api) => { api.register(); return import(w.url); });';
  return new Worker(bootstrap, { eval: true, workerData: { tsx: import.meta.resolve('tsx/esm/api'), url: url.href } });
}

test('a backtracking-prone pattern answers a 10,000-character value at once, and /readyz stays responsive meanwhile', async () => {
  // The server runs in a worker thread: if validation backtracked, its thread would be stuck and
  // this thread's deadlines would still fire.
  const worker = startWorker(new URL('./crd-server-worker.ts', import.meta.url));
  try {
    const { url } = await new Promise<{ url: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    ok(await request(url, 'POST', CRDS, widgets({ name: { type: 'string', pattern: '^(a+)+$' } })), 201);
    await established(url, 'widgets.example.com');

    const post = (name: string, value: string) =>
      fetchWithin(60_000, `${url}${WIDGETS}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(widget(name, { name: value })) });
    const refused = post('no', `${'a'.repeat(10_000)}!`);
    const ready = await fetchWithin(20_000, `${url}/readyz`);
    assert.equal(ready.status, 200, '/readyz answers while the value is validated');
    const res = await refused;
    assert.equal(res.status, 422);
    assert.match(res.body.message, /spec\.name in body should match '\^\(a\+\)\+\$'/);
    assert.equal((await post('yes', 'a'.repeat(10_000))).status, 201, 'a matching value is taken');
    assert.equal((await post('short', `${'a'.repeat(33)}!`)).status, 422);
  } finally {
    await worker.terminate();
  }
});

// prometheus-operator's PrometheusRule, cut down to the fields with patterns.
const prometheusRule = crd('monitoring.coreos.com', 'prometheusrules', 'PrometheusRule', {
  type: 'object',
  properties: {
    groups: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1 },
          interval: { type: 'string', pattern: '^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$' },
          partial_response_strategy: { type: 'string', pattern: '^(?i)(abort|warn)?$' },
          rules: { type: 'array', items: { type: 'object', properties: { alert: { type: 'string' }, expr: { 'x-kubernetes-int-or-string': true } } } },
        },
      },
    },
  },
});

test("PrometheusRule's (?i) pattern is served and matches case-insensitively; Go's syntax and unanchored search", async () => {
  await using srv = await startTestServer();
  ok(await srv.request('POST', CRDS, prometheusRule), 201);
  await established(srv.url, 'prometheusrules.monitoring.coreos.com');
  const RULES = '/apis/monitoring.coreos.com/v1/namespaces/default/prometheusrules';
  const rule = (name: string, strategy: string): KubeObject => ({
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name },
    spec: { groups: [{ name: 'g', interval: '30s', partial_response_strategy: strategy, rules: [{ alert: 'Up', expr: 'up == 0' }] }] },
  });
  for (const [name, strategy] of [['upper', 'WARN'], ['mixed', 'Abort'], ['lower', 'warn'], ['empty', '']] as const) ok(await srv.request('POST', RULES, rule(name, strategy)), 201);
  const bad = await srv.request('POST', RULES, rule('bad', 'maybe'));
  const status = assertStatus(bad, 422, 'Invalid');
  assert.equal(
    status.message,
    `PrometheusRule.monitoring.coreos.com "bad" is invalid: spec.groups[0].partial_response_strategy: Invalid value: "maybe": spec.groups[0].partial_response_strategy in body should match '^(?i)(abort|warn)?$'`,
  );

  // More of Go's syntax JavaScript lacks, and Go's MatchString: a search unless anchored.
  ok(
    await srv.request(
      'POST',
      CRDS,
      widgets({
        word: { type: 'string', pattern: '^[[:alpha:]]+\\z' },
        letters: { type: 'string', pattern: '^\\pL+$' },
        digit: { type: 'string', pattern: '[[:digit:]]' },
        named: { type: 'string', pattern: '^(?P<major>[0-9]+)\\.(?P<minor>[0-9]+)$' },
      }),
    ),
    201,
  );
  await established(srv.url, 'widgets.example.com');
  ok(await srv.request('POST', WIDGETS, widget('good', { word: 'abc', letters: 'héllo', digit: 'ab1cd', named: '1.32' })), 201);
  for (const [spec, field] of [
    [{ word: 'ab1' }, 'word'],
    [{ letters: 'a1' }, 'letters'],
    [{ digit: 'abc' }, 'digit'],
    [{ named: '1.x' }, 'named'],
  ] as const) {
    assertStatus(await srv.request('POST', WIDGETS, widget('bad', spec)), 422, 'Invalid', new RegExp(`spec\\.${field} in body should match`));
  }
});

test('a pattern that is not RE2 is refused at create and update with 422 naming the field, worded as kube-apiserver words it', async () => {
  await using srv = await startTestServer();
  const refused = async (res: Awaited<ReturnType<TestServer['request']>>, field: string, pattern: string, error: string) => {
    const status = assertStatus(res, 422, 'Invalid');
    const message = `${field}: Invalid value: ${JSON.stringify(pattern)}: must be a valid regular expression, but isn't: error parsing regexp: ${error}`;
    assert.equal(status.message, `CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: ${message}`);
    assert.deepEqual(status.details.causes, [{ reason: 'FieldValueInvalid', message: message.slice(field.length + 2), field }]);
  };
  const at = 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties';
  await refused(await srv.request('POST', CRDS, widgets({ x: { type: 'string', pattern: '(?<=a)b' } })), `${at}[x].pattern`, '(?<=a)b', 'invalid named capture: `(?<=a)b`');
  await refused(await srv.request('POST', CRDS, widgets({ x: { type: 'string', pattern: '(a)\\1' } })), `${at}[x].pattern`, '(a)\\1', 'invalid escape sequence: `\\1`');
  await refused(await srv.request('POST', CRDS, widgets({ x: { type: 'string', pattern: 'a(?=b)' } })), `${at}[x].pattern`, 'a(?=b)', 'invalid or unsupported Perl syntax: `(?=`');
  await refused(
    await srv.request('POST', CRDS, widgets({ list: { type: 'array', items: { type: 'object', additionalProperties: { type: 'string', pattern: '+' } } } })),
    `${at}[list].items.additionalProperties.pattern`,
    '+',
    'missing argument to repetition operator: `+`',
  );
  // Other keywords that would keep the schema from compiling.
  assertStatus(await srv.request('POST', CRDS, widgets({ x: { type: 'string', minLength: 'one' } })), 422, 'Invalid', /properties\[x\]\.minLength: Invalid value: "one": must be of type integer/);
  assertStatus(await srv.request('POST', CRDS, widgets({ x: { type: 'text' } })), 422, 'Invalid', /properties\[x\]\.type: Unsupported value: "text": supported values: "array", "boolean"/);
  assertStatus(await srv.request('POST', CRDS, widgets({ x: null })), 422, 'Invalid', /properties\[x\]: Invalid value: null: must be of type object/);
  assert.equal((await srv.request('GET', `${CRDS}/widgets.example.com`)).status, 404, 'nothing was stored');

  // An update to a pattern that is not RE2 is refused the same way; the stored CRD is unchanged.
  ok(await srv.request('POST', CRDS, widgets({ x: { type: 'string', pattern: '^a$' } })), 201);
  const stored = ok(await srv.request('GET', `${CRDS}/widgets.example.com`));
  stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.x.pattern = '(a)\\1';
  await refused(await srv.request('PUT', `${CRDS}/widgets.example.com`, stored), `${at}[x].pattern`, '(a)\\1', 'invalid escape sequence: `\\1`');
  assert.equal(ok(await srv.request('GET', `${CRDS}/widgets.example.com`)).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.x.pattern, '^a$');
});
