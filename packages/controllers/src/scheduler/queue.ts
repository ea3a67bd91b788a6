/**
 * SchedulingQueue: the pods waiting for a node, in three places as kube-scheduler keeps them.
 *
 * - active: ready to be tried, highest spec.priority first, then oldest creationTimestamp, then
 *   first queued. pop() hands out the head (waiting while there is none) and marks it in flight.
 * - backoff: tried and failed recently; each waits until lastFailure + backoff, where backoff is
 *   initialBackoffMs doubled per attempt up to maxBackoffMs (1 s, 2 s, 4 s, 8 s, 10 s, 10 s …),
 *   then moves to active.
 * - unschedulable: found no node; waits for a cluster change that may help — moveAll(), called
 *   by the scheduler on node additions, relevant node changes and pods leaving nodes — and goes
 *   to backoff or active then; or, failing any such change, for maxUnschedulableMs (5 min).
 *
 * Guarantees: a pod is in one place at a time, or in flight; a pod never waits in unschedulable
 * without a timer that will move it (no pod is forgotten, and no timer runs while nothing waits:
 * no busy loop). A relevant change that happens while a pod is in flight sends it to backoff
 * rather than unschedulable when its attempt fails, so the change is not missed. Timers run on the
 * injected clock. Assumes one consumer calls pop() and then exactly one of requeueUnschedulable,
 * requeueBackoff or done for the pod it got.
 */
import { realClock, type Clock, type Timer } from '@setpoint/api';
import { Heap, type HeapItem } from './heap.js';

/** What orders a pod in the queue, and which changes can help it. */
export interface QueueAttributes {
  readonly priority: number;
  readonly creationMs: number;
  /** Changes to placed pods (not only deletions) can make it fit: it has pod affinity, anti-affinity or spread constraints. */
  readonly dependsOnPods: boolean;
}

/** A pod in the queue. Read-only for callers. */
export interface QueuedPod extends HeapItem {
  readonly key: string;
  priority: number;
  creationMs: number;
  dependsOnPods: boolean;
  /** Order of first arrival. */
  readonly seq: number;
  /** Attempts so far (counted at pop). */
  attempts: number;
  /** Clock time the last failed attempt was requeued. */
  lastFailureMs: number;
  /** Clock time it entered unschedulable. */
  unschedulableSinceMs: number;
  where: 'active' | 'backoff' | 'unschedulable' | 'inflight';
  /** In flight only: a change that may help came meanwhile. */
  movedInFlight: boolean;
  /** In flight only: deleted meanwhile. */
  deleted: boolean;
}

export interface SchedulingQueueOptions {
  /** Default realClock. */
  readonly clock?: Clock;
  /** Default 1,000 ms (kube-scheduler's podInitialBackoffSeconds). */
  readonly initialBackoffMs?: number;
  /** Default 10,000 ms (podMaxBackoffSeconds). */
  readonly maxBackoffMs?: number;
  /** Default 300,000 ms (podMaxInUnschedulablePodsDuration). */
  readonly maxUnschedulableMs?: number;
}

const activeBefore = (a: QueuedPod, b: QueuedPod) =>
  a.priority !== b.priority ? a.priority > b.priority : a.creationMs !== b.creationMs ? a.creationMs < b.creationMs : a.seq < b.seq;

export class SchedulingQueue {
  readonly #clock: Clock;
  readonly #initialBackoffMs: number;
  readonly #maxBackoffMs: number;
  readonly #maxUnschedulableMs: number;
  readonly #pods = new Map<string, QueuedPod>();
  readonly #active = new Heap<QueuedPod>(activeBefore);
  readonly #backoff: Heap<QueuedPod>;
  /** Insertion order is time order: entries only ever join at the end, at the clock's now. */
  readonly #unschedulable = new Map<string, QueuedPod>();
  /** Pods handed out by pop() and not yet requeued or done. */
  readonly #inflight = new Set<QueuedPod>();
  #waiters: Array<(pod: QueuedPod | undefined) => void> = [];
  #seq = 0;
  #closed = false;
  #backoffTimer: Timer | undefined;
  #backoffDue = Infinity;
  #flushTimer: Timer | undefined;
  #flushDue = Infinity;

  constructor(options: SchedulingQueueOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#initialBackoffMs = options.initialBackoffMs ?? 1000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 10_000;
    this.#maxUnschedulableMs = options.maxUnschedulableMs ?? 300_000;
    this.#backoff = new Heap<QueuedPod>((a, b) => {
      const da = this.backoffExpiry(a);
      const db = this.backoffExpiry(b);
      return da !== db ? da < db : activeBefore(a, b);
    });
  }

  /** The backoff after `attempts` failed attempts: initial × 2^(attempts−1), at most max. */
  backoffMs(attempts: number): number {
    let d = this.#initialBackoffMs;
    for (let i = 1; i < attempts; i++) {
      d *= 2;
      if (d >= this.#maxBackoffMs) return this.#maxBackoffMs;
    }
    return Math.min(d, this.#maxBackoffMs);
  }

  /** When `pod`'s backoff ends (clock ms). */
  backoffExpiry(pod: QueuedPod): number {
    return pod.lastFailureMs + this.backoffMs(pod.attempts);
  }

  /** Adds a pending pod to active, or updates the attributes of one already queued. */
  add(key: string, attributes: QueueAttributes): void {
    this.update(key, attributes, false);
  }

  /**
   * Adds or updates a pod. `changed`: its spec or metadata changed in a way that may make it fit,
   * so an unschedulable pod moves (to backoff or active) and one in flight will retry.
   */
  update(key: string, attributes: QueueAttributes, changed: boolean): void {
    if (this.#closed) return;
    let pod = this.#pods.get(key);
    if (pod === undefined) {
      pod = { key, ...attributes, seq: this.#seq++, attempts: 0, lastFailureMs: 0, unschedulableSinceMs: 0, where: 'active', movedInFlight: false, deleted: false, heapIndex: -1 };
      this.#pods.set(key, pod);
      this.#toActive(pod);
      return;
    }
    pod.priority = attributes.priority;
    pod.creationMs = attributes.creationMs;
    pod.dependsOnPods = attributes.dependsOnPods;
    if (pod.where === 'active') this.#active.fix(pod);
    else if (pod.where === 'backoff') this.#backoff.fix(pod);
    if (pod.deleted) {
      // Deleted and back (a new pod of the same name) while in flight: retry it after the attempt.
      pod.deleted = false;
      pod.movedInFlight = true;
    }
    if (!changed) return;
    if (pod.where === 'unschedulable') this.#wake(pod);
    else if (pod.where === 'inflight') pod.movedInFlight = true;
  }

  /** Drops a pod (deleted, bound, or no longer ours). */
  delete(key: string): void {
    const pod = this.#pods.get(key);
    if (pod === undefined) return;
    if (pod.where === 'inflight') {
      pod.deleted = true;
      return;
    }
    this.#detach(pod);
    this.#pods.delete(key);
  }

  /** Whether `key` is queued anywhere or in flight. */
  has(key: string): boolean {
    return this.#pods.has(key);
  }

  /** The next pod to try (the head of active), waiting for one; undefined once closed. */
  pop(): Promise<QueuedPod | undefined> {
    if (this.#closed) return Promise.resolve(undefined);
    const pod = this.#takeActive();
    if (pod !== undefined) return Promise.resolve(pod);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** After an attempt found no node: unschedulable, or backoff if a helpful change came meanwhile. */
  requeueUnschedulable(pod: QueuedPod): void {
    if (this.#finishFlight(pod)) return;
    pod.lastFailureMs = this.#clock.now();
    if (pod.movedInFlight) {
      pod.movedInFlight = false;
      this.#toBackoff(pod);
      return;
    }
    pod.where = 'unschedulable';
    pod.unschedulableSinceMs = pod.lastFailureMs;
    this.#unschedulable.set(pod.key, pod);
    this.#armFlush();
  }

  /** After an attempt that failed for another reason (an error, a failed binding): backoff. */
  requeueBackoff(pod: QueuedPod): void {
    if (this.#finishFlight(pod)) return;
    pod.lastFailureMs = this.#clock.now();
    pod.movedInFlight = false;
    this.#toBackoff(pod);
  }

  /** After an attempt that placed the pod: it leaves the queue. */
  done(pod: QueuedPod): void {
    if (pod.where !== 'inflight' || this.#pods.get(pod.key) !== pod) return;
    this.#inflight.delete(pod);
    this.#pods.delete(pod.key);
  }

  /**
   * A cluster change that may help: every unschedulable pod `wakes` selects (default all) moves to
   * backoff (if still backing off) or active, and selected pods in flight will retry if they fail.
   * Returns how many pods moved.
   */
  moveAll(wakes: (pod: QueuedPod) => boolean = () => true): number {
    let moved = 0;
    for (const pod of this.#inflight) if (wakes(pod)) pod.movedInFlight = true;
    for (const pod of [...this.#unschedulable.values()]) {
      if (!wakes(pod)) continue;
      this.#wake(pod);
      moved++;
    }
    return moved;
  }

  /** How many pods wait in each place (in-flight pods are in none). */
  counts(): { active: number; backoff: number; unschedulable: number } {
    return { active: this.#active.size, backoff: this.#backoff.size, unschedulable: this.#unschedulable.size };
  }

  /** Stops the timers and releases a waiting pop() with undefined. Idempotent. */
  close(): void {
    this.#closed = true;
    this.#backoffTimer?.cancel();
    this.#flushTimer?.cancel();
    this.#backoffTimer = this.#flushTimer = undefined;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w(undefined);
  }

  /** Ends a flight; true when the pod was deleted meanwhile (and is now dropped). */
  #finishFlight(pod: QueuedPod): boolean {
    if (pod.where !== 'inflight' || this.#pods.get(pod.key) !== pod) return true;
    this.#inflight.delete(pod);
    if (pod.deleted || this.#closed) {
      this.#pods.delete(pod.key);
      return true;
    }
    return false;
  }

  #takeActive(): QueuedPod | undefined {
    const pod = this.#active.pop();
    if (pod === undefined) return undefined;
    pod.where = 'inflight';
    this.#inflight.add(pod);
    pod.attempts++;
    pod.movedInFlight = false;
    return pod;
  }

  #detach(pod: QueuedPod): void {
    if (pod.where === 'active') this.#active.remove(pod);
    else if (pod.where === 'backoff') this.#backoff.remove(pod);
    else if (pod.where === 'unschedulable') this.#unschedulable.delete(pod.key);
  }

  /** From unschedulable to backoff or active. */
  #wake(pod: QueuedPod): void {
    this.#unschedulable.delete(pod.key);
    this.#toBackoff(pod);
  }

  #toBackoff(pod: QueuedPod): void {
    if (this.backoffExpiry(pod) <= this.#clock.now()) {
      this.#toActive(pod);
      return;
    }
    pod.where = 'backoff';
    this.#backoff.push(pod);
    this.#armBackoff();
  }

  #toActive(pod: QueuedPod): void {
    pod.where = 'active';
    this.#active.push(pod);
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) waiter(this.#takeActive());
  }

  #armBackoff(): void {
    const head = this.#backoff.peek();
    const due = head === undefined ? Infinity : this.backoffExpiry(head);
    if (due === this.#backoffDue || this.#closed) return;
    this.#backoffTimer?.cancel();
    this.#backoffTimer = undefined;
    this.#backoffDue = due;
    if (head === undefined) return;
    this.#backoffTimer = this.#clock.setTimeout(() => this.#flushBackoff(), due - this.#clock.now()).unref();
  }

  #flushBackoff(): void {
    this.#backoffTimer = undefined;
    this.#backoffDue = Infinity;
    const now = this.#clock.now();
    for (let head = this.#backoff.peek(); head !== undefined && this.backoffExpiry(head) <= now; head = this.#backoff.peek()) {
      this.#backoff.pop();
      this.#toActive(head);
    }
    this.#armBackoff();
  }

  #armFlush(): void {
    const first = this.#unschedulable.values().next();
    const due = first.done === true ? Infinity : first.value.unschedulableSinceMs + this.#maxUnschedulableMs;
    if (due === this.#flushDue || this.#closed) return;
    this.#flushTimer?.cancel();
    this.#flushTimer = undefined;
    this.#flushDue = due;
    if (first.done === true) return;
    this.#flushTimer = this.#clock.setTimeout(() => this.#flushUnschedulable(), due - this.#clock.now()).unref();
  }

  /** Pods unschedulable for maxUnschedulableMs are tried again, change or not. */
  #flushUnschedulable(): void {
    this.#flushTimer = undefined;
    this.#flushDue = Infinity;
    const now = this.#clock.now();
    for (const pod of [...this.#unschedulable.values()]) {
      if (pod.unschedulableSinceMs + this.#maxUnschedulableMs > now) break;
      this.#wake(pod);
    }
    this.#armFlush();
  }
}
