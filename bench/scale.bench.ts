/**
 * Scale benchmark: simulated nodes heartbeating every 10 s, plus pods, against one `setpoint
 * server` on SQLite in its own process. `npm run bench -- scale` runs 1,000 nodes with 30,000 pods
 * (Kubernetes' 30 pods per node); `--large` 5,000 nodes with 150,000 pods (Kubernetes' largest
 * supported cluster), written as scale-large; `--nodes N --pods M` any size (as scale-N).
 *
 * Phases: (1) the nodes register (runSimulatedNodes in this process: one timer wheel, one pod
 * informer, one client with 50 qps per node — what as many kubelets would have together); (2) the
 * pods are created, already bound to the nodes (the scheduler is not under test here), 32 creates
 * at a time, and each node reports its pods Running (one status write per pod); (3) steady state
 * for `--minutes` (3): only lease renewals (the fleet's one write per node per 10 s) and the
 * server's compaction, run every minute here (`--compaction-interval 1m`; the default is 5 m) so
 * that a few compactions fall inside the window.
 *
 * Measured: lease-renewal latency (p50, p99, max) as the nodes see it (timed around their client's
 * requests) and as the server logs it (apiserver_request_duration_seconds, interpolated within its
 * buckets); pod-write latency (creates; status writes by the nodes); the server's CPU (share of one
 * core, from /proc) and RSS per phase; the database's growth (state.db + WAL) over the steady
 * window, extrapolated per hour; and the longest compaction pause: the server's event-loop delay
 * (nodejs_eventloop_lag_max_seconds, scraped every second — prom-client resets it at each scrape)
 * in the seconds a compaction started (its compact revision moved) and the 5 s after, beside the
 * same outside compactions, and lease renewals slowed in those windows.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import { runSimulatedNodes } from '@setpoint/agent';
import { Client, type HttpRequest } from '@setpoint/client';
import { ApiClient, histogramQuantile, metricSum, scrape, startServer, type Sample, type ServerProcess } from './harness.js';
import { BenchReport, Latencies, MiB, argValue, cpuSecondsOf, nowMs, rssOf, sleep, smoke, until, type Row } from './lib.js';

const large = process.argv.includes('--large');
const nodeCount = Number(argValue('nodes') ?? (smoke ? 50 : large ? 5_000 : 1_000));
const podCount = Number(argValue('pods') ?? (smoke ? 500 : large ? 150_000 : 30_000));
const steadyMinutes = Number(argValue('minutes') ?? (smoke ? 0.15 : 3));
const compactionInterval = smoke ? '5s' : '1m';
const resultName = argValue('nodes') !== undefined || argValue('pods') !== undefined ? `scale-${nodeCount}` : large ? 'scale-large' : 'scale';
/** Give up a phase after this long and report how far it got. */
const phaseTimeoutMs = large ? 40 * 60_000 : 15 * 60_000;
const NS = 'scale';
/** API calls in flight and pods synced at once by the whole fleet (runSimulatedNodes' defaults: 32 and 16; real kubelets each have their own). */
const FLEET_CONCURRENCY = 64;

/** What the simulated nodes' client did, timed per kind of request. */
class RequestLog {
  readonly leases: Array<[at: number, ms: number]> = [];
  readonly podStatus = new Latencies();
  readonly running = new Set<string>();
  leaseErrors = 0;
  /** Requests sent, and answered or failed (a stalled fleet shows as sent ≫ finished). */
  sent = 0;
  finished = 0;
  /** Failed status writes by reason (a Conflict is retried by the node). */
  readonly statusErrors = new Map<string, number>();

  /** Times every request of `client` (the fleet's); counts pods reported Running. */
  instrument(client: Client): void {
    const http = client.http;
    const original = http.request.bind(http);
    http.request = (async (req: HttpRequest) => {
      const t0 = nowMs();
      this.sent++;
      const lease = req.method === 'PUT' && /\/leases\/[^/]+$/.test(req.path);
      const podStatus = /\/pods\/[^/]+\/status$/.test(req.path) && req.method !== 'GET';
      try {
        const res = await original(req);
        this.finished++;
        const ms = nowMs() - t0;
        if (lease) this.leases.push([t0, ms]);
        if (podStatus) {
          this.podStatus.add(ms);
          const body = req.body as { metadata?: { name?: string }; status?: { phase?: string } } | undefined;
          if (body?.status?.phase === 'Running') this.running.add(body.metadata?.name ?? req.path);
        }
        return res;
      } catch (err) {
        this.finished++;
        if (lease) this.leaseErrors++;
        else if (podStatus) {
          const reason = (err as { reason?: string }).reason ?? (err instanceof Error ? err.name : 'error');
          this.statusErrors.set(reason, (this.statusErrors.get(reason) ?? 0) + 1);
        }
        throw err;
      }
    }) as typeof http.request;
  }

  leaseLatencies(from: number, to: number, inside?: (at: number) => boolean): Latencies {
    const l = new Latencies();
    for (const [at, ms] of this.leases) if (at >= from && at < to && (inside === undefined || inside(at))) l.add(ms);
    return l;
  }
}

function databaseBytes(dir: string): number {
  return readdirSync(dir)
    .filter((f) => /^state\.db(-wal|-shm)?$/.test(f))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
}

/** Server CPU (share of one core) and RSS between two points. */
interface Usage {
  cpuSeconds: number;
  at: number;
}
function usage(server: ServerProcess): Usage {
  return { cpuSeconds: cpuSecondsOf(server.pid), at: nowMs() };
}
function cpuPercent(a: Usage, b: Usage): number {
  return (100 * (b.cpuSeconds - a.cpuSeconds)) / ((b.at - a.at) / 1000);
}

function podBody(i: number): unknown {
  return {
    metadata: { name: `pod-${i}`, namespace: NS, labels: { app: `app-${i % 50}` } },
    spec: {
      nodeName: `sim-node-${i % nodeCount}`,
      containers: [{ name: 'c', image: 'registry.example/app:1', resources: { requests: { cpu: '10m', memory: '16Mi' } } }],
    },
  };
}

interface Sampled {
  at: number;
  samples: Sample[];
  rss: number;
  dbBytes: number;
}

/** Least-squares slope of the database size over time, bytes per ms. */
function slope(samples: readonly Sampled[]): number {
  if (samples.length < 2) return NaN;
  const mx = samples.reduce((a, s) => a + s.at, 0) / samples.length;
  const my = samples.reduce((a, s) => a + s.dbBytes, 0) / samples.length;
  const sxx = samples.reduce((a, s) => a + (s.at - mx) ** 2, 0);
  return sxx > 0 ? samples.reduce((a, s) => a + (s.at - mx) * (s.dbBytes - my), 0) / sxx : NaN;
}

function pct(l: Latencies): string {
  return `p50 ${l.percentile(50).toFixed(1)} ms, p99 ${l.percentile(99).toFixed(1)} ms, max ${l.max.toFixed(0)} ms`;
}

export async function run(): Promise<void> {
  const report = new BenchReport(
    resultName,
    `${nodeCount.toLocaleString('en-US')} simulated nodes heartbeating every 10 s with ${podCount.toLocaleString('en-US')} pods against one \`setpoint server\` on SQLite: lease-renewal and pod-write latency, the server's CPU and RSS, database growth per hour and the longest compaction pause.`,
    `npm run bench -- scale${large ? ' --large' : argValue('nodes') !== undefined ? ` --nodes ${nodeCount} --pods ${podCount}` : ''}`,
  );
  const benchHeapMiB = getHeapStatistics().heap_size_limit / MiB;
  report.note(`Server: \`setpoint server\` on SQLite, --compaction-interval ${compactionInterval}, node --max-old-space-size=${large ? 12288 : 4096}; nodes (${FLEET_CONCURRENCY} API calls and ${FLEET_CONCURRENCY} pod syncs at once for the whole fleet, pods Running as soon as seen) and the pod creator in the benchmark process (heap limit ${Math.round(benchHeapMiB)} MiB). Steady window ${steadyMinutes} min.`);
  const server = await startServer({ store: 'sqlite', args: ['--compaction-interval', compactionInterval], nodeOptions: [`--max-old-space-size=${large ? 12288 : 4096}`] });
  const admin = new ApiClient(server, 40);
  const log = new RequestLog();
  const fleetClient = await Client.fromKubeconfig({ path: server.kubeconfig, qps: 50 * nodeCount, burst: 100 * nodeCount });
  log.instrument(fleetClient);
  const stop = new AbortController();
  let fleet: Promise<void> | undefined;
  const phases: Row[] = [];
  const outcome: Record<string, unknown> = {};
  let broke: string | undefined;
  try {
    await admin.expect(201, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
    // (1) registration
    let u0 = usage(server);
    const t0 = nowMs();
    fleet = runSimulatedNodes({ client: fleetClient, count: nodeCount, namePrefix: 'sim-node-', readyDelayMs: 0, concurrency: FLEET_CONCURRENCY, podConcurrency: FLEET_CONCURRENCY, signal: stop.signal });
    let seenNodes = 0;
    const registering = setInterval(
      () => console.log(`  ${seenNodes.toLocaleString('en-US')} nodes registered, ${log.leases.length.toLocaleString('en-US')} lease renewals; fleet requests sent ${log.sent}, finished ${log.finished}`),
      15_000,
    );
    const registered = await until(
      async () => (seenNodes = (JSON.parse((await admin.expect(200, 'GET', '/api/v1/nodes')).text) as { items: unknown[] }).items.length) >= nodeCount,
      phaseTimeoutMs,
      2000,
    ).finally(() => clearInterval(registering));
    let u1 = usage(server);
    phases.push({ phase: `register ${nodeCount.toLocaleString('en-US')} nodes`, seconds: (u1.at - t0) / 1000, 'server CPU %': cpuPercent(u0, u1), 'server RSS MiB': rssOf(server.pid) / MiB, 'DB MiB': databaseBytes(server.dataDir) / MiB });
    if (!registered) throw new Error(`only some of ${nodeCount} nodes registered within ${phaseTimeoutMs / 60_000} min`);

    // (2) pods
    u0 = u1;
    const creates = new Latencies();
    let next = 0;
    let createErrors = 0;
    const t1 = nowMs();
    const deadline = t1 + phaseTimeoutMs;
    const progress = setInterval(() => console.log(`  ${next.toLocaleString('en-US')} pods created, ${log.running.size.toLocaleString('en-US')} Running, server RSS ${Math.round(rssOf(server.pid) / MiB)} MiB`), 15_000);
    try {
      await Promise.all(
        Array.from({ length: 32 }, async () => {
          while (next < podCount && nowMs() < deadline) {
            const i = next++;
            const c0 = nowMs();
            try {
              await admin.expect(201, 'POST', `/api/v1/namespaces/${NS}/pods`, podBody(i));
              creates.add(nowMs() - c0);
            } catch {
              createErrors++;
            }
          }
        }),
      );
      const createdSeconds = (nowMs() - t1) / 1000;
      const allRunning = await until(() => log.running.size >= podCount - createErrors, Math.max(0, deadline - nowMs()), 500);
      u1 = usage(server);
      phases.push({
        phase: `create ${podCount.toLocaleString('en-US')} pods, all Running`,
        seconds: (u1.at - t1) / 1000,
        'server CPU %': cpuPercent(u0, u1),
        'server RSS MiB': rssOf(server.pid) / MiB,
        'DB MiB': databaseBytes(server.dataDir) / MiB,
        note: `created in ${createdSeconds.toFixed(0)} s (${Math.round(creates.count / createdSeconds)}/s), ${log.running.size.toLocaleString('en-US')} Running${allRunning ? '' : ' — not all in time'}`,
      });
      outcome.podCreates = { count: creates.count, errors: createErrors, p50: creates.percentile(50), p99: creates.percentile(99), max: creates.max };
      outcome.podStatusWrites = { count: log.podStatus.count, p50: log.podStatus.percentile(50), p99: log.podStatus.percentile(99), max: log.podStatus.max };
      report.table('pod writes during the load phase', [
        { write: 'create (bound pod), 32 at a time', count: creates.count, errors: createErrors, 'p50 ms': creates.percentile(50), 'p99 ms': creates.percentile(99), 'max ms': creates.max },
        { write: 'status (Running) by the nodes', count: log.podStatus.count, errors: [...log.statusErrors].map(([r, c]) => `${c} ${r}`).join(', ') || 0, 'p50 ms': log.podStatus.percentile(50), 'p99 ms': log.podStatus.percentile(99), 'max ms': log.podStatus.max },
      ]);
      report.headline(`pod create latency while loading ${podCount.toLocaleString('en-US')} pods`, pct(creates), `${Math.round(creates.count / createdSeconds)} creates/s, 32 at a time`);
      report.headline('pod status write latency (nodes reporting Running)', pct(log.podStatus));
      if (!allRunning) throw new Error(`not every pod was Running within ${phaseTimeoutMs / 60_000} min (${log.running.size} of ${podCount})`);
    } finally {
      clearInterval(progress);
    }

    // (3) steady state
    await sleep(smoke ? 2000 : 15_000); // let the last status writes and the watch fan-out settle
    u0 = usage(server);
    const s0 = nowMs();
    const sampled: Sampled[] = [];
    const steadyEnd = s0 + steadyMinutes * 60_000;
    while (nowMs() < steadyEnd) {
      sampled.push({ at: nowMs(), samples: await scrape(admin), rss: rssOf(server.pid), dbBytes: databaseBytes(server.dataDir) });
      await sleep(1000);
    }
    u1 = usage(server);
    const steadySeconds = (u1.at - s0) / 1000;
    const first = sampled[0]!;
    const last = sampled.at(-1)!;
    // Compactions: the compact revision moved between two scrapes.
    const windows: Array<[number, number]> = [];
    for (let i = 1; i < sampled.length; i++) {
      const before = metricSum(sampled[i - 1]!.samples, 'setpoint_store_compact_revision');
      const now = metricSum(sampled[i]!.samples, 'setpoint_store_compact_revision');
      if (now > before) windows.push([sampled[i - 1]!.at, sampled[i]!.at + 5000]);
    }
    const inCompaction = (at: number) => windows.some(([a, b]) => at >= a && at <= b);
    // The first scrape's figure covers everything since the server started: left out.
    const lag = (keep: (at: number) => boolean) => Math.max(0, ...sampled.slice(1).filter((s) => keep(s.at)).map((s) => metricSum(s.samples, 'nodejs_eventloop_lag_max_seconds') * 1000));
    const leasesAll = log.leaseLatencies(s0, steadyEnd);
    const leasesIn = log.leaseLatencies(s0, steadyEnd, inCompaction);
    const leasesOut = log.leaseLatencies(s0, steadyEnd, (at) => !inCompaction(at));
    const serverLeaseP99 = histogramQuantile(0.99, last.samples, 'apiserver_request_duration_seconds', { verb: 'update', resource: 'leases' }, first.samples) * 1000;
    const revisions = metricSum(last.samples, 'setpoint_store_revision') - metricSum(first.samples, 'setpoint_store_revision');
    // Database growth: least-squares slope of its size over the window, and over its second half
    // (after the first compactions, once freed pages are being reused).
    const growthPerHour = slope(sampled) * 3_600_000;
    const laterGrowthPerHour = slope(sampled.slice(Math.floor(sampled.length / 2))) * 3_600_000;
    const maxRss = Math.max(...sampled.map((s) => s.rss));
    // Without compaction every revision would stay: the history written per hour, at one Lease's size each.
    const leaseBytes = (await admin.expect(200, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/sim-node-0')).text.length;
    const historyPerHour = (revisions / steadySeconds) * 3600 * leaseBytes;
    phases.push({
      phase: `steady ${steadyMinutes} min (leases only)`,
      seconds: steadySeconds,
      'server CPU %': cpuPercent(u0, u1),
      'server RSS MiB': last.rss / MiB,
      'DB MiB': last.dbBytes / MiB,
      note: `${Math.round(revisions / steadySeconds)} writes/s; RSS max ${Math.round(maxRss / MiB)} MiB; ${windows.length} compactions`,
    });
    report.table('phases (server process)', phases);
    report.table(`lease renewals in the steady window (${nodeCount.toLocaleString('en-US')} nodes, every 10 s)`, [
      { seen: 'by the nodes, all', renewals: leasesAll.count, errors: log.leaseErrors, 'p50 ms': leasesAll.percentile(50), 'p99 ms': leasesAll.percentile(99), 'max ms': leasesAll.max },
      { seen: 'by the nodes, outside compactions', renewals: leasesOut.count, 'p50 ms': leasesOut.percentile(50), 'p99 ms': leasesOut.percentile(99), 'max ms': leasesOut.max },
      { seen: 'by the nodes, during compactions (+5 s)', renewals: leasesIn.count, 'p50 ms': leasesIn.percentile(50), 'p99 ms': leasesIn.percentile(99), 'max ms': leasesIn.max },
      { seen: 'by the server (its histogram)', renewals: NaN, 'p99 ms': serverLeaseP99 },
    ]);
    const pauseIn = lag(inCompaction);
    const pauseOut = lag((at) => !inCompaction(at));
    report.table('compaction and the database', [
      {
        compactions: windows.length,
        'longest event-loop pause in compaction windows ms': pauseIn,
        'longest event-loop pause elsewhere ms': pauseOut,
        'slowest lease renewal in compaction windows ms': leasesIn.max,
        'DB growth MiB/hour': growthPerHour / MiB,
        'same, second half of the window': laterGrowthPerHour / MiB,
        'revisions/hour': (revisions / steadySeconds) * 3600,
        'uncompacted history MiB/hour (est.)': historyPerHour / MiB,
        'DB MiB at end': last.dbBytes / MiB,
      },
    ]);
    report.headline(`lease renewal, ${nodeCount.toLocaleString('en-US')} nodes with ${podCount.toLocaleString('en-US')} pods (steady)`, pct(leasesAll), `server-side p99 ${serverLeaseP99.toFixed(1)} ms`);
    report.headline(`API server CPU and RSS, steady (${nodeCount.toLocaleString('en-US')} nodes)`, `${cpuPercent(u0, u1).toFixed(0)}% of a core, ${Math.round(last.rss / MiB)} MiB RSS`, `loading ${podCount.toLocaleString('en-US')} pods: ${Number(phases[1]?.['server CPU %']).toFixed(0)}% of a core`);
    report.headline(`database growth (${nodeCount.toLocaleString('en-US')} nodes, compaction every ${compactionInterval})`, `${(growthPerHour / MiB).toFixed(1)} MiB/hour over ${steadyMinutes} min, ${(laterGrowthPerHour / MiB).toFixed(1)} MiB/hour over its second half`, `${Math.round((revisions / steadySeconds) * 3600).toLocaleString('en-US')} revisions/hour, about ${Math.round(historyPerHour / MiB).toLocaleString('en-US')} MiB/hour of history (${leaseBytes} B per Lease) that compaction keeps from piling up; ${Math.round(last.dbBytes / MiB)} MiB at the end`);
    report.headline(`longest compaction pause (${nodeCount.toLocaleString('en-US')} nodes)`, `${pauseIn.toFixed(0)} ms event-loop delay`, `${windows.length} compactions; elsewhere ${pauseOut.toFixed(0)} ms; slowest lease renewal in them ${leasesIn.max.toFixed(0)} ms; kine's users report 3–5 s`);
    report.chart({
      kind: 'line',
      title: `Steady state, ${nodeCount.toLocaleString('en-US')} nodes: the server's longest event-loop delay in each second`,
      x: 'seconds into the steady window',
      y: 'max event-loop delay ms',
      series: [
        { name: 'event-loop delay', points: sampled.slice(1).map((s) => [(s.at - s0) / 1000, metricSum(s.samples, 'nodejs_eventloop_lag_max_seconds') * 1000] as const) },
        { name: 'compaction started', dotsOnly: true, points: windows.map(([a]) => [(a - s0) / 1000, 0] as const) },
      ],
    });
    report.chart({
      kind: 'line',
      title: 'Database size (state.db + WAL) in the steady window',
      x: 'seconds into the steady window',
      y: 'MiB',
      series: [{ name: 'database', points: sampled.map((s) => [(s.at - s0) / 1000, s.dbBytes / MiB] as const) }],
    });
    Object.assign(outcome, {
      steady: { seconds: steadySeconds, cpuPercent: cpuPercent(u0, u1), rssBytes: last.rss, maxRssBytes: maxRss, dbBytes: last.dbBytes, growthPerHour, laterGrowthPerHour, historyPerHour, leaseBytes, revisions, compactions: windows.length, pauseInMs: pauseIn, pauseOutMs: pauseOut, serverLeaseP99 },
      leases: { all: pct(leasesAll), inCompaction: pct(leasesIn), outside: pct(leasesOut) },
    });
  } catch (err) {
    broke = err instanceof Error ? err.message : String(err);
    report.note(`The run did not complete: ${broke}. Server RSS at that point ${Math.round(rssOf(server.pid) / MiB)} MiB; benchmark heap ${Math.round(process.memoryUsage().heapUsed / MiB)} MiB.`);
    if (phases.length > 0) report.table('phases (server process), as far as the run got', phases);
    report.headline(`scale run ${nodeCount.toLocaleString('en-US')} nodes / ${podCount.toLocaleString('en-US')} pods`, 'did not complete', broke);
  } finally {
    stop.abort();
    await Promise.race([fleet?.catch(() => undefined), sleep(20_000)]);
    fleetClient.close();
    admin.close();
    await server.stop();
  }
  report.write({ nodes: nodeCount, pods: podCount, steadyMinutes, compactionInterval, phases, broke, ...outcome });
}
