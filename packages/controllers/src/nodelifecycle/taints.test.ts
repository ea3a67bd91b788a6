/** Health → taints and taints + tolerations → evictions, table-driven. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node, NodeCondition, Taint, Toleration } from '@setpoint/api';
import { decideEviction, toleratesTaint, type EvictionDecision } from './eviction.js';
import type { NodeHealth } from './health.js';
import { planTaints, withNoExecute, withoutNoExecute, TAINT_MEMORY_PRESSURE, TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE } from './taints.js';

const NOW = '2026-01-01T00:01:00Z';
const OLD = '2026-01-01T00:00:00Z';
const ns = (key: string): Taint => ({ key, effect: 'NoSchedule' });
const ne = (key: string, timeAdded = OLD): Taint => ({ key, effect: 'NoExecute', timeAdded });
const foreign: Taint = { key: 'example.com/dedicated', value: 'gpu', effect: 'NoExecute' };

function node(taints: Taint[], extra: { conditions?: NodeCondition[]; unschedulable?: boolean } = {}): Node {
  return { metadata: { name: 'n1' }, spec: { taints, ...(extra.unschedulable ? { unschedulable: true } : {}) }, status: { conditions: extra.conditions ?? [] } };
}

describe('planTaints', () => {
  const cases: Array<{ name: string; node: Node; health: NodeHealth; taints: Taint[]; queue?: string }> = [
    { name: 'healthy, untainted: nothing to do', node: node([]), health: 'Ready', taints: [] },
    { name: 'unreachable: NoSchedule at once, NoExecute through the rate limiter', node: node([]), health: 'Unreachable', taints: [ns(TAINT_UNREACHABLE)], queue: TAINT_UNREACHABLE },
    { name: 'not ready: the not-ready taints instead', node: node([]), health: 'NotReady', taints: [ns(TAINT_NOT_READY)], queue: TAINT_NOT_READY },
    {
      name: 'unreachable while tainted not-ready: NoExecute swapped at once',
      node: node([ns(TAINT_NOT_READY), ne(TAINT_NOT_READY)]),
      health: 'Unreachable',
      taints: [ns(TAINT_UNREACHABLE), ne(TAINT_UNREACHABLE, NOW)],
    },
    { name: 'already carrying the right NoExecute taint: nothing queued', node: node([ns(TAINT_UNREACHABLE), ne(TAINT_UNREACHABLE)]), health: 'Unreachable', taints: [ns(TAINT_UNREACHABLE), ne(TAINT_UNREACHABLE)] },
    { name: 'ready again: every controller taint removed at once', node: node([ns(TAINT_UNREACHABLE), ne(TAINT_UNREACHABLE)]), health: 'Ready', taints: [] },
    { name: 'reachable again (lease renewed, conditions not yet restored): taints removed', node: node([ns(TAINT_UNREACHABLE), ne(TAINT_UNREACHABLE)]), health: 'Reachable', taints: [] },
    { name: 'taints of others are never touched', node: node([foreign, ne(TAINT_NOT_READY)]), health: 'Ready', taints: [foreign] },
    {
      name: 'pressure conditions and cordon: NoSchedule taints',
      node: node([], { conditions: [{ type: 'MemoryPressure', status: 'True' }], unschedulable: true }),
      health: 'Ready',
      taints: [ns(TAINT_MEMORY_PRESSURE), ns(TAINT_UNSCHEDULABLE)],
    },
    { name: 'pressure gone: its taint removed', node: node([ns(TAINT_MEMORY_PRESSURE)], { conditions: [{ type: 'MemoryPressure', status: 'False' }] }), health: 'Ready', taints: [] },
    { name: 'unreported (never posted Ready): NoExecute taints left as they are', node: node([ne(TAINT_UNREACHABLE)]), health: 'Unreported', taints: [ne(TAINT_UNREACHABLE)] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = planTaints(c.node, c.health, NOW);
      const sorted = (list: Taint[]) => [...list].sort((a, b) => `${a.key}${a.effect}`.localeCompare(`${b.key}${b.effect}`));
      assert.deepEqual(sorted(plan.taints), sorted(c.taints));
      assert.equal(plan.queue, c.queue);
      assert.equal(plan.changed, JSON.stringify(sorted(c.taints)) !== JSON.stringify(sorted(c.node.spec?.taints ?? [])));
    });
  }

  it('the tainter adds one NoExecute taint and drops the opposite one; removal keeps foreign taints', () => {
    assert.deepEqual(withNoExecute([foreign, ne(TAINT_NOT_READY)], TAINT_UNREACHABLE, NOW), [foreign, ne(TAINT_UNREACHABLE, NOW)]);
    assert.deepEqual(withNoExecute([ne(TAINT_UNREACHABLE)], TAINT_UNREACHABLE, NOW), [ne(TAINT_UNREACHABLE)], 'timeAdded is kept when present');
    assert.deepEqual(withoutNoExecute([foreign, ns(TAINT_UNREACHABLE), ne(TAINT_UNREACHABLE)]), [foreign, ns(TAINT_UNREACHABLE)]);
  });
});

describe('toleratesTaint', () => {
  const taint: Taint = { key: 'k', value: 'v', effect: 'NoExecute' };
  const cases: Array<[string, Toleration, boolean]> = [
    ['Exists on the key', { key: 'k', operator: 'Exists' }, true],
    ['Equal with the value', { key: 'k', operator: 'Equal', value: 'v' }, true],
    ['operator defaults to Equal', { key: 'k', value: 'v' }, true],
    ['Equal with another value', { key: 'k', value: 'w' }, false],
    ['another key', { key: 'x', operator: 'Exists' }, false],
    ['another effect', { key: 'k', operator: 'Exists', effect: 'NoSchedule' }, false],
    ['empty key with Exists tolerates everything', { operator: 'Exists' }, true],
  ];
  for (const [name, toleration, want] of cases) it(name, () => assert.equal(toleratesTaint(toleration, taint), want));
});

describe('decideEviction', () => {
  const since = 1_000_000;
  const unreachable = ne(TAINT_UNREACHABLE);
  const notReady = ne(TAINT_NOT_READY);
  const tol = (key: string, seconds?: number): Toleration => ({ key, operator: 'Exists', effect: 'NoExecute', ...(seconds === undefined ? {} : { tolerationSeconds: seconds }) });
  const cases: Array<{ name: string; tolerations?: Toleration[]; taints: Taint[]; now: number; want: EvictionDecision }> = [
    { name: 'no NoExecute taint: keep', taints: [ns(TAINT_UNREACHABLE)], now: since, want: { kind: 'keep' } },
    { name: 'no toleration: evict at once', taints: [unreachable], now: since, want: { kind: 'evict' } },
    { name: 'tolerated for 300 s: wait until then', tolerations: [tol(TAINT_UNREACHABLE, 300)], taints: [unreachable], now: since + 1000, want: { kind: 'wait', atMs: since + 300_000 } },
    { name: 'tolerated for 300 s, 300 s passed: evict', tolerations: [tol(TAINT_UNREACHABLE, 300)], taints: [unreachable], now: since + 300_000, want: { kind: 'evict' } },
    { name: 'tolerated forever: keep', tolerations: [tol(TAINT_UNREACHABLE)], taints: [unreachable], now: since + 10_000_000, want: { kind: 'keep' } },
    { name: 'tolerationSeconds 0 or less: evict at once', tolerations: [tol(TAINT_UNREACHABLE, -5)], taints: [unreachable], now: since, want: { kind: 'evict' } },
    { name: 'one of two taints not tolerated: evict', tolerations: [tol(TAINT_UNREACHABLE)], taints: [unreachable, foreign], now: since, want: { kind: 'evict' } },
    {
      name: 'two taints: the smallest tolerationSeconds of the tolerations used',
      tolerations: [tol(TAINT_UNREACHABLE, 60), tol(TAINT_NOT_READY, 20)],
      taints: [unreachable, notReady],
      now: since,
      want: { kind: 'wait', atMs: since + 20_000 },
    },
    { name: 'a forever toleration and a timed one: the timed one counts', tolerations: [tol(TAINT_UNREACHABLE), tol(TAINT_NOT_READY, 20)], taints: [unreachable, notReady], now: since, want: { kind: 'wait', atMs: since + 20_000 } },
    { name: 'the first matching toleration is the one used (Kubernetes)', tolerations: [tol(TAINT_UNREACHABLE), tol(TAINT_UNREACHABLE, 5)], taints: [unreachable], now: since, want: { kind: 'keep' } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(decideEviction(c.tolerations, c.taints, since, c.now), c.want));
});
