/**
 * Fault test 1 — durability: 16 clients write ConfigMaps for 20 s while the API server (SQLite
 * store) is killed with SIGKILL at 5 random moments and started again on the same data and port.
 *
 * Each writer creates ConfigMaps of its own (unique names), updates its own counter ConfigMap
 * (unconditional PUT) and deletes some of what it created, one request at a time, recording each
 * request's fate: acknowledged (2xx), certainly without effect (refused connection, 4xx), or
 * unknown (the connection broke after the request may have reached the server, or a 5xx).
 * Three watchers list+watch the namespace throughout, resuming from their last resourceVersion
 * after every restart and relisting on 410. Afterwards:
 *
 * - every key holds the state of its last acknowledged write, or of a later write of unknown fate;
 *   every acknowledged create and update is in the store's history with its resourceVersion and
 *   value, and nothing is in the history that no client attempted;
 * - resourceVersions never go backwards: a write acknowledged before another was sent has the
 *   smaller resourceVersion (across restarts too), and the store's history is strictly increasing;
 * - each watcher's stream, stitched across its resumes, is exactly the store's history from its
 *   list on (every change once, in order, none twice); each relist is the history's state at the
 *   list's resourceVersion; each watcher ends in the final state.
 *
 * The store's history is read at the end by a watch from the resourceVersion before the first
 * write (served from the store's log: compaction is set to 1 h so nothing is compacted meanwhile).
 * Then the server is restarted with compaction every second, and a watcher that resumes from that
 * first resourceVersion — compacted away now — gets 410 Gone, relists, and holds the final state.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { performance } from 'node:perf_hooks';
import { Api, TransportError } from './support/api.js';
import { adminCredentials, startServer, stopAll, tempDir, type ServerProc } from './support/processes.js';
import { between, sleep, waitFor, withTimeout } from './support/wait.js';
import { objectKey, ResumingWatcher, type WatchLogEntry } from './support/watcher.js';

const WRITERS = 16;
const WRITE_MS = 20_000;
const KILLS = 5;
/**
 * Writes go on for at least WRITE_MS and then until this many are acknowledged, or MAX_WRITE_MS:
 * a loaded machine acknowledges fewer per second, which is no fault of the server's.
 */
const MIN_ACKNOWLEDGED = 1_200;
const MAX_WRITE_MS = 150_000;
const WATCHERS = 3;
const NS = 'default';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

type Fate = 'ok' | 'failed' | 'unknown';
interface Attempt {
  readonly key: string;
  readonly kind: 'create' | 'update' | 'delete';
  readonly value: string | undefined;
  readonly call: number;
  ret: number;
  fate: Fate;
  rv?: number;
}
interface HistoryEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly key: string;
  readonly rv: number;
  readonly value: string | undefined;
}

const configMap = (name: string, value: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data: { v: value } });

/** Sends one write and records its fate. */
async function attempt(api: Api, a: Attempt, log: Attempt[], unexpected: string[]): Promise<void> {
  log.push(a);
  const name = a.key.slice(NS.length + 1);
  try {
    const answer =
      a.kind === 'create'
        ? await api.request('POST', CM, configMap(name, a.value!))
        : a.kind === 'update'
          ? await api.request('PUT', `${CM}/${name}`, configMap(name, a.value!))
          : await api.request('DELETE', `${CM}/${name}`);
    a.ret = performance.now();
    if (answer.status >= 200 && answer.status < 300) {
      a.fate = 'ok';
      if (a.kind !== 'delete') a.rv = Number(answer.body.metadata.resourceVersion);
    } else if (answer.status >= 500) {
      a.fate = 'unknown';
    } else {
      a.fate = 'failed';
      if (answer.status !== 429) unexpected.push(`${a.kind} ${a.key}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  } catch (err) {
    if (!(err instanceof TransportError)) throw err;
    a.ret = performance.now();
    a.fate = err.mayHaveReached ? 'unknown' : 'failed';
    if (!err.mayHaveReached) await sleep(25); // the server is down: do not spin
  }
}

/** The state a key may hold at the end: after its last acknowledged write, or after a later write of unknown fate. */
function allowedFinal(attempts: readonly Attempt[], initial: string | undefined): Set<string | undefined> {
  let last = -1;
  attempts.forEach((a, i) => {
    if (a.fate === 'ok') last = i;
  });
  const result = (a: Attempt) => (a.kind === 'delete' ? undefined : a.value);
  const allowed = new Set<string | undefined>([last < 0 ? initial : result(attempts[last]!)]);
  for (const a of attempts.slice(last + 1)) if (a.fate === 'unknown') allowed.add(result(a));
  return allowed;
}

describe('durability under kill -9 of the API server', () => {
  after(stopAll);

  it(`${WRITERS} writers for ${WRITE_MS / 1000} s and ${KILLS} kills: acknowledged writes survive, resourceVersions never go back, resumed watches see each change once`, { timeout: 400_000 }, async () => {
    const dir = await tempDir('durability');
    const stop = new AbortController();
    const apis: Api[] = [];
    try {
      const first = await startServer(dir.path, 0, ['--compaction-interval', '1h']);
      let server: ServerProc = first;
      const creds = await adminCredentials(dir.path);
      const newApi = () => {
        const api = new Api(first.url, { ...creds, timeoutMs: 15_000 });
        apis.push(api);
        return api;
      };
      const admin = newApi();

      // Each writer's counter exists before the clock starts; the history starts after them.
      for (let w = 0; w < WRITERS; w++) await admin.ok('POST', CM, configMap(`w${w}`, `${w}.init`));
      const base = await admin.ok('GET', CM);
      const startRv = Number(base.metadata.resourceVersion);
      const baseState = new Map<string, string | undefined>(base.items.map((i: { metadata: { name: string }; data?: { v?: string } }) => [`${NS}/${i.metadata.name}`, i.data?.v]));

      const watchers = Array.from({ length: WATCHERS }, () => new ResumingWatcher(newApi(), CM, { keepLog: true }));
      const watching = watchers.map((w) => w.run(stop.signal));

      // The writers.
      const attempts: Attempt[] = [];
      const unexpected: string[] = [];
      let writing = true;
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const api = newApi();
        const mine: string[] = [];
        for (let seq = 0; writing; seq++) {
          const value = `${w}.${seq}`;
          const r = Math.random();
          const call = performance.now();
          if (r < 0.6 || (r >= 0.85 && mine.length === 0)) {
            const a: Attempt = { key: `${NS}/w${w}-${seq}`, kind: 'create', value, call, ret: call, fate: 'unknown' };
            await attempt(api, a, attempts, unexpected);
            if (a.fate === 'ok') mine.push(a.key);
          } else if (r < 0.85) {
            await attempt(api, { key: `${NS}/w${w}`, kind: 'update', value, call, ret: call, fate: 'unknown' }, attempts, unexpected);
          } else {
            const key = mine.splice(Math.floor(Math.random() * mine.length), 1)[0]!;
            await attempt(api, { key, kind: 'delete', value: undefined, call, ret: call, fate: 'unknown' }, attempts, unexpected);
          }
        }
      });

      // The killer: 5 kills, each at a random moment 0.8–2.5 s after the server is back.
      const t0 = Date.now();
      const downtimes: number[] = [];
      for (let k = 0; k < KILLS; k++) {
        await sleep(between(800, 2500));
        await server.proc.kill();
        const down = Date.now();
        server = await startServer(dir.path, first.port, ['--compaction-interval', '1h'], `server after kill ${k + 1}`);
        downtimes.push(Date.now() - down);
      }
      await sleep(Math.max(1000, WRITE_MS - (Date.now() - t0)));
      const acknowledged = () => attempts.reduce((n, a) => n + (a.fate === 'ok' ? 1 : 0), 0);
      await waitFor(`${MIN_ACKNOWLEDGED} acknowledged writes`, () => acknowledged() >= MIN_ACKNOWLEDGED || Date.now() - t0 > MAX_WRITE_MS, MAX_WRITE_MS + 10_000, 200);
      writing = false;
      await Promise.all(writers);
      const writeSeconds = (Date.now() - t0) / 1000;

      // The last change: every watcher must reach it.
      const sentinel = await admin.ok('POST', CM, configMap('sentinel', 'end'));
      const endRv = Number(sentinel.metadata.resourceVersion);
      await Promise.all(watchers.map((w) => w.waitForRv(endRv, 30_000)));

      // The store's history of the namespace's ConfigMaps since startRv, read by one more watch.
      const history: HistoryEvent[] = [];
      const historyDone = new AbortController();
      const reading = newApi().watch(`${CM}?watch=true&resourceVersion=${startRv}`, (e) => {
        if (e.type === 'ERROR') throw new Error(`the history watch failed: ${JSON.stringify(e.object)}`);
        const rv = Number(e.object.metadata.resourceVersion);
        history.push({ type: e.type as HistoryEvent['type'], key: objectKey(e.object), rv, value: e.object.data?.v });
        if (rv >= endRv) historyDone.abort();
      }, historyDone.signal);
      await withTimeout(reading, 60_000, `the history watch to reach ${endRv}`);
      assert.ok(historyDone.signal.aborted, `the history watch reached ${endRv} (got ${history.length} events, last ${history.at(-1)?.rv})`);

      // The final state, listed.
      const final = new Map<string, string | undefined>();
      for (let token = ''; ; ) {
        const page = await admin.ok('GET', `${CM}?limit=1000${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
        for (const item of page.items) final.set(objectKey(item), item.data?.v);
        token = page.metadata.continue ?? '';
        if (token === '') break;
      }
      stop.abort();
      await Promise.all(watching);

      const fates = { ok: 0, failed: 0, unknown: 0 };
      for (const a of attempts) fates[a.fate]++;
      console.log(
        `durability: ${attempts.length} writes in ${writeSeconds.toFixed(1)} s by ${WRITERS} clients — ${fates.ok} acknowledged, ${fates.unknown} unknown, ${fates.failed} refused; ` +
          `${KILLS} kills (restart ${downtimes.map((d) => `${(d / 1000).toFixed(1)} s`).join(', ')}); history ${history.length} events; ` +
          `watchers: ${watchers.map((w) => `${w.events} events, ${w.resumes} resumes, ${w.relists} relists`).join('; ')}`,
      );
      assert.deepEqual(unexpected, [], 'no request was refused with an unexpected status');
      assert.ok(fates.ok >= MIN_ACKNOWLEDGED, `enough acknowledged writes (${fates.ok} in ${MAX_WRITE_MS / 1000} s)`);

      // 1. Every key ends in an allowed state.
      const byKey = new Map<string, Attempt[]>();
      for (const a of attempts) byKey.set(a.key, [...(byKey.get(a.key) ?? []), a]);
      const lost: string[] = [];
      for (const [key, list] of byKey) {
        const allowed = allowedFinal(list, baseState.get(key));
        if (!allowed.has(final.get(key))) lost.push(`${key}: ${JSON.stringify(final.get(key) ?? null)}, expected one of ${JSON.stringify([...allowed].map((v) => v ?? null))}`);
      }
      assert.deepEqual(lost.slice(0, 20), [], `${lost.length} keys lost an acknowledged write`);

      // 2. The history: strictly increasing, every acknowledged write in it with its value, nothing unattempted.
      const rvs = history.map((e) => e.rv);
      assert.ok(rvs.every((rv, i) => i === 0 || rv > rvs[i - 1]!), 'the history is strictly increasing');
      const byRv = new Map(history.map((e) => [e.rv, e]));
      const missing: string[] = [];
      for (const a of attempts) {
        if (a.fate !== 'ok' || a.rv === undefined) continue;
        const e = byRv.get(a.rv);
        if (e === undefined || e.key !== a.key || e.value !== a.value) missing.push(`${a.kind} ${a.key}=${a.value} at ${a.rv}: history has ${JSON.stringify(e)}`);
      }
      assert.deepEqual(missing.slice(0, 20), [], `${missing.length} acknowledged writes are not in the history as acknowledged`);
      const attempted = new Set(attempts.filter((a) => a.fate !== 'failed').map((a) => `${a.kind === 'delete' ? 'DELETED' : a.kind === 'create' ? 'ADDED' : 'MODIFIED'} ${a.key} ${a.kind === 'delete' ? '' : a.value}`));
      const phantoms = history.filter((e) => e.key !== `${NS}/sentinel` && !attempted.has(`${e.type} ${e.key} ${e.type === 'DELETED' ? '' : e.value}`));
      assert.deepEqual(phantoms.slice(0, 20), [], 'every change in the history was attempted by a client');

      // 3. resourceVersions never go backwards in real time: acknowledged before sent → smaller.
      const acked = attempts.filter((a) => a.fate === 'ok' && a.rv !== undefined);
      const byRet = [...acked].sort((a, b) => a.ret - b.ret);
      let i = 0;
      let maxBefore = startRv;
      const backwards: string[] = [];
      for (const b of [...acked].sort((x, y) => x.call - y.call)) {
        while (i < byRet.length && byRet[i]!.ret < b.call) maxBefore = Math.max(maxBefore, byRet[i++]!.rv!);
        if (b.rv! <= maxBefore) backwards.push(`${b.kind} ${b.key} got ${b.rv} although ${maxBefore} was acknowledged before it was sent`);
      }
      assert.deepEqual(backwards.slice(0, 20), [], 'resourceVersions never go backwards');

      // 4. Each watcher saw exactly the history: every change once, in order; lists are snapshots of it.
      for (const [n, w] of watchers.entries()) {
        assert.deepEqual(w.violations, [], `watcher ${n}: no event twice or out of order`);
        assert.ok(w.resumes + w.relists >= KILLS, `watcher ${n} resumed or relisted after each kill (${w.resumes} + ${w.relists})`);
        compareWithHistory(`watcher ${n}`, w.log, history, baseState, startRv);
        const seen = new Map([...w.state].map(([k, v]) => [k, v.data?.v as string | undefined]));
        assert.deepEqual(seen, final, `watcher ${n} ends in the final state`);
      }

      // 5. Once the history is compacted, resuming from before it gets 410 Gone and a relist.
      await server.proc.stop();
      server = await startServer(dir.path, first.port, ['--compaction-interval', '1s'], 'server compacting');
      const probe = newApi();
      await waitFor(`the server to compact resourceVersion ${startRv} away`, async () => {
        const answer = await probe.request('GET', `${CM}?watch=true&resourceVersion=${startRv}&timeoutSeconds=1`, undefined, { timeoutMs: 5000 });
        const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
        return answer.status === 410 || text.includes('"code":410');
      }, 30_000, 200);
      const late = new ResumingWatcher(newApi(), CM, { resumeFrom: { rv: startRv, items: base.items } });
      const lateStop = new AbortController();
      const lateRun = late.run(lateStop.signal);
      try {
        await waitFor('a resume from the compacted resourceVersion to get 410 and relist', () => late.relists > 0, 30_000);
      } finally {
        lateStop.abort();
        await lateRun;
      }
      assert.deepEqual(late.violations, []);
      assert.deepEqual(new Map([...late.state].map(([k, v]) => [k, v.data?.v as string | undefined])), final, 'the relist holds the final state');
      console.log(`durability: a watch resumed from ${startRv} after compaction got 410 and relisted (${late.relists} relist, ${late.state.size} objects)`);
    } finally {
      stop.abort();
      for (const api of apis) api.close();
      await stopAll();
      await dir.remove();
    }
  });
});

/** A watcher's log against the history: events match it one for one; lists match its state at their resourceVersion. */
function compareWithHistory(who: string, log: readonly WatchLogEntry[], history: readonly HistoryEvent[], baseState: ReadonlyMap<string, string | undefined>, startRv: number): void {
  const state = new Map(baseState);
  let pos = 0; // history[pos] is the next change the watcher must see
  let at = startRv;
  const advanceTo = (rv: number) => {
    while (pos < history.length && history[pos]!.rv <= rv) {
      const e = history[pos++]!;
      if (e.type === 'DELETED') state.delete(e.key);
      else state.set(e.key, e.value);
    }
    at = rv;
  };
  for (const entry of log) {
    if (entry.kind === 'list') {
      assert.ok(entry.rv >= at, `${who}: a list at ${entry.rv} after ${at}`);
      advanceTo(entry.rv);
      const listed = new Map([...entry.items].map(([k, v]) => [k, v.data?.v as string | undefined]));
      assert.deepEqual(listed, state, `${who}: the list at resourceVersion ${entry.rv} is the history's state there`);
      continue;
    }
    const expected = history[pos];
    const got = `${entry.type} ${entry.key}=${entry.object.data?.v} at ${entry.rv}`;
    assert.ok(expected !== undefined, `${who}: ${got} after the end of the history`);
    assert.equal(got, `${expected.type} ${expected.key}=${expected.value} at ${expected.rv}`, `${who}: the next change after ${at} (${entry.rv > expected.rv ? 'missed one' : 'an extra one'})`);
    advanceTo(entry.rv);
  }
  assert.equal(pos, history.length, `${who} saw the whole history`);
}
