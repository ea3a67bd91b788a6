import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../meta/errors.js';
import type { KubeObject, ManagedFieldsEntry } from '../meta/types.js';
import { FieldManager, LAST_APPLIED_ANNOTATION } from './fieldmanager.js';
import { ManagedFieldsError } from './managed.js';
import { deploymentSchema } from './testdata.test-support.js';

const T0 = '2026-01-01T00:00:00Z';
const T1 = '2026-01-01T00:00:01Z';
const T2 = '2026-01-01T00:00:02Z';

const main = new FieldManager({ schema: deploymentSchema, apiVersion: 'apps/v1', kind: 'Deployment', scope: { except: ['status'] } });
const status = new FieldManager({ schema: deploymentSchema, apiVersion: 'apps/v1', kind: 'Deployment', subresource: 'status', scope: { only: ['status'] } });

function deployment(spec: Record<string, unknown>, metadata: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', ...metadata }, spec };
}

/** What the server adds on create: what the live object has besides what was applied. */
function stored(obj: KubeObject): KubeObject {
  return { ...obj, metadata: { ...obj.metadata, uid: 'u-1', resourceVersion: '1', creationTimestamp: T0, generation: 1 } };
}

function entry(obj: KubeObject, manager: string, operation = 'Apply'): ManagedFieldsEntry | undefined {
  return obj.metadata.managedFields?.find((e) => e.manager === manager && e.operation === operation);
}

function conflictOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return err;
  }
  assert.fail('expected a conflict');
}

const containers = (...items: Array<Record<string, unknown>>) => ({ template: { spec: { containers: items } } });

describe('FieldManager.apply', () => {
  test('an apply that creates records one Apply entry with the applied fields (metadata the server sets is not owned)', () => {
    const obj = main.apply(undefined, deployment({ replicas: 2, ...containers({ name: 'nginx', image: 'nginx:1' }) }, { labels: { app: 'web' } }), { manager: 'kubectl', force: false, now: T0 });
    assert.deepEqual(obj.metadata.managedFields, [
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: T0,
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': { 'f:replicas': {}, 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"nginx"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
        },
      },
    ]);
    assert.equal((obj.spec as { replicas: number }).replicas, 2);
  });

  test('another manager applying the same value shares the field; a different value conflicts; force takes it', () => {
    const live = stored(main.apply(undefined, deployment({ replicas: 2 }), { manager: 'kubectl', force: false, now: T0 }));
    const shared = main.apply(live, deployment({ replicas: 2 }), { manager: 'other', force: false, now: T1 });
    assert.deepEqual(entry(shared, 'other')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.deepEqual(entry(shared, 'kubectl')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });

    const err = conflictOf(() => main.apply(live, deployment({ replicas: 3 }), { manager: 'other', force: false, now: T1 }));
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas');
    assert.deepEqual(err.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.replicas' }]);

    const forced = main.apply(live, deployment({ replicas: 3 }), { manager: 'other', force: true, now: T1 });
    assert.equal((forced.spec as { replicas: number }).replicas, 3);
    assert.deepEqual(entry(forced, 'other')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    assert.equal(entry(forced, 'kubectl'), undefined, 'the manager that owned nothing else is gone');
  });

  test('conflicts with several managers are grouped by manager, updaters named with their version', () => {
    let live = stored(main.apply(undefined, deployment({ replicas: 2, paused: false }), { manager: 'a', force: false, now: T0 }));
    const updated = { ...live, spec: { replicas: 2, paused: true, ...containers({ name: 'x', image: 'i' }) } };
    live = { ...updated, metadata: { ...live.metadata, managedFields: main.update(live, updated, 'ctl', T1)! } };
    const err = conflictOf(() => main.apply(live, deployment({ replicas: 5, paused: false, ...containers({ name: 'x', image: 'j' }) }), { manager: 'b', force: false, now: T2 }));
    assert.equal(
      err.message,
      [
        'Apply failed with 3 conflicts: conflicts with "a":',
        '- .spec.replicas',
        'conflicts with "ctl" using apps/v1:',
        '- .spec.paused',
        '- .spec.template.spec.containers[name="x"].image',
      ].join('\n'),
    );
    assert.deepEqual(
      err.details?.causes?.map((c) => `${c.message} ${c.field}`),
      ['conflict with "a" .spec.replicas', 'conflict with "ctl" using apps/v1 .spec.paused', 'conflict with "ctl" using apps/v1 .spec.template.spec.containers[name="x"].image'],
    );
  });

  test('a field dropped from the configuration goes unless another manager owns it', () => {
    let live = stored(main.apply(undefined, deployment({ replicas: 2, paused: true }, { labels: { a: '1', b: '2' } }), { manager: 'kubectl', force: false, now: T0 }));
    live = stored(main.apply(live, deployment({ paused: true }, { labels: { b: '2' } }), { manager: 'other', force: false, now: T1 }));
    const next = main.apply(live, deployment({}, {}), { manager: 'kubectl', force: false, now: T2 });
    assert.equal((next.spec as { replicas?: number }).replicas, undefined, 'replicas was only kubectl’s');
    assert.equal((next.spec as { paused?: boolean }).paused, true, 'paused is also other’s');
    assert.deepEqual(next.metadata.labels, { b: '2' });
    assert.equal(next.metadata.name, 'web', 'metadata the server set stays');
    assert.equal(next.metadata.uid, 'u-1');
    // What kubectl applied now: an empty spec (owning .spec itself).
    assert.deepEqual(entry(next, 'kubectl')?.fieldsV1, { 'f:spec': {} });
  });

  test('a list item dropped by its only applier goes; items of other managers stay, in place', () => {
    let live = stored(main.apply(undefined, deployment(containers({ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' })), { manager: 'one', force: false, now: T0 }));
    live = stored(main.apply(live, deployment(containers({ name: 'c', image: 'c:1' })), { manager: 'two', force: false, now: T1 }));
    assert.deepEqual((live.spec as { template: { spec: { containers: Array<{ name: string }> } } }).template.spec.containers.map((c) => c.name), ['a', 'b', 'c']);
    const next = main.apply(live, deployment(containers({ name: 'b', image: 'b:2' })), { manager: 'one', force: false, now: T2 });
    assert.deepEqual((next.spec as { template: { spec: { containers: unknown[] } } }).template.spec.containers, [
      { name: 'b', image: 'b:2' },
      { name: 'c', image: 'c:1' },
    ]);
  });

  test('an object without managedFields: updates keep it so; the first apply records its fields for before-first-apply', () => {
    const live = stored(deployment({ replicas: 1, paused: false }));
    assert.equal(main.update(live, { ...live, spec: { replicas: 4, paused: false } }, 'ctl', T1), undefined);
    const err = conflictOf(() => main.apply(live, deployment({ replicas: 2 }), { manager: 'kubectl', force: false, now: T1 }));
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "before-first-apply" using apps/v1: .spec.replicas');
    const same = main.apply(live, deployment({ replicas: 1 }), { manager: 'kubectl', force: false, now: T1 });
    assert.deepEqual(
      same.metadata.managedFields?.map((e) => [e.manager, e.operation]),
      [
        ['kubectl', 'Apply'],
        ['before-first-apply', 'Update'],
      ],
    );
    assert.deepEqual(entry(same, 'before-first-apply', 'Update')?.fieldsV1, { 'f:spec': { 'f:paused': {}, 'f:replicas': {} } });
  });

  test('kubectl taking over from client-side apply: fields whose values match last-applied do not conflict', () => {
    const lastApplied = JSON.stringify(deployment({ replicas: 2, paused: false }));
    const created = stored(deployment({ replicas: 2, paused: false }, { annotations: { [LAST_APPLIED_ANNOTATION]: lastApplied } }));
    const live = { ...created, metadata: { ...created.metadata, managedFields: main.update(undefined, created, 'kubectl-client-side-apply', T0)! } };
    // Someone else changed paused afterwards; last-applied no longer matches it.
    const changed = { ...live, spec: { replicas: 2, paused: true } };
    const live2 = { ...changed, metadata: { ...changed.metadata, managedFields: main.update(live, changed, 'editor', T1)! } };

    const config = deployment({ replicas: 3 });
    const next = main.apply(live2, config, { manager: 'kubectl', force: false, now: T2 });
    assert.equal((next.spec as { replicas: number }).replicas, 3);
    assert.equal(next.metadata.annotations?.[LAST_APPLIED_ANNOTATION], `${JSON.stringify(config)}\n`, 'the annotation follows the applied configuration');
    assert.deepEqual(entry(next, 'kubectl')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });

    // A field another manager changed since is still a conflict.
    const err = conflictOf(() => main.apply(live2, deployment({ replicas: 3, paused: false }), { manager: 'kubectl', force: false, now: T2 }));
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "editor" using apps/v1: .spec.paused');
    // Other managers get no such favour.
    assert.throws(() => main.apply(live2, config, { manager: 'someone', force: false, now: T2 }), /conflict with "kubectl-client-side-apply" using apps\/v1: \.spec\.replicas/);
  });

  test('the configuration must be of the kind and version served, without managedFields', () => {
    assert.throws(() => main.apply(undefined, { apiVersion: 'apps/v2', kind: 'Deployment', metadata: { name: 'web' } }, { manager: 'm', force: false, now: T0 }), /invalid object type: apps\/v2, Kind=Deployment/);
    assert.throws(() => main.apply(undefined, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' } }, { manager: 'm', force: false, now: T0 }), /invalid object type: \/v1, Kind=Pod/);
    assert.throws(() => main.apply(undefined, deployment({}, { managedFields: [] }), { manager: 'm', force: false, now: T0 }), /metadata.managedFields must be nil/);
  });

  test('status is not owned through the main resource; the status subresource owns only status', () => {
    const obj = main.apply(undefined, { ...deployment({ replicas: 1 }), status: { replicas: 9 } }, { manager: 'm', force: false, now: T0 });
    assert.deepEqual(entry(obj, 'm')?.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
    const live = stored(obj);
    const next = status.apply(live, { ...deployment({ replicas: 7 }), status: { replicas: 3 } }, { manager: 'ctl', force: false, now: T1 });
    const e = next.metadata.managedFields?.find((x) => x.manager === 'ctl');
    assert.deepEqual(e, { manager: 'ctl', operation: 'Apply', apiVersion: 'apps/v1', time: T1, fieldsType: 'FieldsV1', fieldsV1: { 'f:status': { 'f:replicas': {} } }, subresource: 'status' });
  });
});

describe('FieldManager.update', () => {
  test('a create owns what it set; an update moves changed fields to its manager', () => {
    const created = stored(deployment({ replicas: 1, ...containers({ name: 'a', image: 'x' }) }, { labels: { app: 'web' } }));
    const fields = main.update(undefined, created, 'kubectl-create', T0)!;
    assert.equal(fields.length, 1);
    assert.deepEqual(fields[0], {
      manager: 'kubectl-create',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: T0,
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { 'f:replicas': {}, 'f:template': { '.': {}, 'f:spec': { '.': {}, 'f:containers': { '.': {}, 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } },
      },
    });
    const live = { ...created, metadata: { ...created.metadata, managedFields: fields } };
    const next = { ...live, spec: { replicas: 5, ...containers({ name: 'a', image: 'x' }) } };
    const after = main.update(live, next, 'scaler', T1)!;
    assert.deepEqual(
      after.map((e) => [e.manager, e.time, e.fieldsV1]),
      [
        ['kubectl-create', T0, { 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } }, 'f:spec': { 'f:template': { '.': {}, 'f:spec': { '.': {}, 'f:containers': { '.': {}, 'k:{"name":"a"}': { '.': {}, 'f:image': {}, 'f:name': {} } } } } } }],
        ['scaler', T1, { 'f:spec': { 'f:replicas': {} } }],
      ],
    );
    // A write that changes nothing records nothing new.
    const again = { ...next, metadata: { ...next.metadata, managedFields: after } };
    assert.deepEqual(main.update(again, { ...again }, 'scaler', T2), after);
  });

  test('status writes are recorded with their subresource', () => {
    const live = stored(main.apply(undefined, deployment({ replicas: 1 }), { manager: 'kubectl', force: false, now: T0 }));
    const fields = status.update(live, { ...live, status: { replicas: 1 } }, 'controller', T1)!;
    assert.deepEqual(fields.find((e) => e.manager === 'controller'), {
      manager: 'controller',
      operation: 'Update',
      apiVersion: 'apps/v1',
      time: T1,
      fieldsType: 'FieldsV1',
      // The object had no status yet: the writer owns the status struct too.
      fieldsV1: { 'f:status': { '.': {}, 'f:replicas': {} } },
      subresource: 'status',
    });
  });

  test('managedFields sent by the client replace the recorded ones; [] and [{}] clear them', () => {
    const live = stored(main.apply(undefined, deployment({ replicas: 1 }), { manager: 'kubectl', force: false, now: T0 }));
    assert.equal(main.update(live, { ...live, metadata: { ...live.metadata, managedFields: [{}] } }, 'm', T1), undefined);
    assert.equal(main.update(live, { ...live, metadata: { ...live.metadata, managedFields: [] } }, 'm', T1), undefined);
    const mine: ManagedFieldsEntry[] = [{ manager: 'mine', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }];
    assert.deepEqual(main.update(live, { ...live, metadata: { ...live.metadata, managedFields: mine } }, 'm', T1), mine);
    // Entries that cannot be decoded are ignored: the recorded ones stay.
    const bad = [{ manager: 'x', operation: 'Sideways', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' }] as unknown as ManagedFieldsEntry[];
    assert.deepEqual(main.update(live, { ...live, metadata: { ...live.metadata, managedFields: bad } }, 'm', T1), live.metadata.managedFields);
    // A subresource never takes managedFields from its body.
    assert.deepEqual(status.update(live, { ...live, metadata: { ...live.metadata, managedFields: [{}] } }, 'm', T1), live.metadata.managedFields);
  });

  test('more than ten updaters: the oldest merge into ancient-changes', () => {
    let live = stored(main.apply(undefined, deployment({ replicas: 0 }), { manager: 'kubectl', force: false, now: T0 }));
    for (let i = 0; i < 12; i++) {
      const next = { ...live, metadata: { ...live.metadata, labels: { ...live.metadata.labels, [`l${i}`]: 'x' } } };
      live = { ...next, metadata: { ...next.metadata, managedFields: main.update(live, next, `m${String(i).padStart(2, '0')}`, `2026-01-01T00:00:${String(10 + i)}Z`)! } };
    }
    const updaters = live.metadata.managedFields!.filter((e) => e.operation === 'Update');
    assert.equal(updaters.length, 10);
    const ancient = updaters.find((e) => e.manager === 'ancient-changes');
    assert.deepEqual(ancient?.fieldsV1, { 'f:metadata': { 'f:labels': { '.': {}, 'f:l0': {}, 'f:l1': {}, 'f:l2': {} } } });
    assert.equal(!updaters.some((e) => ['m00', 'm01', 'm02'].includes(e.manager!)), true);
  });
});

describe('custom resources: structure only from x-kubernetes-list-type, list-map-keys, map-type', () => {
  const schema = {
    type: 'object' as const,
    properties: {
      apiVersion: { type: 'string' as const },
      kind: { type: 'string' as const },
      metadata: { type: 'object' as const },
      spec: {
        type: 'object' as const,
        properties: {
          items: {
            type: 'array' as const,
            'x-kubernetes-list-type': 'map' as const,
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object' as const, properties: { name: { type: 'string' as const }, size: { type: 'integer' as const } } },
          },
          tags: { type: 'array' as const, items: { type: 'string' as const } },
          selector: { type: 'object' as const, additionalProperties: { type: 'string' as const }, 'x-kubernetes-map-type': 'atomic' as const },
          config: { type: 'object' as const, 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
  const crd = new FieldManager({ schema, apiVersion: 'example.com/v1', kind: 'Widget' });
  const widget = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, spec });

  test('keyed items merge between managers; lists without a list type and atomic maps are owned whole', () => {
    let live = stored(crd.apply(undefined, widget({ items: [{ name: 'a', size: 1 }], tags: ['x'], selector: { k: 'v' }, config: { deep: { one: 1 } } }), { manager: 'first', force: false, now: T0 }));
    live = stored(crd.apply(live, widget({ items: [{ name: 'b', size: 2 }], config: { deep: { two: 2 } } }), { manager: 'second', force: false, now: T1 }));
    assert.deepEqual(live.spec, { items: [{ name: 'a', size: 1 }, { name: 'b', size: 2 }], tags: ['x'], selector: { k: 'v' }, config: { deep: { one: 1, two: 2 } } });
    assert.deepEqual(entry(live, 'second')?.fieldsV1, {
      // Keys of an untyped map are members themselves (they are not declared fields).
      'f:spec': { 'f:items': { 'k:{"name":"b"}': { '.': {}, 'f:name': {}, 'f:size': {} } }, 'f:config': { 'f:deep': { '.': {}, 'f:two': {} } } },
    });
    assert.throws(() => crd.apply(live, widget({ tags: ['y'] }), { manager: 'second', force: false, now: T2 }), /conflict with "first": \.spec\.tags/);
    assert.throws(() => crd.apply(live, widget({ selector: { k: 'v', l: 'w' } }), { manager: 'second', force: false, now: T2 }), /conflict with "first": \.spec\.selector/);
    // Dropping its item and nested key removes only what "first" owned alone.
    const next = crd.apply(live, widget({ tags: ['x'], selector: { k: 'v' } }), { manager: 'first', force: false, now: T2 });
    assert.deepEqual(next.spec, { items: [{ name: 'b', size: 2 }], tags: ['x'], selector: { k: 'v' }, config: { deep: { two: 2 } } });
  });
});

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.equal(err instanceof ApiError, true, String(err));
    return err as ApiError;
  }
  assert.fail('expected an error');
}

const withFields = (obj: KubeObject, managedFields: ManagedFieldsEntry[] | undefined): KubeObject => ({ ...obj, metadata: { ...obj.metadata, managedFields } });

describe('FieldManager.apply: the last-applied annotation', () => {
  const limit = 256 * 1024;
  /** A live object last applied client-side, with a large annotation `big` no configuration sets. */
  const live = (big: string): KubeObject => deployment({}, { annotations: { big, [LAST_APPLIED_ANNOTATION]: '{}' } });
  const config = deployment({ replicas: 2 });
  const annotationsAfter = (big: string) => main.apply(live(big), config, { manager: 'kubectl', force: false, now: T1 }).metadata.annotations;

  test('is kept while all annotations fit in 256 KiB (counted in UTF-8 bytes), dropped when they do not', () => {
    const lastApplied = annotationsAfter('')?.[LAST_APPLIED_ANNOTATION];
    assert.equal(lastApplied, `${JSON.stringify(config)}\n`);
    // Everything but the value of `big`: its key, the last-applied annotation's key and value.
    const rest = Buffer.byteLength('big') + Buffer.byteLength(LAST_APPLIED_ANNOTATION) + Buffer.byteLength(lastApplied!);
    // 1 to 4 bytes each, at the edges of UTF-8's ranges (U+10000 and U+10FFFF are surrogate pairs: 4 bytes, not 6).
    const multibyte = '\u007f\u0080é\u07ff\u0800€\ud7ff\ue000\uffff\u{10000}😀\u{10ffff}';
    const fill = (bytes: number) => 'x'.repeat(bytes - Buffer.byteLength(multibyte)) + multibyte;
    const fits = fill(limit - rest);
    assert.equal(annotationsAfter(fits)?.[LAST_APPLIED_ANNOTATION], lastApplied);
    const over = fill(limit - rest + 1);
    assert.deepEqual(annotationsAfter(over), { big: over });
  });

  test('is not added by server-side apply, nor kept up to date for managers other than kubectl', () => {
    const created = main.apply(undefined, config, { manager: 'kubectl', force: false, now: T0 });
    assert.equal(created.metadata.annotations, undefined);
    const other = main.apply(live(''), config, { manager: 'other', force: false, now: T1 });
    assert.deepEqual(other.metadata.annotations, { big: '', [LAST_APPLIED_ANNOTATION]: '{}' });
  });

  test("is kubectl's annotation", () => {
    assert.equal(LAST_APPLIED_ANNOTATION, 'kubectl.kubernetes.io/last-applied-configuration');
  });

  test('holds a configuration without metadata as it is', () => {
    const bare = { apiVersion: 'apps/v1', kind: 'Deployment', spec: { replicas: 2 } } as unknown as KubeObject;
    const next = main.apply(live(''), bare, { manager: 'kubectl', force: false, now: T1 });
    assert.equal(next.metadata.annotations?.[LAST_APPLIED_ANNOTATION], '{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":2}}\n');
  });

  test('holds the configuration without the annotation itself', () => {
    const withAnnotation = deployment({ replicas: 2 }, { annotations: { [LAST_APPLIED_ANNOTATION]: 'stale', team: 'a' } });
    const next = main.apply(live(''), withAnnotation, { manager: 'kubectl', force: true, now: T1 });
    assert.equal(next.metadata.annotations?.[LAST_APPLIED_ANNOTATION], `${JSON.stringify({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { annotations: { team: 'a' }, name: 'web', namespace: 'default' }, spec: { replicas: 2 } })}\n`);
  });
});

describe('FieldManager.apply: requests it refuses', () => {
  test('a configuration without apiVersion or kind names neither', () => {
    const err = errorOf(() => main.apply(undefined, { metadata: { name: 'web' } } as unknown as KubeObject, { manager: 'm', force: false, now: T0 }));
    assert.equal(err.reason, 'BadRequest');
    assert.equal(err.message, 'invalid object type: /, Kind=');
  });

  test('a configuration of the served version but another kind', () => {
    assert.equal(errorOf(() => main.apply(undefined, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web' } }, { manager: 'm', force: false, now: T0 })).message, 'invalid object type: apps/v1, Kind=ReplicaSet');
  });

  test('managedFields: null in a configuration is no managedFields', () => {
    const obj = main.apply(undefined, deployment({ replicas: 1 }, { managedFields: null }), { manager: 'm', force: false, now: T0 });
    assert.deepEqual(
      obj.metadata.managedFields?.map((e) => [e.manager, e.fieldsV1]),
      [['m', { 'f:spec': { 'f:replicas': {} } }]],
    );
  });

  test('stored managedFields that cannot be decoded are an internal error', () => {
    const live = withFields(deployment({ replicas: 1 }), [{ manager: 'x', operation: 'Sideways', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: {} } as unknown as ManagedFieldsEntry]);
    const err = errorOf(() => main.apply(live, deployment({ replicas: 2 }), { manager: 'm', force: false, now: T0 }));
    assert.equal(err.reason, 'InternalError');
    assert.equal(err.message, 'Internal error occurred: failed to decode managed fields: operation must be `Apply` or `Update`');
    assert.equal((err.cause as Error).cause instanceof ManagedFieldsError, true, 'the decoding error is the cause');
  });

  test('a configuration whose list items cannot be identified is a bad request naming the object', () => {
    const bad = deployment({ template: { spec: { containers: [{ image: 'x' }] } } });
    const err = errorOf(() => main.apply(undefined, bad, { manager: 'm', force: false, now: T0 }));
    assert.equal(err.reason, 'BadRequest');
    assert.equal(
      err.message,
      'failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .spec.template.spec.containers: associative list with keys has an element that omits all key fields ["name"] (and doesn\'t have default values for any key fields)',
    );
    const clusterScoped = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'a' }, { name: 'a' }] } } } };
    assert.match(errorOf(() => main.apply(undefined, clusterScoped, { manager: 'm', force: false, now: T0 })).message, /^failed to create typed patch object \(\/web; apps\/v1, Kind=Deployment\): .*duplicate entries/);
  });
});

describe('FieldManager.apply: entries and their times', () => {
  test('an apply that changes nothing keeps the time of the applier\'s entry; one that changes something records its time', () => {
    const live = main.apply(undefined, deployment({ replicas: 1 }), { manager: 'm', force: false, now: T0 });
    const again = main.apply(live, deployment({ replicas: 1 }), { manager: 'm', force: false, now: T1 });
    assert.deepEqual(again.metadata.managedFields, live.metadata.managedFields);
    const changed = main.apply(again, deployment({ replicas: 2 }), { manager: 'm', force: false, now: T2 });
    assert.deepEqual(changed.metadata.managedFields?.map((e) => e.time), [T2]);
  });

  test('an apply of server-set metadata only leaves its manager without an entry', () => {
    const obj = main.apply(undefined, deployment({}, { uid: 'u', resourceVersion: '9', generation: 3, creationTimestamp: T0, selfLink: '/x', clusterName: 'c' }), { manager: 'm', force: false, now: T0 });
    // The empty spec it applies is its only field.
    assert.deepEqual(obj.metadata.managedFields?.map((e) => [e.manager, e.fieldsV1]), [['m', { 'f:spec': {} }]]);
    const bare = main.apply(undefined, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'default', uid: 'u', selfLink: '/x', clusterName: 'c', generation: 1 } }, { manager: 'm', force: false, now: T0 });
    assert.equal(bare.metadata.managedFields, undefined);
    assert.equal('managedFields' in bare.metadata, false);
    assert.equal('annotations' in bare.metadata, false, 'no annotations appear');
  });
});

describe('FieldManager.update: more', () => {
  test('a create owns no server-set metadata; a nameless manager is "unknown"', () => {
    const created = deployment({ replicas: 1 }, { uid: 'u', resourceVersion: '1', generation: 1, creationTimestamp: T0, selfLink: '/apis/apps/v1/x', clusterName: 'c' });
    assert.deepEqual(main.update(undefined, created, '', T0), [{ manager: 'unknown', operation: 'Update', apiVersion: 'apps/v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } }]);
    const live = withFields(created, main.update(undefined, created, 'a', T0));
    const next = { ...live, spec: { replicas: 2 }, metadata: { ...live.metadata, generation: 2, resourceVersion: '2' } };
    assert.deepEqual(
      main.update(live, next, '', T1)?.map((e) => [e.manager, e.fieldsV1]),
      [['unknown', { 'f:spec': { 'f:replicas': {} } }]],
    );
  });

  test('a create that sets nothing a manager can own records no entry', () => {
    assert.equal(main.update(undefined, deployment({}, { uid: 'u' }), 'a', T0), undefined);
    assert.equal(main.update(undefined, { ...deployment({}), status: { replicas: 1 } }, 'a', T0), undefined, 'status is not owned through the main resource');
  });

  test('an update that changes nothing returns the stored entries themselves', () => {
    const created = deployment({ replicas: 1 });
    const live = withFields(created, main.update(undefined, created, 'a', T0));
    assert.equal(main.update(live, { ...live }, 'b', T1), live.metadata.managedFields);
  });

  test('an object the schema cannot type keeps its recorded entries', () => {
    const created = deployment({ replicas: 1 });
    const live = withFields(created, main.update(undefined, created, 'a', T0));
    const bad = { ...live, spec: { replicas: 2, template: { spec: { containers: [{ image: 'x' }] } } } };
    assert.equal(main.update(live, bad, 'b', T1), live.metadata.managedFields);
    assert.equal(main.update(undefined, bad, 'b', T1), undefined);
  });

  test('managedFields sent equal to the stored ones are the stored ones', () => {
    const created = deployment({ replicas: 1 });
    const live = withFields(created, main.update(undefined, created, 'a', T0));
    const next = { ...live, spec: { replicas: 2 }, metadata: { ...live.metadata, managedFields: structuredClone(live.metadata.managedFields) } };
    assert.deepEqual(main.update(live, next, 'b', T1)?.map((e) => [e.manager, e.fieldsV1]), [['b', { 'f:spec': { 'f:replicas': {} } }]]);
    const unchanged = { ...live, metadata: { ...live.metadata, managedFields: structuredClone(live.metadata.managedFields) } };
    assert.equal(main.update(live, unchanged, 'b', T1), live.metadata.managedFields, 'nothing changed: the stored entries themselves');
  });
});

describe('FieldManager: kinds without spec or status', () => {
  const schema = { type: 'object' as const, properties: { apiVersion: { type: 'string' as const }, kind: { type: 'string' as const }, metadata: { type: 'object' as const, properties: { name: { type: 'string' as const } } }, data: { type: 'object' as const, additionalProperties: { type: 'string' as const } } } };
  const cm = new FieldManager({ schema, apiVersion: 'v1', kind: 'ConfigMap' });

  test('a create owns the top-level maps it sets, as members', () => {
    const created: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
    assert.deepEqual(cm.update(undefined, created, 'a', T0)?.[0]?.fieldsV1, { 'f:data': { '.': {}, 'f:a': {} } });
    const spec: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, spec: { x: 1 } };
    assert.deepEqual(cm.update(undefined, spec, 'a', T0)?.[0]?.fieldsV1, { 'f:spec': { '.': {}, 'f:x': {} } });
  });
});

describe('FieldManager: more of update and apply', () => {
  const full = new FieldManager({ schema: deploymentSchema, apiVersion: 'apps/v1', kind: 'Deployment' });

  test('a create through an endpoint that owns everything owns spec and status fields, not the structs an empty object has', () => {
    const created = { ...deployment({ replicas: 1 }), status: { replicas: 1 } };
    assert.deepEqual(full.update(undefined, created, 'a', T0)?.[0]?.fieldsV1, { 'f:spec': { 'f:replicas': {} }, 'f:status': { 'f:replicas': {} } });
  });

  test('a create that brings managedFields is compared with an empty object of the kind', () => {
    const mine: ManagedFieldsEntry[] = [{ manager: 'mine', operation: 'Apply', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:paused': {} } } }];
    const fields = main.update(undefined, deployment({ replicas: 1 }, { managedFields: mine }), 'm', T0);
    assert.deepEqual(
      fields?.map((e) => [e.manager, e.operation, e.fieldsV1]),
      [
        ['mine', 'Apply', { 'f:spec': { 'f:paused': {} } }],
        ['m', 'Update', { 'f:spec': { 'f:replicas': {} } }],
      ],
    );
  });

  test('stored managedFields that cannot be decoded are dropped by an update, as if there were none', () => {
    const live = withFields(deployment({ replicas: 1 }), [{ manager: 'x', operation: 'Sideways', apiVersion: 'apps/v1', fieldsType: 'FieldsV1' } as unknown as ManagedFieldsEntry]);
    assert.equal(main.update(live, { ...deployment({ replicas: 2 }) }, 'm', T1), undefined);
  });

  test('an updater writing again owns what it wrote both times, at the time of the last write', () => {
    const created = deployment({ replicas: 1 });
    let live = withFields(created, main.update(undefined, created, 'a', T0));
    const first = { ...live, spec: { replicas: 2 } };
    live = withFields(first, main.update(live, first, 'b', T1));
    const second = { ...live, spec: { replicas: 2, paused: true } };
    assert.deepEqual(
      main.update(live, second, 'b', T2)?.map((e) => [e.manager, e.time, e.fieldsV1]),
      [['b', T2, { 'f:spec': { 'f:paused': {}, 'f:replicas': {} } }]],
    );
  });

  test('an update of server-set metadata, apiVersion or kind only records no new owner', () => {
    const created = deployment({ replicas: 1 });
    const live = withFields(created, main.update(undefined, created, 'a', T0));
    const bumped = { ...live, metadata: { ...live.metadata, generation: 2, resourceVersion: '7', uid: 'u-2' } };
    assert.deepEqual(main.update(live, bumped, 'b', T1), live.metadata.managedFields);
    for (const converted of [{ ...live, apiVersion: 'apps/v1beta1' }, { ...live, kind: 'Other' }, { ...live, apiVersion: 'apps/v1beta1', kind: 'Other' }]) {
      assert.deepEqual(main.update(live, converted, 'b', T1), live.metadata.managedFields);
    }
  });

  test('an entry that owns nothing is dropped by the next write, even one that changes nothing', () => {
    const created = deployment({ replicas: 1 });
    const owner: ManagedFieldsEntry = { manager: 'owner', operation: 'Update', apiVersion: 'apps/v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } } };
    const empty: ManagedFieldsEntry = { manager: 'empty', operation: 'Apply', apiVersion: 'apps/v1', time: T0, fieldsType: 'FieldsV1', fieldsV1: {} };
    const live = withFields(created, [owner]);
    assert.deepEqual(main.update(live, withFields(created, [owner, empty]), 'm', T1), [owner]);
  });

  test('a write through the status subresource owns no spec, even when spec is all it changed', () => {
    const created = deployment({ replicas: 1 });
    const live = withFields(created, main.update(undefined, created, 'a', T0));
    assert.deepEqual(status.update(live, { ...live, spec: { replicas: 5 } }, 'ctl', T1)?.map((e) => e.manager), ['a']);
  });

  test('a configuration without metadata is named "/" in messages', () => {
    const bad = { apiVersion: 'apps/v1', kind: 'Deployment', spec: { template: { spec: { containers: [{ image: 'x' }] } } } } as unknown as KubeObject;
    assert.match(errorOf(() => main.apply(undefined, bad, { manager: 'm', force: false, now: T0 })).message, /^failed to create typed patch object \(\/; apps\/v1, Kind=Deployment\): /);
  });
});

describe('FieldManager.apply: kubectl and a last-applied annotation it cannot use', () => {
  /** Created client-side with replicas 2 (recorded for "creator"), the annotation as given. */
  const live = (annotation: string): KubeObject => {
    const created = deployment({ replicas: 2 }, { annotations: { [LAST_APPLIED_ANNOTATION]: annotation } });
    return withFields(created, main.update(undefined, created, 'creator', T0));
  };
  const conflicts = (annotation: string) => errorOf(() => main.apply(live(annotation), deployment({ replicas: 3 }), { manager: 'kubectl', force: false, now: T1 })).message;
  const expected = 'Apply failed with 1 conflict: conflict with "creator" using apps/v1: .spec.replicas';

  test('one that matches takes the field without conflict (the cases below differ from it only in the annotation)', () => {
    const next = main.apply(live(JSON.stringify(deployment({ replicas: 2 }))), deployment({ replicas: 3 }), { manager: 'kubectl', force: false, now: T1 });
    assert.equal((next.spec as { replicas: number }).replicas, 3);
  });

  test('empty, not JSON, not an object, of another version or not typable: the conflict stands', () => {
    assert.equal(conflicts('not json'), expected);
    assert.equal(conflicts('null'), expected);
    assert.equal(conflicts('"text"'), expected);
    assert.equal(conflicts(JSON.stringify({ ...deployment({ replicas: 2 }), apiVersion: 'apps/v1beta1' })), expected);
    assert.equal(conflicts(JSON.stringify(deployment({ replicas: 2, template: { spec: { containers: [{ image: 'x' }] } } }))), expected);
  });

  test('an empty annotation is left as it is', () => {
    const created = deployment({}, { annotations: { [LAST_APPLIED_ANNOTATION]: '' } });
    const next = main.apply(created, deployment({ replicas: 3 }), { manager: 'kubectl', force: false, now: T1 });
    assert.deepEqual(next.metadata.annotations, { [LAST_APPLIED_ANNOTATION]: '' });
  });
});
