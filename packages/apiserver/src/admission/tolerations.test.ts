/** DefaultTolerationSeconds admission: which pods get the default tolerations, table-driven. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, Toleration } from '@setpoint/api';
import { addDefaultTolerations, TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE } from './tolerations.js';

const notReady: Toleration = { key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };
const unreachable: Toleration = { key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 };

function pod(tolerations?: unknown): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...(tolerations === undefined ? {} : { tolerations }) } };
}

const tolerationsOf = (p: KubeObject) => (p['spec'] as { tolerations?: unknown }).tolerations;

describe('addDefaultTolerations', () => {
  const cases: Array<{ name: string; given: Toleration[] | undefined; want: Toleration[] }> = [
    { name: 'no tolerations: both added', given: undefined, want: [notReady, unreachable] },
    { name: 'empty list: both added', given: [], want: [notReady, unreachable] },
    {
      name: 'unrelated tolerations are kept, both added after them',
      given: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }],
      want: [{ key: 'gpu', operator: 'Exists', effect: 'NoSchedule' }, notReady, unreachable],
    },
    {
      name: 'its own not-ready toleration is kept as it is; only unreachable added',
      given: [{ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }],
      want: [{ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }, unreachable],
    },
    {
      name: 'an unreachable toleration without effect counts (any effect)',
      given: [{ key: TAINT_NODE_UNREACHABLE, operator: 'Exists' }],
      want: [{ key: TAINT_NODE_UNREACHABLE, operator: 'Exists' }, notReady],
    },
    { name: 'a toleration of everything (empty key, Exists) counts for both', given: [{ operator: 'Exists' }], want: [{ operator: 'Exists' }] },
    {
      name: 'empty key with effect NoExecute counts for both',
      given: [{ operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }],
      want: [{ operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }],
    },
    {
      name: 'a NoSchedule toleration of not-ready does not count',
      given: [{ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoSchedule' }],
      want: [{ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoSchedule' }, notReady, unreachable],
    },
    {
      name: 'a forever toleration (no tolerationSeconds) of both: nothing added',
      given: [
        { key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute' },
        { key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute' },
      ],
      want: [
        { key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute' },
        { key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute' },
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const p = pod(c.given === undefined ? undefined : structuredClone(c.given));
      const changed = addDefaultTolerations(p);
      assert.deepEqual(tolerationsOf(p), c.given === undefined && c.want.length === 0 ? undefined : c.want);
      assert.equal(changed, c.want.length !== (c.given?.length ?? 0));
      assert.equal(addDefaultTolerations(p), false, 'a second admission changes nothing');
    });
  }

  it('uses the configured seconds', () => {
    const p = pod();
    addDefaultTolerations(p, { notReadySeconds: 30, unreachableSeconds: 60 });
    assert.deepEqual(tolerationsOf(p), [
      { ...notReady, tolerationSeconds: 30 },
      { ...unreachable, tolerationSeconds: 60 },
    ]);
  });

  it('leaves malformed pods for validation', () => {
    const noSpec: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } };
    assert.equal(addDefaultTolerations(noSpec), false);
    assert.equal(noSpec['spec'], undefined);
    const badList = pod('not-a-list');
    assert.equal(addDefaultTolerations(badList), false);
    assert.equal(tolerationsOf(badList), 'not-a-list');
  });
});
