/**
 * Failures are contained per CRD: a CRD that cannot be served (a schema that does not compile, a
 * malformed object written straight into the store) is reported in its conditions and skipped,
 * an exception reconciling one CRD is logged with its name, counted and retried with backoff,
 * and every other CRD keeps being served and reconciled.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiError, FakeClock, type KubeObject, type Logger } from '@setpoint/api';
import { Registry } from 'prom-client';
import { CrdController, type CrdHost } from '../src/crd/controller.js';
import type { ResourceStorage } from '../src/storage/rest.js';
import { startTestServer, type TestServer } from './harness.js';
import { ok, waitFor } from './support.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const KEY = '/registry/apiextensions.k8s.io/customresourcedefinitions/';

function crd(plural: string, kind: string, props: Record<string, unknown> = { size: { type: 'string' } }): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, kind, singular: kind.toLowerCase(), listKind: `${kind}List` },
      conversion: { strategy: 'None' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: props } } } } }],
    },
  };
}

type Cond = { type: string; status: string; reason: string; message: string };

async function conditions(srv: TestServer, name: string, until: (c: Cond[]) => boolean, what: string): Promise<Cond[]> {
  let got: Cond[] = [];
  await waitFor(async () => {
    got = ((await srv.request('GET', `${CRDS}/${name}`)).body?.status?.conditions ?? []) as Cond[];
    return until(got);
  }, 10_000, what);
  return got;
}
const has = (type: string, status: string, reason?: string) => (list: Cond[]) => list.some((c) => c.type === type && c.status === status && (reason === undefined || c.reason === reason));

test('stored CRDs that cannot be served say so in their conditions, and every other CRD is served', async () => {
  // The API server serves the store as it is (checkStoredObjects: false, as an older or buggy
  // server would), so the controller itself meets the malformed CRD; with the check on, the
  // server leaves it out before the controller sees it (typed-decoding.test.ts).
  await using srv = await startTestServer({ checkStoredObjects: false });
  // Written straight into the store (by an older version, or a buggy server): one malformed in
  // the same group as the others, one with a pattern JavaScript takes but RE2 does not, holding
  // the cleanup finalizer as an older server would have added it.
  const broken = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'brokens.example.com', uid: 'u1', creationTimestamp: '2020-01-01T00:00:00Z' }, spec: { group: 'example.com', names: null, versions: 'x' } };
  const old = crd('olds', 'Old', { x: { type: 'string', pattern: '^(a)\\1$' } });
  old.metadata = { ...old.metadata, uid: 'u2', creationTimestamp: '2020-01-01T00:00:00Z', finalizers: ['customresourcecleanup.apiextensions.k8s.io'] };
  await srv.store.create(`${KEY}brokens.example.com`, JSON.stringify(broken));
  await srv.store.create(`${KEY}olds.example.com`, JSON.stringify(old));

  ok(await srv.request('POST', CRDS, crd('widgets', 'Widget')), 201);
  await conditions(srv, 'widgets.example.com', has('Established', 'True'), 'widgets Established beside a malformed neighbour');
  ok(await srv.request('POST', '/apis/example.com/v1/namespaces/default/widgets', { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'big' } }), 201);

  const oldConds = await conditions(srv, 'olds.example.com', has('Established', 'False', 'InvalidSchema'), 'olds Established=False');
  const established = oldConds.find((c) => c.type === 'Established')!;
  assert.equal(
    established.message,
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[x].pattern: Invalid value: "^(a)\\\\1$": must be a valid regular expression, but isn\'t: error parsing regexp: invalid escape sequence: `\\1`',
  );
  assert.ok(has('NamesAccepted', 'True', 'NoConflicts')(oldConds), 'its names are fine');

  // The malformed one cannot even take a status write (the server refuses to write an object of
  // the wrong shape, as Kubernetes cannot decode one): the controller counts and retries it.
  await waitFor(async () => /controller_runtime_reconcile_errors_total\{controller="customresourcedefinition"\} [1-9]/.test((await srv.request('GET', '/metrics')).text), 10_000, 'the malformed CRD counted as a reconcile error');

  const resources = ok(await srv.request('GET', '/apis/example.com/v1')).resources.map((r: { name: string }) => r.name);
  assert.deepEqual(resources, ['widgets'], 'only the servable CRD is served');
  assert.equal((await srv.request('GET', '/readyz')).status, 200);

  // The stored CRD with the old pattern can still be deleted: removing its finalizer is an update
  // that keeps the error it already had.
  ok(await srv.request('DELETE', `${CRDS}/olds.example.com`));
  await waitFor(async () => (await srv.request('GET', `${CRDS}/olds.example.com`)).status === 404, 10_000, 'olds to go');
  // Fixing it through the API serves it: the malformed one is not fixed, the others carry on.
  const fixed = ok(await srv.request('POST', CRDS, crd('olds', 'Old', { x: { type: 'string', pattern: '^(a)a$' } })), 201);
  assert.equal(fixed.metadata.name, 'olds.example.com');
  await conditions(srv, 'olds.example.com', has('Established', 'True'), 'olds served once valid');
});

test('a server starting on a store that holds a CRD it cannot serve starts, serves the others and reports it', async () => {
  await using first = await startTestServer({ backend: 'sqlite' });
  ok(await first.request('POST', CRDS, crd('widgets', 'Widget')), 201);
  await conditions(first, 'widgets.example.com', has('Established', 'True'), 'widgets Established');
  await first.stop(true);
  // Stored while no server runs, as an older version (whose patterns were JavaScript's) could.
  const old = crd('olds', 'Old', { x: { type: 'string', pattern: '(?<=a)b' } });
  old.metadata = { ...old.metadata, uid: 'u2', creationTimestamp: '2020-01-01T00:00:00Z' };
  await first.store.create(`${KEY}olds.example.com`, JSON.stringify(old));
  await first.store.close();

  await using second = await startTestServer({ backend: 'sqlite', dir: first.dir });
  assert.equal((await second.request('GET', '/readyz')).status, 200);
  const conds = await conditions(second, 'olds.example.com', has('Established', 'False', 'InvalidSchema'), 'olds Established=False after a restart');
  assert.match(conds.find((c) => c.type === 'Established')!.message, /properties\[x\]\.pattern: Invalid value: "\(\?<=a\)b": must be a valid regular expression, but isn't: error parsing regexp: invalid named capture/);
  const resources = ok(await second.request('GET', '/apis/example.com/v1')).resources.map((r: { name: string }) => r.name);
  assert.deepEqual(resources, ['widgets']);
  // The controller's failure counters are on the API server's /metrics.
  const metrics = (await second.request('GET', '/metrics')).text;
  assert.match(metrics, /# TYPE controller_runtime_reconcile_errors_total counter/);
  assert.match(metrics, /# TYPE controller_runtime_reconcile_panics_total counter/);
});

/** The CRD storage as the controller sees it, in memory, firing change listeners like the watch cache. */
function fakeCrds(objects: KubeObject[]) {
  const objs = new Map(objects.map((o) => [o.metadata.name!, structuredClone(o)]));
  const listeners = new Set<(o: KubeObject) => void>();
  const storage = {
    cache: {
      onChange: (fn: (o: KubeObject) => void) => (listeners.add(fn), () => void listeners.delete(fn)),
      snapshot: () => [...objs.values()].map((o) => structuredClone(o)),
    },
    get: async (_ns: string, name: string) => {
      const o = objs.get(name);
      if (o === undefined) throw ApiError.notFound({ group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' }, name);
      return structuredClone(o);
    },
    update: async (_ns: string, name: string, obj: KubeObject) => {
      objs.set(name, structuredClone(obj));
      for (const l of listeners) l(obj);
      return structuredClone(obj);
    },
  };
  return { storage: storage as unknown as ResourceStorage, objs, put: (o: KubeObject) => void storage.update('', o.metadata.name!, o) };
}

test('an exception reconciling one CRD is logged with its name, counted and retried with backoff; the others reconcile', async () => {
  const clock = new FakeClock();
  const registry = new Registry();
  const logged: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (fields, message) => void logged.push({ level: 'warn', fields: fields as Record<string, unknown>, message }),
    error: (fields, message) => void logged.push({ level: 'error', fields: fields as Record<string, unknown>, message }),
    child: () => logger,
  };
  // With the cleanup finalizer already, so that only the retries enqueue the failing CRD again.
  const withFinalizer = (o: KubeObject): KubeObject => ({ ...o, metadata: { ...o.metadata, finalizers: ['customresourcecleanup.apiextensions.k8s.io'] } });
  const crds = fakeCrds([crd('bads', 'Bad'), crd('goods', 'Good')].map(withFinalizer));
  const attempts = new Map<string, number>();
  const served = new Set<string>();
  const host: CrdHost = {
    crds: crds.storage,
    serve: async (name, defs) => {
      attempts.set(name, (attempts.get(name) ?? 0) + 1);
      if (name === 'bads.example.com') throw new TypeError("Cannot read properties of undefined (reading 'x')");
      if (defs.length > 0) served.add(name);
      else served.delete(name);
    },
    storageOf: () => undefined,
    builtinConflict: () => false,
  };
  const controller = new CrdController(host, { clock, logger, registry });
  await controller.start();
  try {
    const count = async (metric: string) => (await registry.getSingleMetric(metric)!.get()).values.find((v) => v.labels.controller === 'customresourcedefinition')?.value ?? 0;
    const status = (name: string) => (crds.objs.get(name)!.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? [];
    assert.ok(served.has('goods.example.com'));
    assert.ok(status('goods.example.com').some((c) => c.type === 'Established' && c.status === 'True'));
    assert.equal(attempts.get('bads.example.com'), 1);
    assert.equal(await count('controller_runtime_reconcile_errors_total'), 1);
    assert.equal(await count('controller_runtime_reconcile_panics_total'), 1, 'a TypeError is a panic');
    const line = logged.find((l) => l.level === 'error');
    assert.equal(line?.fields.crd, 'bads.example.com', 'logged with the CRD name');
    assert.equal(line?.fields.retryInMs, 100);

    // Retried with backoff: 100 ms, then 200 ms.
    await clock.advance(99);
    await controller.idle();
    assert.equal(attempts.get('bads.example.com'), 1);
    await clock.advance(1);
    await controller.idle();
    assert.equal(attempts.get('bads.example.com'), 2);
    await clock.advance(199);
    await controller.idle();
    assert.equal(attempts.get('bads.example.com'), 2);
    await clock.advance(1);
    await controller.idle();
    assert.equal(attempts.get('bads.example.com'), 3);
    assert.equal(await count('controller_runtime_reconcile_errors_total'), 3);

    // Meanwhile a new CRD is served at once.
    crds.put(crd('news', 'New'));
    await controller.idle();
    assert.ok(served.has('news.example.com'));
    assert.ok(status('news.example.com').some((c) => c.type === 'Established' && c.status === 'True'));
  } finally {
    controller.stop();
  }
});
