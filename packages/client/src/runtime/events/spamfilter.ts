/**
 * The event spam filter: a token bucket per source and involved object, as client-go's
 * EventSourceObjectSpamFilter does it, so that an object that is always unhealthy (or a hot loop)
 * cannot flood the API with events about it.
 */
import type { Clock, Event } from '@setpoint/api';
import { LruCache } from './lru.js';

/**
 * A token bucket that starts full: take() succeeds `burst` times at once, then once per
 * `refillIntervalMs` (client-go's flowcontrol token bucket, used passively: never waits).
 */
export class TokenBucket {
  readonly #burst: number;
  readonly #refillIntervalMs: number;
  #tokens: number;
  #at: number;

  constructor(burst: number, refillIntervalMs: number, now: number) {
    this.#burst = burst;
    this.#refillIntervalMs = refillIntervalMs;
    this.#tokens = burst;
    this.#at = now;
  }

  /** Takes a token if one is available at `now`. */
  take(now: number): boolean {
    if (now > this.#at) {
      this.#tokens = Math.min(this.#burst, this.#tokens + (now - this.#at) / this.#refillIntervalMs);
      this.#at = now;
    }
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}

/** The spam key: the source and the involved object (not the reason or message), as client-go's getSpamKey. */
export function spamKey(event: Event): string {
  const o = event.involvedObject;
  return JSON.stringify([event.source?.component ?? '', event.source?.host ?? '', o.kind ?? '', o.namespace ?? '', o.name ?? '', o.uid ?? '', o.apiVersion ?? '']);
}

/**
 * Says which events to drop: each source+object may send `burst` events, then one per
 * `refillIntervalMs`. Remembers the `cacheSize` most recently seen objects (a forgotten object
 * starts again with a full bucket).
 * Throws: the constructor throws a RangeError for a burst < 1 or a refill interval ≤ 0.
 */
export class EventSpamFilter {
  readonly #buckets: LruCache<string, TokenBucket>;
  readonly #burst: number;
  readonly #refillIntervalMs: number;
  readonly #clock: Clock;

  constructor(options: { burst: number; refillIntervalMs: number; cacheSize: number; clock: Clock }) {
    if (!Number.isInteger(options.burst) || options.burst < 1) throw new RangeError(`EventSpamFilter: burst must be an integer >= 1, got ${options.burst}`);
    if (!(options.refillIntervalMs > 0)) throw new RangeError(`EventSpamFilter: refillIntervalMs must be > 0, got ${options.refillIntervalMs}`);
    this.#buckets = new LruCache(options.cacheSize);
    this.#burst = options.burst;
    this.#refillIntervalMs = options.refillIntervalMs;
    this.#clock = options.clock;
  }

  /** True when the event must be dropped: its source+object has used up its budget. */
  filter(event: Event): boolean {
    const key = spamKey(event);
    const now = this.#clock.now();
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = new TokenBucket(this.#burst, this.#refillIntervalMs, now);
      this.#buckets.set(key, bucket);
    }
    return !bucket.take(now);
  }
}
