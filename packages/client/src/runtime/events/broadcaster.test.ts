import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, FakeClock, recordingLogger, type Event, type KubeObject } from '@setpoint/api';
import { EventBroadcaster, type EventBroadcasterOptions, type EventClient } from './broadcaster.js';
import type { EventPatch } from './correlator.js';
import { FakeEventRecorder } from './fake.js';
import type { EventType } from './recorder.js';

const EVENTS = { group: '', resource: 'events' };

/** Events in memory; each call is logged with the time it was made. Errors queued in `failures` are thrown first. */
class FakeEventClient implements EventClient {
  readonly stored = new Map<string, Event>();
  readonly calls: Array<{ verb: 'create' | 'patch'; name: string; body: Event | EventPatch; at: number }> = [];
  readonly failures: Error[] = [];
  latencyMs = 0;
  constructor(readonly clock: FakeClock) {}

  async create(obj: Event): Promise<Event> {
    const name = obj.metadata.name ?? '';
    this.calls.push({ verb: 'create', name, body: structuredClone(obj), at: this.clock.now() });
    await this.#delay();
    const key = `${obj.metadata.namespace}/${name}`;
    if (this.stored.has(key)) throw ApiError.alreadyExists(EVENTS, name);
    const stored = { ...structuredClone(obj), metadata: { ...obj.metadata, resourceVersion: '1' } };
    this.stored.set(key, stored);
    return structuredClone(stored);
  }

  async patch(name: string, patch: EventPatch, options: { namespace: string; type: 'merge' }): Promise<Event> {
    assert.equal(options.type, 'merge');
    this.calls.push({ verb: 'patch', name, body: structuredClone(patch), at: this.clock.now() });
    await this.#delay();
    const current = this.stored.get(`${options.namespace}/${name}`);
    if (current === undefined) throw ApiError.notFound(EVENTS, name);
    Object.assign(current, patch);
    return structuredClone(current);
  }

  async #delay(): Promise<void> {
    if (this.latencyMs > 0) await this.clock.sleep(this.latencyMs);
    const failure = this.failures.shift();
    if (failure !== undefined) throw failure;
  }

  only(): Event {
    assert.equal(this.stored.size, 1, 'exactly one Event');
    return [...this.stored.values()][0] as Event;
  }
}

function setup(options: Partial<EventBroadcasterOptions> = {}) {
  const clock = new FakeClock();
  const client = new FakeEventClient(clock);
  const logger = recordingLogger();
  const broadcaster = new EventBroadcaster({ client, clock, logger, random: () => 0.5, ...options });
  const recorder = broadcaster.newRecorder({ component: 'web-controller', host: 'node-1' });
  return { clock, client, logger, broadcaster, recorder };
}

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'prod', uid: 'u-1', resourceVersion: '7' } };

describe('EventBroadcaster', () => {
  it('creates the Event Kubernetes expects', async () => {
    const { client, broadcaster, recorder } = setup();
    recorder.event(pod, 'Warning', 'FailedCreate', 'quota exceeded');
    assert.equal(client.calls.length, 0, 'the write happens after the call returned');
    await broadcaster.flush();
    const event = client.only();
    assert.match(event.metadata.name ?? '', /^web-1\.[0-9a-f]+$/);
    const nanos = BigInt(`0x${(event.metadata.name ?? '').split('.')[1]}`);
    assert.equal(nanos / 1_000_000n, BigInt(Date.UTC(2026, 0, 1)));
    assert.equal(event.metadata.namespace, 'prod');
    assert.deepEqual(event.involvedObject, { kind: 'Pod', namespace: 'prod', name: 'web-1', uid: 'u-1', apiVersion: 'v1', resourceVersion: '7' });
    assert.equal(event.type, 'Warning');
    assert.equal(event.reason, 'FailedCreate');
    assert.equal(event.message, 'quota exceeded');
    assert.deepEqual(event.source, { component: 'web-controller', host: 'node-1' });
    assert.equal(event.reportingComponent, 'web-controller');
    assert.equal(event.reportingInstance, 'node-1');
    assert.equal(event.firstTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(event.lastTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(event.count, 1);
    assert.equal(event.eventTime, undefined);
  });

  it('puts events about cluster-scoped objects in "default", and formats eventf messages', async () => {
    const { client, broadcaster, recorder } = setup();
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-7', uid: 'n-7' } };
    recorder.eventf(node, 'Normal', 'NodeReady', 'Node %s status is now: %s (%d)', 'node-7', 'NodeReady', 3);
    await broadcaster.flush();
    const event = client.only();
    assert.equal(event.metadata.namespace, 'default');
    assert.equal(event.involvedObject.namespace, undefined);
    assert.equal(event.message, 'Node node-7 status is now: NodeReady (3)');
  });

  it('aggregates repeats into one Event: a patch of count and lastTimestamp', async () => {
    const { clock, client, broadcaster, recorder } = setup();
    for (let i = 0; i < 3; i++) {
      recorder.event(pod, 'Normal', 'Scaled', 'scaled to 3');
      await broadcaster.flush();
      await clock.advance(1_000);
    }
    assert.deepEqual(
      client.calls.map((c) => c.verb),
      ['create', 'patch', 'patch'],
    );
    assert.deepEqual(client.calls[2]?.body, { count: 3, lastTimestamp: '2026-01-01T00:00:02Z', message: 'scaled to 3' });
    const event = client.only();
    assert.equal(event.count, 3);
    assert.equal(event.firstTimestamp, '2026-01-01T00:00:00Z');
    assert.equal(event.lastTimestamp, '2026-01-01T00:00:02Z');
  });

  it('folds repeats that are still waiting into the waiting write', async () => {
    const { client, broadcaster, recorder } = setup();
    for (let i = 0; i < 3; i++) recorder.event(pod, 'Normal', 'Scaled', 'scaled to 3');
    recorder.event(pod, 'Normal', 'Other', 'something else');
    await broadcaster.flush();
    assert.deepEqual(client.calls.map((c) => [c.verb, (c.body as Event).reason]), [['create', 'Scaled'], ['create', 'Other']]);
    assert.equal((client.calls[0]?.body as Event).count, 3);
  });

  it('rate-limits events about one object (burst, then one per refill interval); other objects are not affected', async () => {
    const { clock, client, broadcaster, recorder } = setup({ spamBurst: 25, spamRefillIntervalMs: 300_000 });
    for (let i = 0; i < 100; i++) {
      recorder.event(pod, 'Warning', 'Unhealthy', 'probe failed');
      await broadcaster.flush();
    }
    assert.equal(client.calls.length, 25);
    assert.equal(client.only().count, 25);

    const other: KubeObject = { ...pod, metadata: { ...pod.metadata, name: 'web-2', uid: 'u-2' } };
    recorder.event(other, 'Warning', 'Unhealthy', 'probe failed');
    await broadcaster.flush();
    assert.equal(client.calls.length, 26);

    await clock.advance(299_000);
    recorder.event(pod, 'Warning', 'Unhealthy', 'probe failed');
    await broadcaster.flush();
    assert.equal(client.calls.length, 26, 'no token yet');
    await clock.advance(1_000);
    recorder.event(pod, 'Warning', 'Unhealthy', 'probe failed');
    await broadcaster.flush();
    assert.equal(client.calls.length, 27);
    assert.deepEqual(client.calls.at(-1)?.body, { count: 102, lastTimestamp: '2026-01-01T00:05:00Z', message: 'probe failed' });
  });

  it('keeps a hot loop from flooding the API, without ever blocking it', async () => {
    const { clock, client, broadcaster, recorder } = setup();
    client.latencyMs = 50;
    for (let i = 0; i < 20_000; i++) recorder.event(pod, 'Warning', 'SyncFailed', `attempt ${i % 50}`);
    assert.equal(client.calls.length, 0, 'nothing is written inside the loop');
    const flushed = broadcaster.flush();
    await clock.advance(60_000);
    await flushed;
    assert.ok(client.calls.length <= 25, `${client.calls.length} writes`);
    // More than 10 different messages of one reason are folded into a combined Event.
    assert.ok([...client.stored.values()].some((e) => e.message?.startsWith('(combined from similar events): ')));
  });

  it('retries transport errors with a randomised first wait, but not rejections by the server', async () => {
    const { clock, client, logger, broadcaster, recorder } = setup({ retryIntervalMs: 10_000 });
    client.failures.push(new Error('socket hang up'), new ApiError('ServiceUnavailable', 'POST /api/v1/namespaces/prod/events: connect ECONNREFUSED'));
    recorder.event(pod, 'Normal', 'Started', 'started');
    await clock.advance(60_000);
    await broadcaster.flush();
    assert.deepEqual(client.calls.map((c) => c.at - Date.UTC(2026, 0, 1)), [0, 5_000, 15_000]);
    assert.equal(client.stored.size, 1);

    client.failures.push(new ApiError('Invalid', 'Event "x" is invalid'));
    recorder.event(pod, 'Normal', 'Stopped', 'stopped');
    await clock.advance(60_000);
    await broadcaster.flush();
    assert.equal(client.calls.length, 4);
    assert.ok(logger.lines.some((l) => l.level === 'error' && l.message === 'the server rejected the event (will not retry)'));
  });

  it('gives up after maxTries', async () => {
    const { clock, client, logger, broadcaster, recorder } = setup({ maxTries: 3 });
    client.failures.push(new Error('down'), new Error('down'), new Error('down'), new Error('down'));
    recorder.event(pod, 'Normal', 'Started', 'started');
    await clock.advance(60_000);
    await broadcaster.flush();
    assert.equal(client.calls.length, 3);
    assert.ok(logger.lines.some((l) => l.level === 'error' && l.message === 'unable to write the event (retry limit exceeded)'));
  });

  it('creates the Event again, with the count so far, when a patch finds it gone', async () => {
    const { client, broadcaster, recorder } = setup();
    recorder.event(pod, 'Normal', 'Scaled', 'scaled');
    await broadcaster.flush();
    const name = client.only().metadata.name;
    client.stored.clear();
    recorder.event(pod, 'Normal', 'Scaled', 'scaled');
    await broadcaster.flush();
    assert.deepEqual(client.calls.map((c) => c.verb), ['create', 'patch', 'create']);
    const again = client.only();
    assert.equal(again.metadata.name, name);
    assert.equal(again.count, 2);
    assert.equal(again.metadata.resourceVersion, '1');
  });

  it('never throws to the caller, and drops with a log line what it cannot record', async () => {
    const { client, logger, broadcaster, recorder } = setup({ maxTries: 1 });
    recorder.event({ metadata: { name: 'no-kind' } }, 'Normal', 'X', 'y');
    recorder.event(pod, 'Bogus' as EventType, 'X', 'y');
    client.create = () => {
      throw new Error('thrown, not rejected');
    };
    recorder.event(pod, 'Normal', 'X', 'y');
    await broadcaster.flush();
    assert.ok(logger.lines.some((l) => l.level === 'error' && l.message === 'cannot make a reference to the object (no kind or name); dropping the event'));
    assert.ok(logger.lines.some((l) => l.level === 'error' && l.message === 'unsupported event type; dropping the event'));
    assert.ok(logger.lines.some((l) => l.level === 'error' && l.message === 'unable to write the event (may retry after sleeping)'));
    await broadcaster.shutdown();
  });

  it('drops new events when too many wait, and says so', async () => {
    const { client, logger, broadcaster, recorder } = setup({ maxQueued: 2 });
    for (let i = 0; i < 5; i++) recorder.event({ ...pod, metadata: { ...pod.metadata, name: `web-${i}`, uid: `u-${i}` } }, 'Normal', 'X', 'y');
    await broadcaster.flush();
    assert.equal(client.calls.length, 2);
    assert.ok(logger.lines.some((l) => l.level === 'warn' && l.message === 'too many events waiting to be written; dropping events'));
  });

  it('after shutdown, drops new events and stops retrying', async () => {
    const { clock, client, broadcaster, recorder } = setup();
    client.failures.push(new Error('down'));
    recorder.event(pod, 'Normal', 'A', 'a');
    await clock.advance(0);
    assert.equal(client.calls.length, 1);
    await broadcaster.shutdown(); // ends the retry wait at once: no clock advance needed
    recorder.event(pod, 'Normal', 'B', 'b');
    await clock.advance(60_000);
    assert.equal(client.calls.length, 1);
  });
});

describe('FakeEventRecorder', () => {
  it('keeps events as client-go’s FakeRecorder prints them', () => {
    const r = new FakeEventRecorder();
    r.event(pod, 'Normal', 'Scaled', 'to 3');
    r.eventf(pod, 'Warning', 'Failed', 'quota %s', 'exceeded');
    r.annotatedEventf(pod, { a: 'b' }, 'Normal', 'Annotated', '%d', 1);
    assert.deepEqual(r.lines(), ['Normal Scaled to 3', 'Warning Failed quota exceeded', 'Normal Annotated 1']);
    assert.deepEqual(r.events[2]?.annotations, { a: 'b' });
  });
});
