/**
 * What the conformance tests stand on: the `Fixture` every test gets (its store, its watches, the way
 * to reopen it), the `History` model of the writes a test made, the deadline-bound `WatchReader`, and
 * the small helpers the test groups share.
 *
 * Guarantees: nothing waits on a fixed sleep: every wait has a deadline (WAIT_MS) and fails the test
 * saying what it waited for.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import {
  isStoreError,
  type CompactResult,
  type CountResult,
  type KeyValue,
  type Store,
  type StoreError,
  type StoreErrorCode,
  type StoreOptions,
  type WatchEvent,
  type WatchOptions,
} from '../store.js';
import type { OpenedStore } from './index.js';
import { DeadlineExceeded, within as withinDeadline } from '@setpoint/api';

/** The longest any single awaited thing (a write, an event, an end) may take before the test fails. */
export const WAIT_MS = 5_000;

/** Registers one test: `body` gets a fixture around a store opened with `options`. */
export type Register = (name: string, body: (fx: Fixture, t: TestContext) => Promise<void>, options?: StoreOptions) => void;
/** Registers one test of a persistent backend, whose fixture can reopen its store. */
export type RegisterReopen = (name: string, body: (fx: Fixture) => Promise<void>) => void;

/** One test's store, its watches, and the way to reopen it. */
export class Fixture {
  store: Store;
  private readonly readers: WatchReader[] = [];

  constructor(private readonly opened: OpenedStore) {
    this.store = opened.store;
  }

  get canReopen(): boolean {
    return this.opened.reopen !== undefined;
  }

  /** A watch the fixture aborts when the test ends. */
  watch(prefix: string, fromRevision: number, options: Omit<WatchOptions, 'signal'> = {}): WatchReader {
    const reader = new WatchReader(this.store, prefix, fromRevision, options);
    this.readers.push(reader);
    return reader;
  }

  /** A history model starting at the current revision. */
  async history(): Promise<History> {
    return new History(this, await this.store.currentRevision());
  }

  async reopen(): Promise<Store> {
    const reopen = this.opened.reopen;
    assert.ok(reopen, 'the harness cannot reopen');
    this.store = await within(reopen(), 'reopen');
    return this.store;
  }

  async dispose(): Promise<void> {
    for (const reader of this.readers) reader.abort();
    await this.opened.dispose();
  }
}

/** Every write a test made through it, in revision order: the expected answers of get, list and watch. */
export class History {
  private readonly events: WatchEvent[] = [];
  private readonly revisions = new Set<number>();
  private readonly live = new Map<string, KeyValue>();

  constructor(
    private readonly fx: Fixture,
    readonly baseRevision: number,
  ) {}

  /** The highest revision written (the base revision before any write). */
  get lastRevision(): number {
    return Math.max(this.baseRevision, ...this.revisions);
  }

  current(key: string): KeyValue | undefined {
    return this.live.get(key);
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const kv = await this.fx.store.create(key, value);
    assert.deepEqual(plainKv(kv), { key, value, createRevision: kv.modRevision, modRevision: kv.modRevision }, `create(${key}) returns the new version`);
    this.record({ type: 'create', revision: kv.modRevision, kv });
    this.live.set(key, kv);
    return kv;
  }

  async update(key: string, value: string): Promise<KeyValue> {
    const prev = this.live.get(key);
    assert.ok(prev, `test bug: update of ${key}, which the history holds as absent`);
    const kv = await this.fx.store.update(key, value, prev.modRevision);
    assert.deepEqual(plainKv(kv), { key, value, createRevision: prev.createRevision, modRevision: kv.modRevision }, `update(${key}) returns the new version`);
    assert.ok(kv.modRevision > prev.modRevision, `update(${key}): revision ${kv.modRevision} not above ${prev.modRevision}`);
    this.record({ type: 'update', revision: kv.modRevision, kv, prev });
    this.live.set(key, kv);
    return kv;
  }

  /** Deletes `key`, guarded by its modRevision when `guarded`; returns the deletion's revision. */
  async delete(key: string, guarded = false): Promise<number> {
    const prev = this.live.get(key);
    assert.ok(prev, `test bug: delete of ${key}, which the history holds as absent`);
    const result = await this.fx.store.delete(key, guarded ? prev.modRevision : undefined);
    assert.deepEqual(plainKv(result.prev), plainKv(prev), `delete(${key}) returns the deleted version`);
    assert.ok(result.revision > prev.modRevision, `delete(${key}): revision ${result.revision} not above ${prev.modRevision}`);
    this.record({ type: 'delete', revision: result.revision, key, prev });
    this.live.delete(key);
    return result.revision;
  }

  /** The events with a revision above `from` on keys starting with `prefix`, in revision order. */
  eventsAfter(from: number, prefix = ''): WatchEvent[] {
    return this.sorted().filter((e) => e.revision > from && eventKey(e).startsWith(prefix));
  }

  /** The live versions of keys starting with `prefix` at `revision`, in key order. */
  stateAt(revision: number, prefix = ''): KeyValue[] {
    const state = new Map<string, KeyValue>();
    for (const e of this.sorted()) {
      if (e.revision > revision) break;
      if (e.type === 'create' || e.type === 'update') state.set(e.kv.key, plainKv(e.kv));
      else if (e.type === 'delete') state.delete(e.key);
    }
    return [...state.values()].filter((kv) => kv.key.startsWith(prefix)).sort((a, b) => compareKeys(a.key, b.key));
  }

  private record(event: WatchEvent): void {
    assert.ok(!this.revisions.has(event.revision), `revision ${event.revision} was given to two writes`);
    assert.ok(event.revision > this.baseRevision, `revision ${event.revision} is not above the base ${this.baseRevision}`);
    this.revisions.add(event.revision);
    this.events.push(event);
  }

  private sorted(): WatchEvent[] {
    return [...this.events].sort((a, b) => a.revision - b.revision);
  }
}

/** Creates, updates (same value too), deletes (guarded and not) and re-creates keys under `prefix`. */
export async function writeMixedHistory(h: History, prefix: string): Promise<void> {
  await h.create(`${prefix}a`, 'a1');
  await h.create(`${prefix}b`, 'b1');
  await h.update(`${prefix}a`, 'a2');
  await h.create(`${prefix}c`, 'c1');
  await h.delete(`${prefix}b`);
  await h.update(`${prefix}c`, 'c2');
  await h.update(`${prefix}a`, 'a3');
  await h.create(`${prefix}b`, 'b2');
  await h.update(`${prefix}b`, 'b3');
  await h.delete(`${prefix}a`, true);
  await h.create(`${prefix}a`, 'a4');
  await h.delete(`${prefix}c`);
  await h.create(`${prefix}d/e`, 'de1');
  await h.update(`${prefix}a`, 'a4');
  await h.delete(`${prefix}d/e`, true);
  await h.create(`${prefix}😀`, 'emoji');
}

/** `writers` concurrent writers, each creating its key /w/<n>, updating it, and deleting it: `writes` writes each. */
export async function runWriters(h: History, writers: number, writes: number): Promise<void> {
  await Promise.all(
    range(0, writers - 1).map(async (w) => {
      const key = `/w/${pad(w)}`;
      await h.create(key, '0');
      for (let i = 1; i < writes - 1; i++) await h.update(key, String(i));
      await h.delete(key);
    }),
  );
}

/** Reads one watch, every read with a deadline. A read that timed out stays pending for the next call. */
export class WatchReader {
  private readonly controller = new AbortController();
  private readonly iterator: AsyncIterableIterator<WatchEvent>;
  private pending: Promise<IteratorResult<WatchEvent>> | undefined;

  constructor(store: Store, prefix: string, fromRevision: number, options: Omit<WatchOptions, 'signal'>) {
    this.iterator = store.watch(prefix, fromRevision, { ...options, signal: this.controller.signal });
  }

  abort(): void {
    this.controller.abort();
  }

  /** The next result of the iterator, progress events included. */
  async step(what: string): Promise<IteratorResult<WatchEvent>> {
    const pending = (this.pending ??= this.iterator.next());
    try {
      const result = await within(pending, what);
      this.pending = undefined;
      return result;
    } catch (err) {
      if (!(err instanceof DeadlineExceeded)) this.pending = undefined;
      throw err;
    }
  }

  /** The next event, progress events included; fails when the watch ends. */
  async stepValue(what: string): Promise<WatchEvent> {
    const result = await this.step(what);
    if (result.done === true) assert.fail(`${what}: the watch ended`);
    return result.value;
  }

  /** The next change (progress events skipped); fails when the watch ends. */
  async next(what: string): Promise<WatchEvent> {
    for (;;) {
      const event = await this.stepValue(what);
      if (event.type !== 'progress') return event;
    }
  }

  async take(count: number, what: string): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    while (events.length < count) events.push(await this.next(`${what} (${events.length} of ${count} so far)`));
    return events;
  }

  /** Changes up to and including the first one at or above `revision`. */
  async until(revision: number, what: string): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    for (;;) {
      const event = await this.next(`${what} (up to revision ${revision}; ${events.length} so far)`);
      events.push(event);
      if (event.revision >= revision) return events;
    }
  }

  /** The changes delivered until the iterator ends; fails when it throws. */
  async end(what: string): Promise<WatchEvent[]> {
    const events: WatchEvent[] = [];
    for (;;) {
      const result = await this.step(what);
      if (result.done === true) return events;
      if (result.value.type !== 'progress') events.push(result.value);
    }
  }

  /** Waits until the iterator ends, normally or with StoreError Closed, delivering no change first. */
  async endOrClosed(what: string): Promise<void> {
    try {
      assert.deepEqual(await this.end(what), [], `${what}: no events`);
    } catch (err) {
      if (!isStoreError(err, 'Closed')) throw err;
    }
  }

  /** The changes delivered until the iterator throws, and what it threw; fails when it ends normally. */
  async failure(what: string): Promise<{ events: WatchEvent[]; error: unknown }> {
    const events: WatchEvent[] = [];
    for (;;) {
      let result: IteratorResult<WatchEvent>;
      try {
        result = await this.step(what);
      } catch (err) {
        if (err instanceof DeadlineExceeded) throw err;
        return { events, error: err };
      }
      if (result.done === true) assert.fail(`${what}: the watch ended without an error after ${events.length} events`);
      if (result.value.type !== 'progress') events.push(result.value);
    }
  }
}

/** `promise`, or a DeadlineExceeded failure naming `what` after `ms` (@setpoint/api's `within`, WAIT_MS by default). */
export function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  return withinDeadline(promise, what, ms);
}

/** Runs `action` and returns the StoreError with `code` it throws; fails on success or any other error. */
export async function expectStoreError(action: () => Promise<unknown>, code: StoreErrorCode, what: string): Promise<StoreError> {
  let result: unknown;
  try {
    result = await action();
  } catch (err) {
    if (isStoreError(err, code)) return err;
    assert.fail(`${what}: expected StoreError ${code}, got ${describeError(err)}`);
  }
  assert.fail(`${what}: expected StoreError ${code}, but it succeeded with ${describeValue(result)}`);
}

export function assertEvents(actual: readonly WatchEvent[], expected: readonly WatchEvent[], what: string): void {
  assert.deepEqual(actual.map((e) => e.revision), expected.map((e) => e.revision), `${what}: the revisions of the events`);
  assert.deepEqual(actual.map(plainEvent), expected.map(plainEvent), `${what}: the events`);
}

export async function getKv(store: Store, key: string): Promise<KeyValue> {
  const kv = await store.get(key);
  assert.ok(kv, `get(${key}) found nothing`);
  return kv;
}

/** The fields the contract defines, as a plain object (backends may return richer objects). */
export function plainKv(kv: KeyValue): KeyValue;
export function plainKv(kv: KeyValue | undefined): KeyValue | undefined;
export function plainKv(kv: KeyValue | undefined): KeyValue | undefined {
  return kv === undefined ? undefined : { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
}

export function plainCount(result: CountResult): CountResult {
  return { count: result.count, revision: result.revision };
}

export function plainCompact(result: CompactResult): CompactResult {
  return { compactRevision: result.compactRevision, removed: result.removed };
}

export function plainEvent(e: WatchEvent): WatchEvent {
  switch (e.type) {
    case 'create':
      return { type: e.type, revision: e.revision, kv: plainKv(e.kv) };
    case 'update':
      return { type: e.type, revision: e.revision, kv: plainKv(e.kv), prev: plainKv(e.prev) };
    case 'delete':
      return { type: e.type, revision: e.revision, key: e.key, prev: plainKv(e.prev) };
    case 'progress':
      return { type: e.type, revision: e.revision };
  }
}

export function eventKey(e: WatchEvent): string {
  switch (e.type) {
    case 'create':
    case 'update':
      return e.kv.key;
    case 'delete':
      return e.key;
    case 'progress':
      return '';
  }
}

/** Code-point order, which is UTF-8 byte order: the order the contract requires. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export function describeError(err: unknown): string {
  if (isStoreError(err)) return `StoreError ${err.code}: ${err.message}`;
  if (err instanceof Error) return `${err.name}: ${err.message}`;
  return describeValue(err);
}

export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

export function item<T>(items: readonly T[], index: number): T {
  const value = items[index];
  assert.ok(value !== undefined, `no item ${index} among ${items.length}`);
  return value;
}

/** The integers from `first` to `last`, inclusive. */
export function range(first: number, last: number): number[] {
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

export function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** A fixed permutation (reversed halves), so insertion order differs from key order without randomness. */
export function shuffled<T>(items: readonly T[]): T[] {
  const half = Math.ceil(items.length / 2);
  return [...items.slice(half).reverse(), ...items.slice(0, half)];
}
