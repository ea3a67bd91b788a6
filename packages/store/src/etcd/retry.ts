/**
 * How EtcdStore's requests meet failing members: which are retried, which members are skipped for
 * a while, and whether a retried write may already have applied.
 *
 * The etcd3 client runs every unary request through two fault-handling policies, both given here
 * in place of its defaults: a "global" one that may run the request again — each time on the next
 * member — and, around each attempt, the chosen member's own.
 *
 * Retries (`retryPolicy`): up to three attempts when an attempt fails in a way the client deems
 * recoverable (the connection refused or dropped, a deadline, "leader changed", "request timed
 * out"), as the client's default, or finds only members that are being skipped. But a write whose attempt failed after it reached etcd may have
 * been applied: a retry of a create then finds the key it just created and reports AlreadyExists,
 * one of an update reports Conflict — and an API server creating with generateName would create a
 * second object under a new name. So the policy also notes, for the store request in progress
 * (`tracked`), whether an attempt failed after it may have reached etcd: any recoverable failure
 * but "No connection established", which means it was never sent. The store then tells its own
 * write from someone else's (etcd.ts).
 *
 * Members (`memberBreaker`): after three attempts in a row that failed to reach a member, it is
 * skipped for 5 s (then one more such failure skips it again), so requests do not wait on a dead
 * member's connection. Only failures of the member itself count: an answer from a live member that
 * the cluster is between leaders ("etcdserver: leader changed", "no leader", "request timed out")
 * does not — the client's default breaker counted those too, and while the survivors of a dead
 * leader held an election it shut them all out for 5 s, turning a one-second election into seconds
 * of refused requests after the new leader was serving (the three-member test in
 * packages/apiserver/test/etcd-cluster.test.ts saw it).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { isRecoverableError, type IOptions } from 'etcd3';

type FaultHandling = NonNullable<IOptions['faultHandling']>;
type Policy = NonNullable<FaultHandling['global']>;

/** Attempts per request, each on the next member (the etcd3 client's default). */
export const MAX_ATTEMPTS = 3;
/** Failed attempts in a row after which a member is skipped. */
export const MEMBER_FAILURES = 3;
/** How long a member is skipped. */
export const MEMBER_SKIP_MS = 5_000;

/** What the attempts of one store request did. */
export interface Attempts {
  /** Attempts made so far. */
  count: number;
  /** An attempt failed after it may have reached etcd: a write may have applied before the one that answered. */
  uncertain: boolean;
}

const inProgress = new AsyncLocalStorage<Attempts>();

/** Runs `request` (one etcd3 call), recording its attempts in `attempts`. */
export function tracked<T>(attempts: Attempts, request: () => Promise<T>): Promise<T> {
  return inProgress.run(attempts, request);
}

/** grpc-js's words for a call that failed before it was sent: the channel has no connection. */
function neverSent(err: Error): boolean {
  return err.message.includes('No connection established');
}

/** A failure of the member itself (not an answer from it): it is down, unreachable or hung. */
function memberFailed(err: unknown): boolean {
  return err instanceof Error && isRecoverableError(err) && !err.message.includes('etcdserver:');
}

/** Thrown instead of an attempt on a member that is being skipped; the client moves to the next one. */
export class MemberSkipped extends Error {
  constructor(member: string, untilMs: number) {
    super(`etcd member ${member} is skipped for ${Math.max(0, Math.round(untilMs))} ms after ${MEMBER_FAILURES} failed requests in a row`);
    this.name = 'MemberSkipped';
  }
}

const neverAborted = new AbortController().signal;
const noEvent = () => ({ dispose: () => undefined });

/** A Policy from its `execute` (the client uses nothing else; `_altReturn` exists only in types). */
function policy(execute: Policy['execute']): Policy {
  const p: Omit<Policy, '_altReturn'> = { onSuccess: noEvent, onFailure: noEvent, execute };
  return p as Policy;
}

/**
 * The etcd3 client's `faultHandling.global`: up to MAX_ATTEMPTS attempts of a request that fails
 * recoverably, recording in the `tracked` request's Attempts whether a failed one may have applied.
 */
export const retryPolicy: Policy = policy(async (fn, signal = neverAborted) => {
  const attempts = inProgress.getStore();
  for (let attempt = 1; ; attempt++) {
    if (attempts !== undefined) attempts.count = attempt;
    try {
      return await fn({ signal });
    } catch (err) {
      // Every member the client tried in this attempt being skipped is worth another: the next
      // attempt goes on to members not tried yet.
      const skipped = err instanceof MemberSkipped;
      if (!skipped && !(err instanceof Error && isRecoverableError(err))) throw err;
      if (attempt >= MAX_ATTEMPTS || signal.aborted) throw err;
      if (attempts !== undefined && !skipped && !neverSent(err)) attempts.uncertain = true;
    }
  }
});

/**
 * The etcd3 client's `faultHandling.host` for `member`: skips it for MEMBER_SKIP_MS after
 * MEMBER_FAILURES attempts in a row failed to reach it (throwing MemberSkipped, so the client tries
 * the next member); once that time is over, one more such failure skips it again, one success
 * forgets them. `now` is the clock (milliseconds).
 */
export function memberBreaker(member: string, now: () => number = Date.now): Policy {
  let failures = 0;
  let skipUntil = 0;
  return policy(async (fn, signal = neverAborted) => {
    const left = skipUntil - now();
    if (left > 0) throw new MemberSkipped(member, left);
    try {
      const result = await fn({ signal });
      failures = 0;
      return result;
    } catch (err) {
      if (!memberFailed(err)) {
        failures = 0;
      } else if (++failures >= MEMBER_FAILURES) {
        skipUntil = now() + MEMBER_SKIP_MS;
        failures = MEMBER_FAILURES - 1;
      }
      throw err;
    }
  });
}

/** The fault handling EtcdStore gives its etcd3 client. */
export const faultHandling: FaultHandling = { global: retryPolicy, host: (member) => memberBreaker(member) };
