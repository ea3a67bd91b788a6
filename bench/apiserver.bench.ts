/**
 * API server benchmark: create, get, list and update of 1 KiB ConfigMaps against concurrency, on
 * SQLite and on etcd, side by side, and the highest load that keeps Kubernetes' API call latency
 * SLOs (p99 of mutating calls ≤ 1 s, of single-object reads ≤ 1 s, of namespace lists ≤ 5 s).
 *
 * Two `setpoint server` processes run at once (TLS, token auth, RBAC): one on SQLite, one on a
 * one-member etcd 3.4 started here (`--store etcd`); this process is the client, over keep-alive
 * HTTPS connections (one per concurrent client; each client's first call, which sets up its
 * connection, is not timed). For each verb the concurrency doubles, or quadruples, from 1 while the
 * p99 keeps the SLO: each step runs `stepMs` against SQLite, then against etcd. The search for a
 * backend stops at the first step that breaks the SLO (or at the last step); "highest load kept"
 * is the last step within it, with its throughput.
 *
 * Latency is measured by the client (it includes queueing in the client and the server); the
 * server's own p99 (apiserver_request_duration_seconds, from its /metrics, interpolated within
 * its buckets) is given beside it. Client and servers share this machine's cores.
 *
 * - create: POST of a new ConfigMap; update: PUT of the client's own ConfigMap with the
 *   resourceVersion of its last write (no conflicts); get: GET of one of 100 ConfigMaps;
 *   list: GET of a namespace holding 1,000 ConfigMaps (about 1.3 MB of JSON).
 */
import { startEtcd, type EtcdServer } from '@setpoint/store/testing';
import { ApiClient, histogramQuantile, scrape, startServer, type ServerProcess } from './harness.js';
import { BenchReport, Latencies, nowMs, ratio, smoke, type Row } from './lib.js';

type Verb = 'create' | 'update' | 'get' | 'list';

interface VerbSpec {
  readonly verb: Verb;
  /** The SLO of its p99, ms. */
  readonly sloMs: number;
  readonly levels: readonly number[];
}

const verbs: readonly VerbSpec[] = smoke
  ? [
      { verb: 'create', sloMs: 1000, levels: [1, 8] },
      { verb: 'update', sloMs: 1000, levels: [1, 8] },
      { verb: 'get', sloMs: 1000, levels: [1, 8] },
      { verb: 'list', sloMs: 5000, levels: [1, 4] },
    ]
  : [
      { verb: 'create', sloMs: 1000, levels: [1, 4, 16, 64, 256, 512, 1024, 2048] },
      { verb: 'update', sloMs: 1000, levels: [1, 4, 16, 64, 256, 512, 1024, 2048] },
      { verb: 'get', sloMs: 1000, levels: [1, 4, 16, 64, 256, 512, 1024, 2048] },
      { verb: 'list', sloMs: 5000, levels: [1, 2, 4, 8, 16, 32, 64, 128] },
    ];
const stepMs = smoke ? 500 : 5000;
const listObjects = smoke ? 100 : 1000;
const value = 'x'.repeat(1024);
const NS = '/api/v1/namespaces';

interface Target {
  readonly name: string;
  readonly server: ServerProcess;
  readonly admin: ApiClient;
  /** Objects each update worker owns, with their last resourceVersion. */
  readonly owned: Map<number, string>;
  seq: number;
}

async function prepare(name: string, server: ServerProcess): Promise<Target> {
  const admin = new ApiClient(server, 16);
  for (const ns of ['bench', 'listed', 'updated']) await admin.expect(201, 'POST', NS, { metadata: { name: ns } });
  const create = (ns: string, prefix: string, count: number) =>
    Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        for (let i = w; i < count; i += 16) await admin.expect(201, 'POST', `${NS}/${ns}/configmaps`, { metadata: { name: `${prefix}-${i}` }, data: { v: value } });
      }),
    );
  await create('listed', 'cm', listObjects);
  await create('bench', 'get', 100);
  return { name, server, admin, owned: new Map(), seq: 0 };
}

/** One call of `verb` by worker `w`; resolves once answered as expected. */
async function call(t: Target, client: ApiClient, verb: Verb, w: number): Promise<void> {
  switch (verb) {
    case 'create':
      await client.expect(201, 'POST', `${NS}/bench/configmaps`, { metadata: { name: `c-${t.seq++}` }, data: { v: value } });
      return;
    case 'get':
      await client.expect(200, 'GET', `${NS}/bench/configmaps/get-${w % 100}`);
      return;
    case 'list':
      await client.expect(200, 'GET', `${NS}/listed/configmaps`);
      return;
    case 'update': {
      let rv = t.owned.get(w);
      if (rv === undefined) {
        const res = await client.expect(201, 'POST', `${NS}/updated/configmaps`, { metadata: { name: `u-${w}` }, data: { v: value } });
        rv = (JSON.parse(res.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion;
      }
      const res = await client.expect(200, 'PUT', `${NS}/updated/configmaps/u-${w}`, { metadata: { name: `u-${w}`, resourceVersion: rv }, data: { v: value, n: String(t.seq++) } });
      t.owned.set(w, (JSON.parse(res.text) as { metadata: { resourceVersion: string } }).metadata.resourceVersion);
      return;
    }
  }
}

async function step(t: Target, verb: Verb, concurrency: number): Promise<Row> {
  const client = new ApiClient(t.server, concurrency);
  try {
    // Each client opens its connection (TLS handshake) before the clock starts.
    await Promise.all(Array.from({ length: concurrency }, (_, w) => call(t, client, verb, w)));
    const before = await scrape(t.admin);
    const lat = new Latencies();
    let errors = 0;
    const start = nowMs();
    const deadline = start + stepMs;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, w) => {
        while (nowMs() < deadline) {
          const t0 = nowMs();
          try {
            await call(t, client, verb, w);
            lat.add(nowMs() - t0);
          } catch {
            errors++;
          }
        }
      }),
    );
    const seconds = (nowMs() - start) / 1000;
    const after = await scrape(t.admin);
    const serverP99 = histogramQuantile(0.99, after, 'apiserver_request_duration_seconds', { verb, resource: 'configmaps' }, before) * 1000;
    return { store: t.name, verb, clients: concurrency, 'ops/s': lat.count / seconds, 'p50 ms': lat.percentile(50), 'p99 ms': lat.percentile(99), 'server p99 ms': serverP99, errors };
  } finally {
    client.close();
  }
}

interface Search {
  rows: Row[];
  /** The last step within the SLO. */
  kept: Row | undefined;
  /** The first step that broke it. */
  broke: Row | undefined;
}

export async function run(): Promise<void> {
  const report = new BenchReport(
    'apiserver',
    'create, update, get and list of 1 KiB ConfigMaps over HTTPS against concurrency, on `setpoint server` with SQLite and with etcd 3.4 (two server processes, measured step by step side by side), and the highest load that keeps Kubernetes\' API call latency SLOs.',
  );
  let etcd: EtcdServer | undefined;
  const targets: Target[] = [];
  let data: Record<string, unknown> = {};
  try {
    etcd = await startEtcd();
    targets.push(await prepare('sqlite', await startServer({ store: 'sqlite' })));
    targets.push(await prepare('etcd', await startServer({ store: 'etcd', etcdEndpoint: etcd.endpoint })));
    const searches = new Map<string, Search>();
    for (const spec of verbs) {
      const open = new Set(targets.map((t) => t.name));
      for (const level of spec.levels) {
        for (const t of targets) {
          if (!open.has(t.name)) continue;
          const row = await step(t, spec.verb, level);
          const key = `${spec.verb}/${t.name}`;
          const s = searches.get(key) ?? { rows: [], kept: undefined, broke: undefined };
          searches.set(key, s);
          s.rows.push(row);
          const within = Number(row['p99 ms']) <= spec.sloMs && Number(row.errors) === 0;
          if (within) s.kept = row;
          else {
            s.broke = row;
            open.delete(t.name);
          }
          console.log(`${spec.verb} ${t.name} ×${level}: ${Math.round(Number(row['ops/s']))} ops/s, p99 ${Number(row['p99 ms']).toFixed(1)} ms${within ? '' : ' — breaks the SLO'}`);
        }
        if (open.size === 0) break;
      }
    }
    for (const spec of verbs) {
      const rows = targets.flatMap((t) => searches.get(`${spec.verb}/${t.name}`)?.rows ?? []);
      report.table(`${spec.verb}: throughput and latency against concurrent clients (SLO: p99 ≤ ${spec.sloMs / 1000} s)`, rows);
    }
    const sloRows: Row[] = [];
    for (const spec of verbs) {
      for (const t of targets) {
        const s = searches.get(`${spec.verb}/${t.name}`)!;
        sloRows.push({
          verb: spec.verb,
          store: t.name,
          'SLO p99': `${spec.sloMs / 1000} s`,
          'highest clients kept': s.kept ? Number(s.kept.clients) : 0,
          'ops/s there': s.kept ? Number(s.kept['ops/s']) : NaN,
          'p99 ms there': s.kept ? Number(s.kept['p99 ms']) : NaN,
          'broke at clients': s.broke ? Number(s.broke.clients) : `did not break up to ${spec.levels.at(-1)}`,
        });
      }
    }
    report.table("the highest load that keeps Kubernetes' SLO", sloRows);
    const ratioRows: Row[] = [];
    for (const spec of verbs) {
      const sq = searches.get(`${spec.verb}/sqlite`)!.rows;
      const et = searches.get(`${spec.verb}/etcd`)!.rows;
      for (const row of et) {
        const base = sq.find((r) => r.clients === row.clients);
        if (base) ratioRows.push({ verb: spec.verb, clients: Number(row.clients), 'sqlite ÷ etcd ops/s': ratio(base['ops/s'], row['ops/s']), 'etcd ÷ sqlite p99': ratio(row['p99 ms'], base['p99 ms']) });
      }
    }
    report.table('SQLite beside etcd, step by step (same run)', ratioRows);
    for (const r of sloRows) {
      report.headline(
        `apiserver ${r.verb} on ${r.store}: highest load within SLO (p99 ≤ ${r['SLO p99']})`,
        r['highest clients kept'] === 0 ? 'none' : `${r['highest clients kept']} clients, ${Math.round(Number(r['ops/s there']))} ops/s, p99 ${Number(r['p99 ms there']).toFixed(0)} ms`,
        typeof r['broke at clients'] === 'number' ? `broke at ${r['broke at clients']} clients` : String(r['broke at clients']),
      );
    }
    for (const spec of verbs) {
      const best = (name: string) => Math.max(...(searches.get(`${spec.verb}/${name}`)?.rows ?? []).map((r) => Number(r['ops/s'])));
      report.headline(`apiserver ${spec.verb}: peak ops/s, SQLite vs etcd`, `${Math.round(best('sqlite'))} vs ${Math.round(best('etcd'))} (×${(best('sqlite') / best('etcd')).toFixed(2)})`);
    }
    const points = (verb: Verb, name: string, col: string) => (searches.get(`${verb}/${name}`)?.rows ?? []).map((r) => [Number(r.clients), Number(r[col])] as const);
    for (const spec of verbs) {
      const series = targets.map((t) => ({ name: t.name, points: points(spec.verb, t.name, 'p99 ms') }));
      report.chart({ kind: 'line', title: `${spec.verb}: p99 against concurrent clients`, x: 'concurrent clients', y: 'p99 ms', xLog: true, yLog: true, series, reference: { y: spec.sloMs, label: `SLO ${spec.sloMs / 1000} s` } });
    }
    const throughput = verbs.flatMap((spec) => targets.map((t) => ({ name: `${spec.verb}, ${t.name}`, points: points(spec.verb, t.name, 'ops/s') })));
    report.chart({ kind: 'line', title: 'Throughput against concurrent clients', x: 'concurrent clients', y: 'ops/s', xLog: true, yLog: true, series: throughput });
    report.note(`Each step ${stepMs / 1000} s; list reads a namespace of ${listObjects} ConfigMaps; both servers and etcd ran at once, the client in the benchmark's own process, all on this machine.`);
    data = { stepMs, listObjects, searches: Object.fromEntries(searches) };
  } finally {
    for (const t of targets) {
      t.admin.close();
      await t.server.stop();
    }
    await etcd?.stop();
  }
  // Written once the servers are gone, so their CPU counts as this run's own (see Conditions).
  report.write(data);
}
