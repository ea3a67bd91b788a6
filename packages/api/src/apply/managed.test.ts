import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ManagedFieldsEntry } from '../meta/types.js';
import { ApplyConflicts, conflictMessage, printManager } from './conflict.js';
import { FieldPathError } from './elements.js';
import { setOf, type FieldSet } from './fieldset.js';
import {
  ANCIENT_CHANGES,
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  isResetManagedFields,
  ManagedFieldsError,
  managerIdentifier,
  parseManagerIdentifier,
  type Managed,
  type VersionedSet,
} from './managed.js';

const applier = (manager: string, subresource?: string) => managerIdentifier({ manager, operation: 'Apply', ...(subresource !== undefined ? { subresource } : {}) });
const updater = (manager: string, apiVersion = 'v1', subresource?: string) =>
  managerIdentifier({ manager, operation: 'Update', apiVersion, ...(subresource !== undefined ? { subresource } : {}) });
const owns = (...fields: string[]): FieldSet => setOf(...fields.map((f) => ['f:data', `f:${f}`]));

describe('manager identifiers', () => {
  test('are the JSON Kubernetes builds: apiVersion for updaters only, subresource when set', () => {
    assert.equal(applier('kubectl'), '{"manager":"kubectl","operation":"Apply"}');
    assert.equal(managerIdentifier({ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1' }), '{"manager":"kubectl","operation":"Apply"}');
    assert.equal(updater('ctl', 'apps/v1'), '{"manager":"ctl","operation":"Update","apiVersion":"apps/v1"}');
    assert.equal(managerIdentifier({ manager: 'ctl', operation: 'Update', apiVersion: '' }), '{"manager":"ctl","operation":"Update"}');
    assert.equal(managerIdentifier({ manager: 'ctl', operation: 'Update' }), '{"manager":"ctl","operation":"Update"}');
    assert.equal(updater('ctl', 'v1', 'status'), '{"manager":"ctl","operation":"Update","apiVersion":"v1","subresource":"status"}');
    assert.equal(managerIdentifier({ manager: 'ctl', operation: 'Apply', subresource: '' }), '{"manager":"ctl","operation":"Apply"}');
    assert.equal(applier('a<b&c>'), '{"manager":"a\\u003cb\\u0026c\\u003e","operation":"Apply"}');
  });

  test('parse back to their parts; any other string is the name of an updater', () => {
    assert.deepEqual(parseManagerIdentifier(updater('ctl', 'apps/v1', 'status')), { manager: 'ctl', operation: 'Update', apiVersion: 'apps/v1', subresource: 'status' });
    assert.deepEqual(parseManagerIdentifier(applier('kubectl')), { manager: 'kubectl', operation: 'Apply' });
    assert.deepEqual(parseManagerIdentifier('plain-name'), { manager: 'plain-name', operation: 'Update' });
    assert.deepEqual(parseManagerIdentifier('{"manager":"x","operation":"Patch"}'), { manager: '{"manager":"x","operation":"Patch"}', operation: 'Update' });
    assert.deepEqual(parseManagerIdentifier('{"manager":1,"operation":"Apply"}'), { manager: '{"manager":1,"operation":"Apply"}', operation: 'Update' });
    assert.deepEqual(parseManagerIdentifier('{"manager":"x","operation":"Apply","apiVersion":7,"subresource":false}'), { manager: 'x', operation: 'Apply' });
    // Asked again (the answer is remembered): the same parts.
    assert.deepEqual(parseManagerIdentifier('plain-name'), { manager: 'plain-name', operation: 'Update' });
  });
});

describe('decodeManagedFields', () => {
  const entry = (e: Partial<ManagedFieldsEntry> & Record<string, unknown> = {}): ManagedFieldsEntry =>
    ({ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } }, ...e }) as ManagedFieldsEntry;

  test('no managedFields: nobody owns anything', () => {
    assert.equal(decodeManagedFields(undefined).size, 0);
    assert.equal(decodeManagedFields(null).size, 0);
    assert.equal(decodeManagedFields([]).size, 0);
  });

  test('keys each entry by its identifier, with its set, version, operation and time', () => {
    const managed = decodeManagedFields([
      entry({ time: '2026-01-01T00:00:00Z' }),
      entry({ manager: 'k', operation: 'Apply', apiVersion: 'v2', fieldsV1: { 'f:data': { 'f:b': {} } } }),
      entry({ manager: 's', subresource: 'status', fieldsV1: undefined }),
      entry({ manager: 7 as unknown as string, time: 5 as unknown as string }),
    ]);
    assert.deepEqual([...managed.keys()], [updater('m'), applier('k'), updater('s', 'v1', 'status'), updater('')]);
    assert.deepEqual(managed.get(updater('m')), { set: { 'f:data': { 'f:a': {} } }, apiVersion: 'v1', applied: false, time: '2026-01-01T00:00:00Z' });
    assert.deepEqual(managed.get(applier('k')), { set: { 'f:data': { 'f:b': {} } }, apiVersion: 'v2', applied: true });
    assert.deepEqual(managed.get(updater('s', 'v1', 'status')), { set: {}, apiVersion: 'v1', applied: false });
    assert.deepEqual(managed.get(updater('')), { set: { 'f:data': { 'f:a': {} } }, apiVersion: 'v1', applied: false });
  });

  test("reads a client's fields into canonical form unless they are trusted", () => {
    const fieldsV1 = { 'f:spec': { 'k:{"protocol": "TCP", "port": 80}': {} } };
    const read = decodeManagedFields([entry({ fieldsV1 })]).get(updater('m'))!;
    assert.deepEqual(read.set, { 'f:spec': { 'k:{"port":80,"protocol":"TCP"}': {} } });
    assert.equal(decodeManagedFields([entry({ fieldsV1 })], true).get(updater('m'))!.set, fieldsV1);
    assert.deepEqual(decodeManagedFields([entry({ fieldsV1: null as unknown as Record<string, unknown> })]).get(updater('m'))!.set, {});
  });

  const errors: [string, unknown, string][] = [
    ['not a list', { 0: {} }, 'managedFields must be a list'],
    ['an entry that is not an object', [entry(), 'x'], 'managed fields entry 1 is not an object'],
    ['a null entry', [null], 'managed fields entry 0 is not an object'],
    ['a list entry', [[]], 'managed fields entry 0 is not an object'],
    ['no operation', [entry({ operation: undefined })], 'operation must be `Apply` or `Update`'],
    ['another operation', [entry({ operation: 'Patch' as 'Apply' })], 'operation must be `Apply` or `Update`'],
    ['no apiVersion', [entry({ apiVersion: undefined })], 'apiVersion must not be empty'],
    ['an empty apiVersion', [entry({ apiVersion: '' })], 'apiVersion must not be empty'],
    ['a numeric apiVersion', [entry({ apiVersion: 1 as unknown as string })], 'apiVersion must not be empty'],
    ['no fieldsType', [entry(), entry({ fieldsType: undefined })], 'missing fieldsType in managed fields entry 1'],
    ['another fieldsType', [entry({ fieldsType: 'FieldsV2' as 'FieldsV1' })], 'invalid fieldsType "FieldsV2" in managed fields entry 0'],
    [
      'malformed fields',
      [entry(), entry({ fieldsV1: { 'f:a': 1 } })],
      'error decoding versioned set from entry 1: fieldsV1: the value of "f:a" must be an object',
    ],
  ];
  test('says why malformed fields could not be read', () => {
    assert.throws(
      () => decodeManagedFields([entry({ fieldsV1: { 'i:x': {} } })]),
      (err: unknown) => err instanceof ManagedFieldsError && err.cause instanceof FieldPathError && err.cause.message === 'invalid index path element: "i:x"',
    );
  });

  test('a subresource or manager that is not a string is left out of the identifier', () => {
    const managed = decodeManagedFields([entry({ subresource: 5 as unknown as string, manager: { x: 1 } as unknown as string })]);
    assert.deepEqual([...managed.keys()], [updater('')]);
  });

  for (const [what, entries, message] of errors) {
    test(`refuses ${what}`, () => {
      assert.throws(() => decodeManagedFields(entries as ManagedFieldsEntry[]), (err: unknown) => err instanceof ManagedFieldsError && err.name === 'ManagedFieldsError' && err.message === message);
    });
  }
});

describe('isResetManagedFields', () => {
  const cases: [unknown, boolean][] = [
    [[], true],
    [[{}], true],
    [[{ manager: '', operation: null, time: undefined }], true],
    [[{ manager: 'x' }], false],
    [[{}, {}], false],
    [[null], false],
    [['x'], false],
    [[5], false],
    [undefined, false],
    [null, false],
    [{}, false],
  ];
  for (const [entries, want] of cases) {
    test(`${JSON.stringify(entries) ?? 'undefined'} → ${want}`, () => {
      assert.equal(isResetManagedFields(entries), want);
    });
  }
});

describe('encodeManagedFields', () => {
  const vs = (set: FieldSet, extra: Partial<VersionedSet> = {}): VersionedSet => ({ set, apiVersion: 'v1', applied: false, ...extra });

  test('nothing owned: no managedFields', () => {
    assert.equal(encodeManagedFields(new Map()), undefined);
  });

  test('writes each entry as Kubernetes does, in its field order', () => {
    const [only] = encodeManagedFields(new Map([[updater('ctl', 'v1', 'status'), vs(owns('a'), { time: '2026-01-01T00:00:00Z' })]]))!;
    assert.deepEqual(only, { manager: 'ctl', operation: 'Update', apiVersion: 'v1', time: '2026-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: owns('a'), subresource: 'status' });
    assert.deepEqual(Object.keys(only!), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource']);
    const [applied] = encodeManagedFields(new Map([[applier('k'), vs(owns('b'), { applied: true, apiVersion: 'v2' })]]))!;
    assert.deepEqual(applied, { manager: 'k', operation: 'Apply', apiVersion: 'v2', fieldsType: 'FieldsV1', fieldsV1: owns('b') });
  });

  test('sorts by operation, then time (in whole seconds), manager, apiVersion, subresource', () => {
    const t = (s: string) => `2026-01-01T00:00:${s}Z`;
    const managed: Managed = new Map([
      [updater('z', 'v1'), vs(owns('a'), { time: t('01') })],
      [updater('b', 'v2'), vs(owns('a'), { time: t('05.900'), apiVersion: 'v2' })],
      [updater('a', 'v1', 'status'), vs(owns('a'), { time: t('05.100') })],
      [updater('b', 'v1'), vs(owns('a'), { time: t('05') })],
      [updater('a', 'v1'), vs(owns('a'), { time: t('05') })],
      [updater('y', 'v1'), vs(owns('a'), { time: 'not a time' })],
      [updater('x', 'v1'), vs(owns('a'))],
      [applier('late'), vs(owns('a'), { applied: true, time: t('09') })],
      [applier('early'), vs(owns('a'), { applied: true, time: t('00') })],
    ]);
    const order = encodeManagedFields(managed)!.map((e) => `${e.operation} ${e.manager} ${e.apiVersion}${e.subresource !== undefined ? ` ${e.subresource}` : ''}`);
    assert.deepEqual(order, ['Apply early v1', 'Apply late v1', 'Update x v1', 'Update y v1', 'Update z v1', 'Update a v1', 'Update a v1 status', 'Update b v1', 'Update b v2']);
  });

  test('an entry without a subresource comes before one with any subresource', () => {
    const time = '2026-01-01T00:00:00Z';
    for (const subresource of ['A', 'status', '~']) {
      const withSubresource = [updater('m', 'v1', subresource), vs(owns('a'), { time })] as const;
      const without = [updater('m', 'v1'), vs(owns('b'), { time })] as const;
      for (const managed of [new Map([withSubresource, without]), new Map([without, withSubresource])]) {
        assert.deepEqual(
          encodeManagedFields(managed)!.map((e) => e.subresource),
          [undefined, subresource],
          subresource,
        );
      }
    }
  });
});

describe('capUpdateManagers', () => {
  const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`;
  const up = (set: FieldSet, time: number, apiVersion = 'v1'): VersionedSet => ({ set, apiVersion, applied: false, time: at(time) });

  test('at most `max` updaters: unchanged', () => {
    const managed: Managed = new Map([
      [updater('a'), up(owns('a'), 1)],
      [updater('b'), up(owns('b'), 2)],
      [applier('k'), { set: owns('k'), apiVersion: 'v1', applied: true }],
    ]);
    assert.equal(capUpdateManagers(managed, 2), managed);
  });

  test('the oldest updaters of a version merge into ancient-changes, which takes the time of the newest merged', () => {
    const managed: Managed = new Map([
      [updater('new'), up(owns('n'), 9)],
      [updater('old'), up(owns('o'), 1)],
      [updater('mid'), up(owns('m'), 5)],
      [updater('older'), up(owns('p'), 2)],
      [applier('k'), { set: owns('k'), apiVersion: 'v1', applied: true }],
    ]);
    const capped = capUpdateManagers(managed, 2);
    assert.deepEqual(new Set(capped.keys()), new Set([updater('new'), updater(ANCIENT_CHANGES), applier('k')]));
    assert.deepEqual(capped.get(updater(ANCIENT_CHANGES)), { set: owns('o', 'p', 'm'), apiVersion: 'v1', applied: false, time: at(5) });
    assert.deepEqual(capped.get(updater('new')), managed.get(updater('new')));
    assert.deepEqual(capped.get(applier('k')), managed.get(applier('k')));
    assert.equal(managed.size, 5, 'the input is not modified');
    assert.equal(managed.has(updater('old')), true);
  });

  test('updaters of different versions go to one ancient-changes entry per version', () => {
    const managed: Managed = new Map([
      [updater('a'), up(owns('a'), 1)],
      [updater('b'), up(owns('b'), 2)],
      [updater('x', 'v2'), up(owns('x'), 3, 'v2')],
      [updater('y', 'v2'), up(owns('y'), 4, 'v2')],
      [updater('z'), up(owns('z'), 8)],
    ]);
    const capped = capUpdateManagers(managed, 2);
    assert.deepEqual(new Set(capped.keys()), new Set([updater(ANCIENT_CHANGES), updater(ANCIENT_CHANGES, 'v2')]));
    assert.deepEqual(capped.get(updater(ANCIENT_CHANGES)), { set: owns('a', 'b', 'z'), apiVersion: 'v1', applied: false, time: at(8) });
    assert.deepEqual(capped.get(updater(ANCIENT_CHANGES, 'v2')), { set: owns('x', 'y'), apiVersion: 'v2', applied: false, time: at(4) });
  });

  test('updaters of the same time go oldest first by identifier; the bucket takes the time of the last one merged, or none', () => {
    const managed: Managed = new Map([
      [updater('c'), up(owns('c'), 1)],
      [updater('b'), { set: owns('b'), apiVersion: 'v1', applied: false }],
      [updater('a'), up(owns('a'), 1)],
      [updater('d'), up(owns('d'), 2)],
    ]);
    // b has no time (0), so it is the oldest; then a, then c.
    const capped = capUpdateManagers(managed, 3);
    assert.deepEqual(new Set(capped.keys()), new Set([updater(ANCIENT_CHANGES), updater('c'), updater('d')]));
    assert.deepEqual(capped.get(updater(ANCIENT_CHANGES)), { set: owns('a', 'b'), apiVersion: 'v1', applied: false, time: at(1) });
    const untimed = capUpdateManagers(
      new Map([
        [updater('a'), up(owns('a'), 1)],
        [updater('b'), { set: owns('b'), apiVersion: 'v1', applied: false }],
        [updater('c'), up(owns('c'), 3)],
      ]),
      2,
    );
    // Oldest first: b (no time), then a; the bucket takes a's time.
    assert.deepEqual(untimed.get(updater(ANCIENT_CHANGES)), { set: owns('a', 'b'), apiVersion: 'v1', applied: false, time: at(1) });
    const bothUntimed = capUpdateManagers(
      new Map([
        [updater('f'), { set: owns('f'), apiVersion: 'v1', applied: false, time: 'garbage' }],
        [updater('e'), { set: owns('e'), apiVersion: 'v1', applied: false }],
        [updater('g'), up(owns('g'), 3)],
      ]),
      2,
    );
    // An unreadable time counts as 0 too: e, then f; the bucket takes f's time, unreadable as it is.
    assert.deepEqual(bothUntimed.get(updater(ANCIENT_CHANGES)), { set: owns('e', 'f'), apiVersion: 'v1', applied: false, time: 'garbage' });
    const noTime = capUpdateManagers(
      new Map([
        [updater('e'), { set: owns('e'), apiVersion: 'v1', applied: false }],
        [updater('f'), { set: owns('f'), apiVersion: 'v1', applied: false }],
        [updater('g'), up(owns('g'), 3)],
      ]),
      2,
    );
    assert.deepEqual(noTime.get(updater(ANCIENT_CHANGES)), { set: owns('e', 'f'), apiVersion: 'v1', applied: false });
  });

  test('updaters of as many versions as there are updaters have nothing to merge into', () => {
    const managed: Managed = new Map([
      [updater('a', 'v1'), up(owns('a'), 1, 'v1')],
      [updater('b', 'v2'), up(owns('b'), 2, 'v2')],
      [updater('c', 'v3'), up(owns('c'), 3, 'v3')],
    ]);
    assert.deepEqual(capUpdateManagers(managed, 1), managed);
  });

  test('stops merging once few enough updaters are left', () => {
    const managed: Managed = new Map([
      [updater('a'), up(owns('a'), 1)],
      [updater('b'), up(owns('b'), 2)],
      [updater('c'), up(owns('c'), 3)],
      [updater('d'), up(owns('d'), 4)],
    ]);
    const capped = capUpdateManagers(managed, 3);
    assert.deepEqual([...capped.keys()].sort(), [updater(ANCIENT_CHANGES), updater('c'), updater('d')].sort());
    assert.deepEqual(capped.get(updater(ANCIENT_CHANGES))!.set, owns('a', 'b'));
  });
});

describe('conflict messages', () => {
  test('name the manager as Kubernetes prints it', () => {
    assert.equal(printManager(applier('kubectl')), '"kubectl"');
    assert.equal(printManager(applier('kubectl', 'scale')), '"kubectl" with subresource "scale"');
    assert.equal(printManager(updater('ctl', 'apps/v1')), '"ctl" using apps/v1');
    assert.equal(printManager(updater('ctl', 'v1', 'status')), '"ctl" with subresource "status" using v1');
    assert.equal(printManager(managerIdentifier({ manager: 'ctl', operation: 'Apply', subresource: '' })), '"ctl"');
    assert.equal(printManager('bare'), '"bare" using ');
  });

  test('one conflict on one line; several grouped by manager, managers sorted', () => {
    assert.equal(conflictMessage([{ manager: applier('a'), path: ['f:spec', 'f:replicas'] }]), 'Apply failed with 1 conflict: conflict with "a": .spec.replicas');
    const message = conflictMessage([
      { manager: updater('b'), path: ['f:spec', 'f:x'] },
      { manager: applier('a'), path: ['f:spec', 'f:y'] },
      { manager: updater('b'), path: ['f:spec', 'f:z'] },
    ]);
    assert.equal(message, 'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.y\nconflicts with "b" using v1:\n- .spec.x\n- .spec.z');
  });

  test('from the conflicting sets: every path of each manager, managers in identifier order; a 409 with one cause per field', () => {
    const conflicts = ApplyConflicts.fromSets(
      new Map([
        [updater('b'), setOf(['f:spec', 'f:replicas'], ['f:metadata', 'f:labels', 'f:app'])],
        [applier('a'), setOf(['f:spec', 'f:paused'])],
      ]),
    );
    assert.deepEqual(conflicts.conflicts, [
      { manager: applier('a'), path: ['f:spec', 'f:paused'] },
      { manager: updater('b'), path: ['f:metadata', 'f:labels', 'f:app'] },
      { manager: updater('b'), path: ['f:spec', 'f:replicas'] },
    ]);
    const err = conflicts.toApiError();
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.equal(err.message, conflicts.message);
    assert.equal(err.message, 'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.paused\nconflicts with "b" using v1:\n- .metadata.labels.app\n- .spec.replicas');
    assert.deepEqual(err.details?.causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.paused' },
      { reason: 'FieldManagerConflict', message: 'conflict with "b" using v1', field: '.metadata.labels.app' },
      { reason: 'FieldManagerConflict', message: 'conflict with "b" using v1', field: '.spec.replicas' },
    ]);
    assert.equal(conflicts.name, 'ApplyConflicts');
  });
});
