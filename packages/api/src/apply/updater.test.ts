import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setOf, type FieldSet } from './fieldset.js';
import type { VersionedSet } from './managed.js';
import { deploymentSchema } from './testdata.test-support.js';
import { typeOf } from './types.js';
import { recordApply, recordUpdate, type FieldFilter, type UpdaterOptions } from './updater.js';

const options: UpdaterOptions = { type: typeOf(deploymentSchema) };
const spec = (...fields: string[]): string[][] => fields.map((f) => ['f:spec', `f:${f}`]);
const owned = (set: FieldSet, applied: boolean, apiVersion = 'apps/v1'): VersionedSet => ({ set, apiVersion, applied });
/** The field set of each manager, by name. */
const sets = (managers: ReadonlyMap<string, VersionedSet>) => Object.fromEntries([...managers].map(([m, vs]) => [m, vs.set]));

describe('recordUpdate (Updater.Update)', () => {
  test('the updater keeps what it owned and gains what it added or changed, as an Update entry of its version', () => {
    const managers = new Map([['a', owned(setOf(...spec('replicas')), true, 'apps/v1beta1')]]);
    const { managers: out } = recordUpdate(options, { spec: { replicas: 1 } }, { spec: { replicas: 1, paused: true } }, 'apps/v1', managers, 'a');
    assert.deepEqual(sets(out), { a: setOf(...spec('paused', 'replicas')) });
    assert.deepEqual(out.get('a'), { set: setOf(...spec('paused', 'replicas')), apiVersion: 'apps/v1', applied: false });
    assert.deepEqual(sets(managers), { a: setOf(...spec('replicas')) }, 'the input is untouched');
  });

  test('an updater left owning nothing has no entry', () => {
    const managers = new Map([['a', owned(setOf(...spec('replicas', 'paused')), true)]]);
    const { managers: out } = recordUpdate(options, { spec: { replicas: 1, paused: true } }, { spec: { paused: true } }, 'apps/v1', managers, 'b');
    assert.deepEqual(sets(out), { a: setOf(...spec('paused')) });
    assert.equal(out.has('b'), false);
  });

  test("the endpoint's filter applies to everything the updater ends up owning, not only to what it changed", () => {
    const noStatus: FieldFilter = (set) => {
      const { 'f:status': _, ...rest } = set;
      return rest;
    };
    const managers = new Map([['a', owned(setOf(['f:status', 'f:replicas'], ...spec('replicas')), false)]]);
    const before = { spec: { replicas: 1 }, status: { replicas: 1 } };
    const after = { spec: { replicas: 1, paused: true }, status: { replicas: 2 } };
    const { managers: out } = recordUpdate({ ...options, filter: noStatus }, before, after, 'apps/v1', managers, 'a');
    assert.deepEqual(sets(out), { a: setOf(...spec('paused', 'replicas')) });
  });
});

describe('recordApply (Updater.Apply)', () => {
  test("the applier's entry is an applied one, owning exactly its configuration", () => {
    const { object, managers } = recordApply(options, { spec: { replicas: 1 } }, { spec: { paused: true } }, 'apps/v1', new Map(), 'a', false);
    assert.deepEqual(object, { spec: { replicas: 1, paused: true } });
    assert.deepEqual(managers.get('a'), { set: setOf(...spec('paused')), apiVersion: 'apps/v1', applied: true });
  });

  test('a field applied as null is removed from the object and stays owned by its applier', () => {
    const managers = new Map([['a', owned(setOf(...spec('replicas', 'paused')), true)]]);
    const { object, managers: out } = recordApply(options, { spec: { replicas: 1, paused: true } }, { spec: { replicas: 1, paused: null } }, 'apps/v1', managers, 'a', false);
    assert.deepEqual(object, { spec: { replicas: 1 } });
    assert.deepEqual(sets(out), { a: setOf(...spec('paused', 'replicas')) });
  });

  test('the only manager applying nothing any more removes everything it applied', () => {
    const managers = new Map([['a', owned(setOf(...spec('replicas')), true)]]);
    const { object, managers: out } = recordApply(options, { spec: { replicas: 1 } }, {}, 'apps/v1', managers, 'a', false);
    assert.deepEqual(object, {});
    assert.equal(out.size, 0);
  });
});
