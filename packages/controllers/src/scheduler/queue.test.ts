import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { SchedulingQueue, type QueueAttributes, type QueuedPod } from './queue.js';

const attrs = (priority = 0, creationMs = 0, dependsOnPods = false): QueueAttributes => ({ priority, creationMs, dependsOnPods });

/** Pops what is active now, without waiting. */
async function drain(queue: SchedulingQueue): Promise<QueuedPod[]> {
  const out: QueuedPod[] = [];
  while (queue.counts().active > 0) out.push((await queue.pop())!);
  return out;
}

function setup() {
  const clock = new FakeClock();
  const queue = new SchedulingQueue({ clock });
  return { clock, queue };
}

describe('SchedulingQueue order', () => {
  it('highest priority first, then oldest creationTimestamp, then first queued', async () => {
    const { queue } = setup();
    queue.add('low-old', attrs(0, 1));
    queue.add('high-new', attrs(100, 50));
    queue.add('low-new-b', attrs(0, 9));
    queue.add('low-new-a', attrs(0, 9));
    queue.add('high-old', attrs(100, 2));
    assert.deepEqual(
      (await drain(queue)).map((p) => p.key),
      ['high-old', 'high-new', 'low-old', 'low-new-b', 'low-new-a'],
    );
  });

  it('a priority change re-sorts a waiting pod; adding a known pod does not duplicate it', async () => {
    const { queue } = setup();
    queue.add('a', attrs());
    queue.add('b', attrs());
    queue.add('a', attrs());
    queue.update('b', attrs(5), false);
    assert.deepEqual((await drain(queue)).map((p) => p.key), ['b', 'a']);
  });

  it('pop waits for a pod, and close releases it with undefined', async () => {
    const { queue } = setup();
    const waiting = queue.pop();
    queue.add('late', attrs());
    assert.equal((await waiting)?.key, 'late');
    const never = queue.pop();
    queue.close();
    assert.equal(await never, undefined);
  });
});

describe('SchedulingQueue unschedulable pods', () => {
  it('wait without any timer firing until moveAll, then back off (1 s, 2 s, 4 s, 8 s, 10 s, 10 s)', async () => {
    const { clock, queue } = setup();
    assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => queue.backoffMs(n)), [1000, 2000, 4000, 8000, 10_000, 10_000]);
    queue.add('p', attrs());
    let pod = (await queue.pop())!;
    for (let attempt = 1; attempt <= 6; attempt++) {
      queue.requeueUnschedulable(pod);
      assert.deepEqual(queue.counts(), { active: 0, backoff: 0, unschedulable: 1 });
      assert.equal(clock.nextDue(), clock.now() + 300_000, 'the only timer is the 5-minute flush');
      await clock.advance(60_000); // nothing changes in the cluster: the pod stays put
      assert.deepEqual(queue.counts(), { active: 0, backoff: 0, unschedulable: 1 });
      assert.equal(queue.moveAll(), 1);
      // Already 60 s since the failure: backoff has expired, the pod is active at once.
      assert.deepEqual(queue.counts(), { active: 1, backoff: 0, unschedulable: 0 });
      pod = (await queue.pop())!;
      assert.equal(pod.attempts, attempt + 1);
    }
  });

  it('a change right after a failure waits out the backoff in the backoff queue', async () => {
    const { clock, queue } = setup();
    queue.add('p', attrs());
    let pod = (await queue.pop())!;
    queue.requeueUnschedulable(pod); // attempt 1 → backoff 1 s
    queue.moveAll();
    assert.deepEqual(queue.counts(), { active: 0, backoff: 1, unschedulable: 0 });
    await clock.advance(999);
    assert.equal(queue.counts().active, 0);
    await clock.advance(1);
    assert.equal(queue.counts().active, 1);
    pod = (await queue.pop())!;
    queue.requeueUnschedulable(pod); // attempt 2 → backoff 2 s
    queue.moveAll();
    await clock.advance(1999);
    assert.equal(queue.counts().backoff, 1);
    await clock.advance(1);
    assert.equal(queue.counts().active, 1);
  });

  it('is tried again after 5 minutes without any change', async () => {
    const { clock, queue } = setup();
    queue.add('a', attrs());
    queue.requeueUnschedulable((await queue.pop())!);
    await clock.advance(100_000);
    queue.add('b', attrs());
    queue.requeueUnschedulable((await queue.pop())!);
    await clock.advance(199_999);
    assert.deepEqual(queue.counts(), { active: 0, backoff: 0, unschedulable: 2 });
    await clock.advance(1);
    assert.deepEqual(queue.counts(), { active: 1, backoff: 0, unschedulable: 1 });
    assert.equal((await queue.pop())?.key, 'a');
    await clock.advance(100_000);
    assert.equal((await queue.pop())?.key, 'b');
    assert.equal(clock.pending(), 0, 'nothing waits, so no timer is left');
  });

  it('moveAll wakes only the pods its predicate selects', async () => {
    const { clock, queue } = setup();
    queue.add('plain', attrs());
    queue.add('affine', attrs(0, 0, true));
    for (const p of await drain(queue)) queue.requeueUnschedulable(p);
    await clock.advance(20_000);
    assert.equal(queue.moveAll((p) => p.dependsOnPods), 1);
    assert.deepEqual((await drain(queue)).map((p) => p.key), ['affine']);
  });

  it('a change of the pod itself wakes it; a status-only update (changed=false) does not', async () => {
    const { clock, queue } = setup();
    queue.add('p', attrs());
    queue.requeueUnschedulable((await queue.pop())!);
    await clock.advance(20_000);
    queue.update('p', attrs(), false);
    assert.equal(queue.counts().unschedulable, 1);
    queue.update('p', attrs(), true);
    assert.equal(queue.counts().active, 1);
  });

  it('a helpful change during the attempt sends the pod to backoff, not unschedulable', async () => {
    const { clock, queue } = setup();
    queue.add('p', attrs());
    const pod = (await queue.pop())!;
    queue.moveAll(); // e.g. a node was added while the binding of another pod was in flight
    queue.requeueUnschedulable(pod);
    assert.deepEqual(queue.counts(), { active: 0, backoff: 1, unschedulable: 0 });
    await clock.advance(1000);
    assert.equal(queue.counts().active, 1);
  });
});

describe('SchedulingQueue bookkeeping', () => {
  it('delete removes a waiting pod; a pod deleted in flight is dropped when its attempt ends', async () => {
    const { queue } = setup();
    queue.add('a', attrs());
    queue.add('b', attrs());
    queue.delete('b');
    const a = (await queue.pop())!;
    queue.delete('a');
    assert.equal(queue.has('a'), true, 'still in flight');
    queue.requeueUnschedulable(a);
    assert.equal(queue.has('a'), false);
    assert.deepEqual(queue.counts(), { active: 0, backoff: 0, unschedulable: 0 });
  });

  it('requeueBackoff (an error or a failed binding) retries after the backoff; done drops the pod', async () => {
    const { clock, queue } = setup();
    queue.add('p', attrs());
    queue.requeueBackoff((await queue.pop())!);
    assert.equal(queue.counts().backoff, 1);
    await clock.advance(1000);
    const pod = (await queue.pop())!;
    assert.equal(pod.attempts, 2);
    queue.done(pod);
    assert.equal(queue.has('p'), false);
    assert.equal(clock.pending(), 0);
  });
});
