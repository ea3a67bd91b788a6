import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Deployment, DeploymentStatus } from '@setpoint/api';
import { AVAILABLE, PROGRESSING, REPLICA_FAILURE, Reasons, formatTime, getCondition, newCondition, setCondition } from './conditions.js';
import { makeDeployment, makeReplicaSet } from './fakecluster.test-support.js';
import { NO_PROGRESS_DEADLINE, calculateStatus, pausedStatus, progressCheckDelayMs, rolloutStatus } from './progress.js';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const at = (s: number) => T0 + s * 1000;

/** web: 10 replicas, 25%/25% (minAvailable 8), deadline 600 s, generation 1 observed. */
function deployment(status: DeploymentStatus = {}): Deployment {
  const d = makeDeployment('web', { replicas: 10 });
  d.status = { observedGeneration: 1, ...status };
  return d;
}

describe('setCondition (SetDeploymentCondition)', () => {
  it('leaves a condition with the same status and reason exactly as it was', () => {
    const s: DeploymentStatus = {};
    setCondition(s, newCondition(AVAILABLE, 'True', 'A', 'first', at(0)));
    setCondition(s, newCondition(AVAILABLE, 'True', 'A', 'second', at(5)));
    assert.deepEqual(getCondition(s, AVAILABLE), newCondition(AVAILABLE, 'True', 'A', 'first', at(0)));
  });

  it('keeps lastTransitionTime when only the reason changes, moves it when the status does', () => {
    const s: DeploymentStatus = {};
    setCondition(s, newCondition(PROGRESSING, 'True', 'A', '', at(0)));
    setCondition(s, newCondition(PROGRESSING, 'True', 'B', '', at(5)));
    assert.equal(getCondition(s, PROGRESSING)?.lastTransitionTime, formatTime(at(0)));
    assert.equal(getCondition(s, PROGRESSING)?.lastUpdateTime, formatTime(at(5)));
    setCondition(s, newCondition(PROGRESSING, 'False', 'C', '', at(9)));
    assert.equal(getCondition(s, PROGRESSING)?.lastTransitionTime, formatTime(at(9)));
  });
});

describe('calculateStatus', () => {
  it('sums the ReplicaSets, counts unavailable against spec, and sets Available by minAvailable', () => {
    const old = makeReplicaSet('old', { replicas: 5, available: 5 });
    const neu = makeReplicaSet('new', { replicas: 5, available: 2, actual: 4 });
    const s = calculateStatus([old, neu], neu, deployment(), at(0));
    assert.equal(s.replicas, 9);
    assert.equal(s.updatedReplicas, 4);
    assert.equal(s.availableReplicas, 7);
    assert.equal(s.unavailableReplicas, 3);
    assert.equal(s.observedGeneration, 1);
    assert.deepEqual(getCondition(s, AVAILABLE), newCondition(AVAILABLE, 'False', Reasons.MinimumReplicasUnavailable, 'Deployment does not have minimum availability.', at(0)));
    const enough = calculateStatus([old, makeReplicaSet('new', { replicas: 5, available: 3 })], undefined, deployment(), at(0));
    assert.equal(getCondition(enough, AVAILABLE)?.reason, Reasons.MinimumReplicasAvailable);
    assert.equal(enough.updatedReplicas, undefined, 'zero counts are omitted, as omitempty does');
  });

  it('carries collisionCount and other conditions over', () => {
    const d = deployment({ collisionCount: 2, conditions: [newCondition(PROGRESSING, 'True', Reasons.NewReplicaSetCreated, 'x', at(0))] });
    const s = calculateStatus([], undefined, d, at(1));
    assert.equal(s.collisionCount, 2);
    assert.equal(getCondition(s, PROGRESSING)?.reason, Reasons.NewReplicaSetCreated);
  });
});

describe('rolloutStatus (syncRolloutStatus) and the progress deadline', () => {
  const created = newCondition(PROGRESSING, 'True', Reasons.NewReplicaSetCreated, 'Created new replica set "web-new"', at(0));
  const midway = () => deployment({ replicas: 13, updatedReplicas: 3, availableReplicas: 10, readyReplicas: 10, conditions: [created] });
  const old = makeReplicaSet('web-old', { replicas: 8, actual: 10, available: 10 });
  const neu = (available: number, actual = 5) => makeReplicaSet('web-new', { replicas: 5, actual, available });

  it('progress (more updated/ready/available pods, fewer old ones) refreshes lastUpdateTime, keeps lastTransitionTime', () => {
    const s = rolloutStatus(midway(), [old, neu(3)], neu(3), at(30));
    assert.deepEqual(getCondition(s, PROGRESSING), {
      type: PROGRESSING,
      status: 'True',
      reason: Reasons.ReplicaSetUpdated,
      message: 'ReplicaSet "web-new" is progressing.',
      lastUpdateTime: formatTime(at(30)),
      lastTransitionTime: formatTime(at(0)),
    });
  });

  it('no progress: the condition stays until the deadline, then ProgressDeadlineExceeded (False)', () => {
    const stuck = deployment({ replicas: 15, updatedReplicas: 5, availableReplicas: 10, readyReplicas: 10, conditions: [created] });
    const rss = [old, neu(0)];
    assert.equal(getCondition(rolloutStatus(stuck, rss, neu(0), at(600)), PROGRESSING)?.reason, Reasons.NewReplicaSetCreated, 'at the deadline: not yet');
    const late = getCondition(rolloutStatus(stuck, rss, neu(0), at(601)), PROGRESSING);
    assert.equal(late?.reason, Reasons.ProgressDeadlineExceeded);
    assert.equal(late?.status, 'False');
    assert.equal(late?.message, 'ReplicaSet "web-new" has timed out progressing.');
    assert.equal(late?.lastTransitionTime, formatTime(at(601)));
  });

  it('complete: NewReplicaSetAvailable, and a complete Deployment is not re-estimated', () => {
    const done = makeReplicaSet('web-new', { replicas: 10 });
    const s = rolloutStatus(midway(), [makeReplicaSet('web-old', { replicas: 0 }), done], done, at(40));
    assert.equal(getCondition(s, PROGRESSING)?.reason, Reasons.NewReplicaSetAvailable);
    assert.equal(getCondition(s, PROGRESSING)?.message, 'ReplicaSet "web-new" has successfully progressed.');
    assert.equal(getCondition(s, AVAILABLE)?.status, 'True');
    const again = rolloutStatus({ ...deployment(), status: s }, [done], done, at(4000));
    assert.deepEqual(again, s, 'nothing changes: no write');
  });

  it('without a deadline there is no Progressing condition', () => {
    const d = midway();
    d.spec!.progressDeadlineSeconds = NO_PROGRESS_DEADLINE;
    assert.equal(getCondition(rolloutStatus(d, [old, neu(3)], neu(3), at(9)), PROGRESSING), undefined);
  });

  it('ReplicaFailure mirrors the new ReplicaSet, and goes when it does', () => {
    const failing = neu(0);
    failing.status!.conditions = [{ type: REPLICA_FAILURE, status: 'True', reason: 'FailedCreate', message: 'quota', lastTransitionTime: formatTime(at(3)) }];
    const s = rolloutStatus(midway(), [old, failing], failing, at(4));
    assert.deepEqual(getCondition(s, REPLICA_FAILURE), { type: REPLICA_FAILURE, status: 'True', reason: 'FailedCreate', message: 'quota', lastTransitionTime: formatTime(at(3)), lastUpdateTime: formatTime(at(3)) });
    assert.equal(getCondition(rolloutStatus({ ...midway(), status: s }, [old, neu(0)], neu(0), at(5)), REPLICA_FAILURE), undefined);
  });

  it('progressCheckDelayMs: until lastUpdateTime + deadline (+1 s), none when complete or timed out', () => {
    const d = midway();
    assert.equal(progressCheckDelayMs(d, d.status!, at(100)), 501_000);
    assert.equal(progressCheckDelayMs(d, d.status!, at(600)), 1000);
    assert.equal(progressCheckDelayMs(d, d.status!, at(700)), 1000);
    const timedOut = { ...d.status, conditions: [newCondition(PROGRESSING, 'False', Reasons.ProgressDeadlineExceeded, '', at(0))] };
    assert.equal(progressCheckDelayMs(d, timedOut, at(100)), undefined);
    assert.equal(progressCheckDelayMs(d, { ...d.status, conditions: [] }, at(100)), undefined);
  });
});

describe('pausedStatus (checkPausedConditions)', () => {
  it('pausing says DeploymentPaused (Unknown); resuming says DeploymentResumed; a timeout is not hidden', () => {
    const d = deployment({ conditions: [newCondition(PROGRESSING, 'True', Reasons.ReplicaSetUpdated, '', at(0))] });
    d.spec!.paused = true;
    const paused = pausedStatus(d, at(10))!;
    assert.equal(getCondition(paused, PROGRESSING)?.reason, Reasons.DeploymentPaused);
    assert.equal(getCondition(paused, PROGRESSING)?.status, 'Unknown');
    assert.equal(pausedStatus({ ...d, status: paused }, at(20)), undefined, 'said once');
    const resumed = pausedStatus({ ...d, spec: { ...d.spec!, paused: false }, status: paused }, at(30))!;
    assert.equal(getCondition(resumed, PROGRESSING)?.reason, Reasons.DeploymentResumed);
    const timedOut = deployment({ conditions: [newCondition(PROGRESSING, 'False', Reasons.ProgressDeadlineExceeded, '', at(0))] });
    timedOut.spec!.paused = true;
    assert.equal(pausedStatus(timedOut, at(40)), undefined);
  });
});
