/**
 * EtcdStore's fault handling for the etcd3 client, without etcd: which failures are retried and
 * make a write uncertain, and when a member is skipped (a fake clock).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EtcdError, GRPCUnavailableError } from 'etcd3';
import { MAX_ATTEMPTS, MEMBER_FAILURES, MEMBER_SKIP_MS, MemberSkipped, memberBreaker, retryPolicy, tracked, type Attempts } from './retry.js';

const dropped = () => new GRPCUnavailableError('14 UNAVAILABLE: Connection dropped');
const notSent = () => new GRPCUnavailableError('14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:2379');
const leaderChanged = () => new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: leader changed');

/** Runs `outcomes` (an error to throw, or a value) as the attempts of one tracked request. */
async function run(outcomes: Array<Error | string>): Promise<{ result: string | Error; attempts: Attempts; calls: number }> {
  const attempts: Attempts = { count: 0, uncertain: false };
  let calls = 0;
  const result = await tracked(attempts, () =>
    retryPolicy.execute(() => {
      const outcome = outcomes[calls++];
      if (outcome instanceof Error) throw outcome;
      return outcome!;
    }),
  ).catch((err: Error) => err);
  return { result, attempts, calls };
}

describe('etcd request retries', () => {
  it('retries a recoverable failure on up to three attempts; a non-recoverable one is not retried', async () => {
    assert.deepEqual(await run([dropped(), leaderChanged(), 'ok']), { result: 'ok', attempts: { count: 3, uncertain: true }, calls: 3 });
    const exhausted = await run([dropped(), dropped(), dropped(), 'never']);
    assert.equal(exhausted.calls, MAX_ATTEMPTS);
    assert.ok(exhausted.result instanceof GRPCUnavailableError);
    const refused = await run([new EtcdError('etcdserver: mvcc: required revision has been compacted'), 'never']);
    assert.equal(refused.calls, 1);
    assert.ok(refused.result instanceof EtcdError);
  });

  it('a write is uncertain only after an attempt that may have reached etcd', async () => {
    assert.deepEqual((await run(['ok'])).attempts, { count: 1, uncertain: false });
    assert.deepEqual((await run([notSent(), notSent(), 'ok'])).attempts, { count: 3, uncertain: false }, 'never sent: nothing can have applied');
    assert.deepEqual((await run([notSent(), leaderChanged(), 'ok'])).attempts, { count: 3, uncertain: true });
  });

  it('an attempt that found only skipped members is retried, and is not uncertain', async () => {
    assert.deepEqual(await run([new MemberSkipped('http://e1:2379', 4000), 'ok']), { result: 'ok', attempts: { count: 2, uncertain: false }, calls: 2 });
    const down = await run([new MemberSkipped('http://e1:2379', 4000), new MemberSkipped('http://e2:2379', 4000), new MemberSkipped('http://e3:2379', 4000), 'never']);
    assert.ok(down.result instanceof MemberSkipped);
    assert.equal(down.calls, MAX_ATTEMPTS);
  });
});

describe('etcd member breaker', () => {
  it(`skips a member for ${MEMBER_SKIP_MS} ms after ${MEMBER_FAILURES} failures to reach it in a row; then one more failure skips it again`, async () => {
    let now = 1_000;
    const breaker = memberBreaker('http://e1:2379', () => now);
    let calls = 0;
    const attempt = (outcome: Error | string) =>
      breaker
        .execute(() => {
          calls++;
          if (outcome instanceof Error) throw outcome;
          return outcome;
        })
        .catch((err: Error) => err);
    for (let i = 0; i < MEMBER_FAILURES; i++) assert.ok((await attempt(dropped())) instanceof GRPCUnavailableError);
    assert.equal(calls, MEMBER_FAILURES);
    const skipped = await attempt('not called');
    assert.ok(skipped instanceof MemberSkipped, String(skipped));
    assert.match(skipped.message, /etcd member http:\/\/e1:2379 is skipped for 5000 ms/);
    assert.equal(calls, MEMBER_FAILURES, 'a skipped member is not called');
    now += MEMBER_SKIP_MS;
    assert.ok((await attempt(dropped())) instanceof GRPCUnavailableError, 'tried again once the time is over');
    assert.ok((await attempt('not called')) instanceof MemberSkipped, 'one more failure skips it again');
    now += MEMBER_SKIP_MS;
    assert.equal(await attempt('ok'), 'ok');
    assert.ok((await attempt(dropped())) instanceof GRPCUnavailableError);
    assert.equal(await attempt('ok'), 'ok', 'a success forgets earlier failures');
  });

  it('does not count answers from a live member: leader changed, no leader, request timed out, refusals', async () => {
    const breaker = memberBreaker('http://e1:2379', () => 0);
    const answers = [
      leaderChanged(),
      new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: no leader'),
      new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: request timed out, possibly due to previous leader failure'),
      new EtcdError('etcdserver: mvcc: required revision is a future revision'),
    ];
    for (const err of [...answers, ...answers]) {
      await assert.rejects(
        breaker.execute(() => {
          throw err;
        }),
        (e) => e === err,
      );
    }
    assert.equal(await breaker.execute(() => 'still called'), 'still called');
  });
});
