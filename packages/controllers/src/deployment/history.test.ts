import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ReplicaSet } from '@setpoint/api';
import { makeDeployment, makeReplicaSet } from './fakecluster.test-support.js';
import { UNLIMITED_HISTORY, replicaSetsToCleanUp } from './history.js';

const names = (rss: ReplicaSet[]) => rss.map((rs) => rs.metadata.name);

describe('replicaSetsToCleanUp (cleanupDeployment)', () => {
  // Old revisions 1..5 (created in reverse order, so that revision, not age, decides).
  const olds = () => [5, 4, 3, 2, 1].map((rev) => makeReplicaSet(`r${rev}`, { revision: rev, created: 10 - rev }));

  const table: Array<[string, number | undefined, string[]]> = [
    ['limit 2: the 3 lowest revisions go', 2, ['r1', 'r2', 'r3']],
    ['limit 0: every old revision goes', 0, ['r1', 'r2', 'r3', 'r4', 'r5']],
    ['limit 5: nothing goes', 5, []],
    ['limit 10: nothing goes', 10, []],
    ['no limit set: nothing goes', undefined, []],
    ['unlimited (MaxInt32): nothing goes', UNLIMITED_HISTORY, []],
  ];
  for (const [name, limit, want] of table) {
    it(name, () => {
      const d = makeDeployment('web');
      if (limit === undefined) delete d.spec!.revisionHistoryLimit;
      else d.spec!.revisionHistoryLimit = limit;
      assert.deepEqual(names(replicaSetsToCleanUp(d, olds())), want);
    });
  }

  it('keeps old ReplicaSets that still have pods, desired replicas, or an unobserved generation', () => {
    const rss = olds();
    rss[4]!.spec!.replicas = 1; // r1: still scaled up
    rss[3]!.status = { replicas: 1 }; // r2: pods still going
    rss[2]!.metadata.generation = 2; // r3: its controller has not seen the last change
    const d = makeDeployment('web', { revisionHistoryLimit: 2 });
    assert.deepEqual(names(replicaSetsToCleanUp(d, rss)), []);
  });

  it('does not count ReplicaSets already being deleted', () => {
    const rss = olds();
    rss[4]!.metadata.deletionTimestamp = '2025-01-01T00:00:00Z'; // r1
    const d = makeDeployment('web', { revisionHistoryLimit: 2 });
    assert.deepEqual(names(replicaSetsToCleanUp(d, rss)), ['r2', 'r3']);
  });
});
