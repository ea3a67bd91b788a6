/**
 * Fault test 2 — linearizability: concurrent clients read, write and compare-and-set a few keys
 * through the API server while it is killed with SIGKILL twice; every operation's invocation and
 * completion is recorded, and the history is checked against a register model (lin/checker.ts),
 * key by key. Run on the SQLite store and on etcd (a real etcd started by the test).
 *
 * A key is the field data.v of a ConfigMap. get is a GET (404 never happens: the keys exist from
 * the start); put is an unconditional PUT; cas(from, to) is a JSON patch whose `test` of data.v
 * guards its `replace` — the server applies it to the object it read and writes with that revision
 * as the store precondition, retrying on conflict, so it succeeds (200) exactly when the value was
 * `from`, and answers 422 when it was not. Fates: a refused connection or a 4xx other than the
 * 422 of a failed test had no effect (left out); a broken connection or a 5xx leaves a write
 * open (it may have happened); reads without an answer are left out.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { startEtcd, type EtcdServer } from '@setpoint/store/testing';
import { checkLinearizable } from './lin/checker.js';
import { HistoryRecorder } from './lin/history.js';
import { registerModel, type RegisterInput, type RegisterOutput } from './lin/register.js';
import { Api, TransportError } from './support/api.js';
import { adminCredentials, startServer, stopAll, tempDir, type ServerProc } from './support/processes.js';
import { between, pick, sleep, waitFor } from './support/wait.js';

const CLIENTS = 8;
const KEYS = ['k0', 'k1', 'k2'];
const RUN_MS = 8_000;
const KILLS = 2;
/**
 * The history must hold this many completed operations to mean something. The clients run for at
 * least RUN_MS and then until that many have completed (after the last kill), or MAX_RUN_MS: a
 * loaded machine completes fewer per second, which is no fault of the server's.
 */
const MIN_COMPLETED = 600;
const MAX_RUN_MS = 150_000;
const CM = '/api/v1/namespaces/default/configmaps';

async function runHistory(backend: 'sqlite' | 'etcd', serverFlags: string[]): Promise<void> {
  const dir = await tempDir(`lin-${backend}`);
  const apis: Api[] = [];
  try {
    const first = await startServer(dir.path, 0, serverFlags);
    let server: ServerProc = first;
    const creds = await adminCredentials(dir.path);
    const newApi = () => {
      const api = new Api(first.url, { ...creds, timeoutMs: 15_000 });
      apis.push(api);
      return api;
    };
    const admin = newApi();
    for (const key of KEYS) await admin.ok('POST', CM, { metadata: { name: key }, data: { v: 'init' } });

    const history = new HistoryRecorder<RegisterInput, RegisterOutput>();
    let running = true;
    const clients = Array.from({ length: CLIENTS }, async (_, c) => {
      const api = newApi();
      const seen = new Map<string, string>(KEYS.map((k) => [k, 'init']));
      for (let seq = 0; running; seq++) {
        const key = pick(KEYS);
        const r = Math.random();
        const input: RegisterInput = r < 0.4 ? { f: 'get' } : r < 0.7 ? { f: 'put', value: `${c}.${seq}` } : { f: 'cas', from: seen.get(key)!, to: `${c}.${seq}` };
        const op = history.invoke(c, key, input);
        try {
          const answer =
            input.f === 'get'
              ? await api.request('GET', `${CM}/${key}`)
              : input.f === 'put'
                ? await api.request('PUT', `${CM}/${key}`, { metadata: { name: key, namespace: 'default' }, data: { v: input.value } })
                : await api.request('PATCH', `${CM}/${key}`, [{ op: 'test', path: '/data/v', value: input.from }, { op: 'replace', path: '/data/v', value: input.to }], { contentType: 'application/json-patch+json' });
          if (answer.status === 200) {
            const value = answer.body.data.v as string;
            seen.set(key, value);
            op.ok(input.f === 'get' ? value : true);
          } else if (input.f === 'cas' && answer.status === 422) {
            op.ok(false);
          } else if (answer.status >= 500 && input.f !== 'get') {
            op.unknown();
          } else {
            op.failed();
          }
        } catch (err) {
          if (!(err instanceof TransportError)) throw err;
          if (input.f === 'get' || !err.mayHaveReached) op.failed();
          else op.unknown();
          if (!err.mayHaveReached) await sleep(20); // the server is down: do not spin
        }
      }
    });

    const t0 = Date.now();
    for (let k = 0; k < KILLS; k++) {
      await sleep(between(1000, 2500));
      await server.proc.kill();
      server = await startServer(dir.path, first.port, serverFlags, `server after kill ${k + 1}`);
    }
    const completedAtLastRestart = history.counts().ok;
    await sleep(Math.max(500, RUN_MS - (Date.now() - t0)));
    await waitFor(`${MIN_COMPLETED} completed operations`, () => history.counts().ok >= MIN_COMPLETED || Date.now() - t0 > MAX_RUN_MS, MAX_RUN_MS + 10_000, 100);
    running = false;
    await Promise.all(clients);

    const ops = history.operations();
    const started = Date.now();
    const result = checkLinearizable(registerModel('init'), ops, { timeoutMs: 120_000 });
    const counts = history.counts();
    const cas = ops.filter((o) => o.input.f === 'cas' && o.output !== undefined);
    console.log(
      `linearizability on ${backend}: ${ops.length} operations by ${CLIENTS} clients on ${KEYS.length} keys in ${((started - t0) / 1000).toFixed(1)} s with ${KILLS} kills — ` +
        `${counts.ok} completed (${cas.filter((o) => o.output === true).length} cas won, ${cas.filter((o) => o.output === false).length} lost), ${counts.unknown} open, ${counts.failed} without effect; ` +
        `checked in ${Date.now() - started} ms: ${result.outcome} (${result.partitions.map((p) => `${p.key} ${p.operations} ops, ${p.steps} steps`).join('; ')})`,
    );
    if (result.outcome !== 'linearizable') {
      const file = join(tmpdir(), `setpoint-lin-${backend}-${Date.now()}.json`);
      writeFileSync(file, JSON.stringify(ops));
      const why = result.partitions.flatMap((p) => p.explanation ?? []).join('\n');
      assert.fail(`the history on ${backend} is ${result.outcome} (history in ${file}):\n${why}`);
    }
    assert.ok(counts.ok >= MIN_COMPLETED, `enough completed operations (${counts.ok} in ${MAX_RUN_MS / 1000} s)`);
    assert.ok(counts.ok > completedAtLastRestart, 'the restarted server completed operations');
    // The check is not vacuous: one read of a value nobody wrote makes the same history illegal.
    const read = ops.findLast((o) => o.input.f === 'get' && o.output !== undefined)!;
    const corrupted = ops.map((o) => (o === read ? { ...o, output: 'never written' } : o));
    assert.equal(checkLinearizable(registerModel('init'), corrupted).outcome, 'illegal', 'a corrupted history is caught');
    assert.ok(cas.some((o) => o.output === true) && cas.some((o) => o.output === false), 'compare-and-set both won and lost');
  } finally {
    for (const api of apis) api.close();
    await stopAll();
    await dir.remove();
  }
}

describe('linearizability of get, put and compare-and-set through the API server', () => {
  after(stopAll);

  it('on the SQLite store, with the server killed twice', { timeout: 360_000 }, async () => {
    await runHistory('sqlite', []);
  });

  it('on etcd, with the server killed twice', { timeout: 360_000 }, async () => {
    let etcd: EtcdServer | undefined;
    try {
      etcd = await startEtcd();
      await runHistory('etcd', ['--store', 'etcd', '--etcd-endpoints', etcd.endpoint]);
    } finally {
      await etcd?.stop();
    }
  });
});
