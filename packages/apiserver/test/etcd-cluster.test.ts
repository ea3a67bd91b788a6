/**
 * An API server on a three-member etcd cluster (started by the test) under load from concurrent
 * clients, while members die:
 * - a follower is killed (SIGKILL): clients carry on;
 * - once it is back, the leader is killed: a brief unavailability while the other two elect a new
 *   leader, then the same API server serves again, without a restart.
 * Throughout: every acknowledged write is readable afterwards, with its value, on every member and
 * through the API; a watch opened before the faults sees every acknowledged write, in order, once;
 * resourceVersions seen by clients never go backwards; every failed request is answered 503 or 504
 * as a Kubernetes Status with Retry-After — never 500, never a dropped connection.
 * The figures (errors, unavailability) are printed as test diagnostics; docs/etcd.md quotes them.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { EtcdStore } from '@setpoint/store';
import { startEtcdCluster, type EtcdCluster, type EtcdMember } from '@setpoint/store/testing';
import { ApiServer } from '../src/server.js';
import { openWatch, request, type TestResponse } from './harness.js';
import { CM, ok } from './support.js';

/** Concurrent writers; each alternates creating a new ConfigMap and updating its own counter. */
const WRITERS = 8;
/** Writes that must be acknowledged after each fault, counting only writes sent after it. */
const WRITES_AFTER_FAULT = 120;
/** How long the clients may take to reach that count after a fault. */
const RECOVERY_DEADLINE_MS = 60_000;
const KEY_PREFIX = '/registry/core/configmaps/default/';

/** An acknowledged write: the object, the sequence number in its data, its resourceVersion. */
interface Ack {
  readonly name: string;
  readonly seq: number;
  readonly rv: number;
  readonly sentAt: number;
  readonly doneAt: number;
}

/** One answered request. */
interface Answer {
  readonly sentAt: number;
  readonly doneAt: number;
  readonly status: number;
  /** The Status reason of an error. */
  readonly reason: string;
}

/** When a member was killed, and until when the clients ran before it was restarted. */
interface FaultWindow {
  readonly what: string;
  readonly killedAt: number;
  /** When the running members agreed on a leader again. */
  readonly electedAt: number;
  readonly endedAt: number;
}

/** The clients: writers and a reader of the present, checking every answer as it comes. */
class Load {
  readonly acks: Ack[] = [];
  readonly answers: Answer[] = [];
  /** Answers that break the contract: a 500, an error that is not a Status, no Retry-After, a dropped connection. */
  readonly violations: string[] = [];
  /** The highest sequence number each counter was sent, acknowledged or not. */
  readonly attempted = new Map<string, number>();
  /** The newest resourceVersion acknowledged to any client. */
  maxAckedRv = 0;
  /** Lists of the present, each at a resourceVersion not older than every write acknowledged before it was sent. */
  reads = 0;
  private stopping = false;
  private running: Promise<unknown> | undefined;

  constructor(private readonly url: string) {}

  start(): void {
    this.running = Promise.all([...Array.from({ length: WRITERS }, (_, i) => this.writer(i)), this.reader()]);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.running;
  }

  /** Waits until `count` writes sent at or after `since` are acknowledged. */
  async acked(count: number, since: number, ms = RECOVERY_DEADLINE_MS): Promise<void> {
    const deadline = Date.now() + ms;
    const done = () => this.acks.filter((a) => a.sentAt >= since).length;
    while (done() < count) {
      if (Date.now() > deadline) {
        const refused = this.answers.filter((a) => a.status >= 300 && a.doneAt >= since).map((a) => `${a.status} ${a.reason}`);
        assert.fail(`only ${done()} of ${count} writes acknowledged within ${ms} ms; refused: ${refused.join(', ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** What the clients saw of a fault: requests in flight at the kill or sent before the restart. */
  report(fault: FaultWindow): Record<string, unknown> {
    const during = this.answers.filter((a) => a.doneAt >= fault.killedAt && a.sentAt <= fault.endedAt);
    const refused = during.filter((a) => a.status >= 300);
    const errors: Record<string, number> = {};
    for (const a of refused) errors[`${a.status} ${a.reason}`] = (errors[`${a.status} ${a.reason}`] ?? 0) + 1;
    const firstAck = Math.min(...this.acks.filter((a) => a.sentAt >= fault.killedAt).map((a) => a.doneAt));
    return {
      fault: fault.what,
      requests: during.length,
      errors,
      electionMs: fault.electedAt - fault.killedAt,
      // Writes sent after the kill: how long until the first was acknowledged.
      firstAckMs: firstAck - fault.killedAt,
      lastErrorMs: refused.length === 0 ? null : Math.max(...refused.map((a) => a.doneAt)) - fault.killedAt,
      slowestRequestMs: Math.max(0, ...during.map((a) => a.doneAt - a.sentAt)),
    };
  }

  private async writer(i: number): Promise<void> {
    const counter = `w${i}`;
    let lastRv = 0;
    // Its counter first; until that is acknowledged there is nothing to update.
    while (!this.stopping && !(await this.write(counter, 0, 'POST', CM, lastRv, (rv) => (lastRv = rv)))) {
      await pause();
    }
    for (let n = 1; !this.stopping; n++) {
      const done =
        n % 2 === 1
          ? await this.write(`${counter}-${n}`, n, 'POST', CM, lastRv, (rv) => (lastRv = rv))
          : await this.write(counter, n, 'PUT', `${CM}/${counter}`, lastRv, (rv) => (lastRv = rv));
      // A client that is refused waits a moment (shorter than Retry-After: the test wants to see the
      // outage end) and goes on with its next write.
      if (!done) await pause();
    }
  }

  /** One write; true when acknowledged. Checks that this writer's resourceVersions only grow. */
  private async write(name: string, seq: number, method: string, path: string, lastRv: number, onRv: (rv: number) => void): Promise<boolean> {
    if (method === 'PUT') this.attempted.set(name, seq);
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { seq: String(seq) } };
    const sentAt = Date.now();
    const res = await this.send(method, path, body, sentAt);
    if (res === undefined || res.status >= 300) return false;
    const rv = Number(res.body.metadata.resourceVersion);
    if (!(rv > lastRv)) this.violations.push(`${method} ${name}: resourceVersion ${rv} after this client's previous write at ${lastRv}`);
    onRv(rv);
    this.maxAckedRv = Math.max(this.maxAckedRv, rv);
    this.acks.push({ name, seq, rv, sentAt, doneAt: Date.now() });
    return true;
  }

  /** Lists the present (limit=1: from etcd): never older than a write acknowledged before it was sent. */
  private async reader(): Promise<void> {
    let lastRv = 0;
    while (!this.stopping) {
      const floor = this.maxAckedRv;
      const res = await this.send('GET', `${CM}?limit=1`, undefined, Date.now());
      if (res === undefined || res.status !== 200) {
        await pause();
        continue;
      }
      const rv = Number(res.body.metadata.resourceVersion);
      if (rv < floor || rv < lastRv) this.violations.push(`a list at resourceVersion ${rv} after writes acknowledged at ${floor} and a list at ${lastRv}`);
      lastRv = rv;
      this.reads++;
    }
  }

  /** Sends a request and checks an error answer: 503 or 504, a Status saying so, Retry-After. */
  private async send(method: string, path: string, body: unknown, sentAt: number): Promise<TestResponse | undefined> {
    let res: TestResponse;
    try {
      res = await request(this.url, method, path, body);
    } catch (err) {
      this.violations.push(`${method} ${path}: ${(err as Error).message}`);
      return undefined;
    }
    const status = res.status < 300 ? undefined : (res.body as { kind?: string; code?: number; reason?: string } | undefined);
    this.answers.push({ sentAt, doneAt: Date.now(), status: res.status, reason: status?.reason ?? '' });
    if (status === undefined) return res;
    const expected = res.status === 503 ? 'ServiceUnavailable' : res.status === 504 ? 'Timeout' : undefined;
    if (expected === undefined) this.violations.push(`${method} ${path}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
    else if (status.kind !== 'Status' || status.code !== res.status || status.reason !== expected) this.violations.push(`${method} ${path}: HTTP ${res.status} without its Status: ${res.text.slice(0, 300)}`);
    else if (res.headers['retry-after'] === undefined) this.violations.push(`${method} ${path}: HTTP ${res.status} without Retry-After`);
    return res;
  }
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50));
}

/** The member serving the etcd watch streams (etcd's own gauge of them), waiting up to 10 s for one. */
async function watchStreamHost(cluster: EtcdCluster): Promise<EtcdMember> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    for (const member of cluster.members) {
      const metrics = await (await fetch(`${member.endpoint}/metrics`, { signal: AbortSignal.timeout(2_000) })).text();
      const m = /^etcd_debugging_mvcc_watch_stream_total (\d+)/m.exec(metrics);
      if (m !== null && Number(m[1]) > 0) return member;
    }
    if (Date.now() > deadline) assert.fail('no etcd member serves a watch stream');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Kills `member` under load and waits until the members agree on a leader and the clients had
 * WRITES_AFTER_FAULT writes sent after the kill acknowledged; then restarts it.
 */
async function fault(cluster: EtcdCluster, load: Load, what: string, member: EtcdMember): Promise<FaultWindow> {
  const killedAt = Date.now();
  await member.kill();
  await cluster.leader();
  const electedAt = Date.now();
  await load.acked(WRITES_AFTER_FAULT, killedAt);
  const endedAt = Date.now();
  await member.restart();
  await cluster.leader();
  return { what, killedAt, electedAt, endedAt };
}

/** Every test ConfigMap in etcd as one member has it: name → [seq, modRevision]. */
async function contentsOf(endpoint: string): Promise<Map<string, [number, number]>> {
  const store = await EtcdStore.open({ endpoints: [endpoint] });
  try {
    const found = new Map<string, [number, number]>();
    let after: string | undefined;
    for (;;) {
      const page = await store.list(KEY_PREFIX, { limit: 500, ...(after === undefined ? {} : { after }) });
      for (const kv of page.items) {
        const obj = JSON.parse(kv.value) as { metadata: { name: string }; data: { seq: string } };
        found.set(obj.metadata.name, [Number(obj.data.seq), kv.modRevision]);
      }
      if (!page.more || page.items.length === 0) return found;
      after = page.items[page.items.length - 1]!.key;
    }
  } finally {
    await store.close();
  }
}

/** Checks the end state (`where`: name → [seq, resourceVersion]) against the acknowledged writes. */
function checkContents(load: Load, contents: Map<string, [number, number]>, where: string): void {
  const lastAck = new Map<string, Ack>();
  for (const ack of load.acks) if ((lastAck.get(ack.name)?.rv ?? 0) < ack.rv) lastAck.set(ack.name, ack);
  for (const [name, ack] of lastAck) {
    const found = contents.get(name);
    assert.ok(found !== undefined, `${where}: ${name}, acknowledged at resourceVersion ${ack.rv}, is missing`);
    const attempted = load.attempted.get(name);
    if (attempted === undefined) {
      // Created once and never changed: exactly the acknowledged version.
      assert.deepEqual(found, [ack.seq, ack.rv], `${where}: ${name} as acknowledged`);
    } else {
      // A counter: the last acknowledged update, or a later one whose answer was an error.
      assert.ok(found[0] >= ack.seq && found[0] <= attempted && found[1] >= ack.rv, `${where}: ${name} is ${JSON.stringify(found)}, acknowledged ${ack.seq} at ${ack.rv}`);
    }
  }
}

/** Every acknowledged write appears in the watch with its resourceVersion and value; resourceVersions only grow. */
function checkWatch(load: Load, events: ReadonlyArray<{ type: string; object: { metadata: { name: string; resourceVersion: string }; data?: { seq?: string } } }>): void {
  let last = 0;
  const byRv = new Map<number, { name: string; seq: number }>();
  for (const event of events) {
    const rv = Number(event.object.metadata.resourceVersion);
    assert.ok(rv > last, `the watch went from resourceVersion ${last} to ${rv} (${event.type} ${event.object.metadata.name})`);
    last = rv;
    byRv.set(rv, { name: event.object.metadata.name, seq: Number(event.object.data?.seq) });
  }
  for (const ack of load.acks) {
    assert.deepEqual(byRv.get(ack.rv), { name: ack.name, seq: ack.seq }, `the watch has the write of ${ack.name} acknowledged at ${ack.rv}`);
  }
}

describe('an API server on a three-member etcd cluster', () => {
  it('loses no acknowledged write and answers only 503/504 with Retry-After while a follower, then the leader, is killed', { timeout: 240_000 }, async (t: TestContext) => {
    await using cluster = await startEtcdCluster();
    const store = await EtcdStore.open({ endpoints: cluster.endpoints });
    let server: ApiServer | undefined;
    let watch: ReturnType<typeof openWatch> | undefined;
    try {
      server = await ApiServer.start({ port: 0, compaction: false, store });
      const url = server.url;
      const listed = ok(await request(url, 'GET', CM));
      watch = openWatch(url, `${CM}?watch=true&resourceVersion=${listed.metadata.resourceVersion}`);
      const load = new Load(url);
      load.start();
      try {
        await load.acked(WRITERS + 40, 0);

        // A follower dies — the one serving the API server's etcd watch stream, when a follower does.
        const leader = await cluster.leader();
        const streamHost = await watchStreamHost(cluster);
        const follower = streamHost !== leader ? streamHost : cluster.members.find((m) => m !== leader)!;
        const followerFault = await fault(cluster, load, 'a follower', follower);
        await load.acked(20, Date.now());

        // The leader dies (with the watch stream, if it is there): the other two elect a new one.
        const leaderFault = await fault(cluster, load, 'the leader', await cluster.leader());
        await load.acked(20, Date.now());
        await load.stop();

        for (const f of [followerFault, leaderFault]) t.diagnostic(JSON.stringify(load.report(f)));
        const refused = load.answers.filter((a) => a.status >= 300).length;
        t.diagnostic(`${load.acks.length} writes acknowledged, ${refused} requests refused, ${load.reads} lists; the watch stream was on ${streamHost === leader ? 'the leader' : 'the killed follower'}`);
      } finally {
        await load.stop();
      }
      assert.deepEqual(load.violations, [], 'every answer keeps the contract');
      assert.ok(load.acks.length > 2 * WRITES_AFTER_FAULT);

      // Every member is back, agrees on a leader and has applied the same revision.
      await cluster.waitConverged();

      // Every acknowledged write is on every member (the same everywhere) and served by the API.
      const contents = await Promise.all(cluster.members.map((m) => contentsOf(m.endpoint)));
      for (const [i, c] of contents.entries()) checkContents(load, c, cluster.members[i]!.name);
      for (const c of contents.slice(1)) assert.deepEqual(c, contents[0], 'every member has the same objects');
      const served = ok(await request(url, 'GET', CM)) as { items: Array<{ metadata: { name: string; resourceVersion: string }; data: { seq: string } }> };
      checkContents(load, new Map(served.items.map((o) => [o.metadata.name, [Number(o.data.seq), Number(o.metadata.resourceVersion)]])), 'the API');

      // The watch opened before the faults saw every acknowledged write, in order, once.
      const w = watch;
      const deadline = Date.now() + 20_000;
      while (!w.events.some((e) => Number(e.object.metadata.resourceVersion) >= load.maxAckedRv)) {
        assert.ok(!w.closed, 'the watch stayed open');
        assert.ok(Date.now() < deadline, `the watch did not reach resourceVersion ${load.maxAckedRv} within 20 s`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      checkWatch(load, w.events);
    } finally {
      watch?.close();
      await server?.stop();
      await store.close();
    }
  });
});
