/**
 * Scheduler benchmark: pods placed per second onto 1,000 and 5,000 nodes (100 with --smoke).
 *
 * For each size: an in-process control plane on a memory store, the Node objects (Ready; 32 cpu,
 * 128Gi, 110 pods; ten zones) written straight into the store before the API server starts; a
 * Manager running the scheduler (default options: adaptive percentageOfNodesToScore, 16 bindings
 * in flight) on a client without a rate limit. Once its caches have synced, 2,000 pending pods
 * (200 with --smoke; 100m and 128Mi each, every fourth with a preferred node affinity and every
 * fifth with a zone spread constraint) are written straight into the store in one burst; the API
 * server's watch carries them to the scheduler as it would carry creations. Measured: from the
 * first write to the last successful binding (the API server, the watch and the events the
 * scheduler records run in the same process and count). A warm-up round (1,000 nodes, 2,000 pods)
 * runs first and is not reported: without it the first size measured pays for compiling the code.
 */
import type { Node, Pod } from '@setpoint/api';
import { Client, Manager } from '@setpoint/client';
import { startControlPlane } from '@setpoint/testing';
import { registerScheduler } from '@setpoint/controllers';
import { MemoryStore } from '@setpoint/store';
import { BenchReport, nowMs, smoke, type Row } from './lib.js';

const sizes = smoke ? [100] : [1_000, 5_000];
const podCount = smoke ? 200 : 2_000;
const created = '2026-01-01T00:00:00Z';

function nodeJson(i: number): string {
  const name = `node-${String(i).padStart(5, '0')}`;
  const node: Node = {
    metadata: { name, uid: crypto.randomUUID(), creationTimestamp: created, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': `zone-${i % 10}` } },
    spec: {},
    status: {
      capacity: { cpu: '32', memory: '128Gi', pods: '110' },
      allocatable: { cpu: '32', memory: '128Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: created, lastTransitionTime: created }],
    },
  };
  return JSON.stringify(node);
}

function podJson(i: number): string {
  const name = `pod-${String(i).padStart(5, '0')}`;
  const pod: Pod = {
    metadata: { name, namespace: 'default', uid: crypto.randomUUID(), creationTimestamp: created, labels: { app: `app-${i % 20}` } },
    spec: {
      schedulerName: 'default-scheduler',
      priority: 0,
      containers: [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '100m', memory: '128Mi' } } }],
      ...(i % 4 === 0
        ? { affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, preference: { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['zone-1', 'zone-2'] }] } }] } } }
        : {}),
      ...(i % 5 === 0
        ? { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway' as const, labelSelector: { matchLabels: { app: `app-${i % 20}` } } }] }
        : {}),
    },
    status: { phase: 'Pending', qosClass: 'Burstable' },
  };
  return JSON.stringify(pod);
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = nowMs() + timeoutMs;
  while (!check()) {
    if (nowMs() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return true;
}

async function measure(nodes: number, pods: number): Promise<Row> {
  const store = new MemoryStore();
  for (let i = 0; i < nodes; i++) await store.create(`/registry/core/nodes/node-${String(i).padStart(5, '0')}`, nodeJson(i));
  const cp = await startControlPlane({ store });
  const client = new Client(cp.config, { qps: 1_000_000, burst: 1_000_000 });
  const manager = new Manager({ client });
  const scheduler = registerScheduler(manager);
  const stop = new AbortController();
  const started = nowMs();
  const running = manager.start(stop.signal);
  try {
    await until(() => manager.ready(), 120_000); // the scheduler registered its handlers when the manager started it
    const syncMs = nowMs() - started;
    const t0 = nowMs();
    for (let i = 0; i < pods; i++) await store.create(`/registry/core/pods/default/pod-${String(i).padStart(5, '0')}`, podJson(i));
    const writtenMs = nowMs() - t0;
    const done = await until(() => scheduler.stats.scheduled + scheduler.stats.unschedulable >= pods, 300_000);
    const seconds = (nowMs() - t0) / 1000;
    return {
      nodes: String(nodes),
      pods: String(pods),
      placed: String(scheduler.stats.scheduled),
      unschedulable: String(scheduler.stats.unschedulable),
      'bind errors': String(scheduler.stats.errors),
      'writes ms': writtenMs,
      seconds,
      'pods/s': scheduler.stats.scheduled / seconds,
      'sync ms': syncMs,
      ...(done ? {} : { note: 'timed out after 300 s' }),
    };
  } finally {
    stop.abort();
    await running;
    client.close();
    await cp.stop();
    await store.close();
  }
}

export async function run(): Promise<void> {
  await measure(smoke ? 50 : 1_000, smoke ? 50 : podCount); // warm-up (JIT, allocator), not reported
  const rows: Row[] = [];
  for (const nodes of sizes) rows.push(await measure(nodes, podCount));
  const report = new BenchReport('scheduler', `Pods placed per second by the scheduler: ${podCount.toLocaleString('en-US')} pending pods onto ${sizes.map((n) => n.toLocaleString('en-US')).join(' and ')} nodes, with the API server, its watch and the scheduler in one process.`);
  report.table(`Scheduler: ${podCount} pods placed onto N nodes (one process: API server, watch, scheduler)`, rows);
  for (const r of rows) report.headline(`scheduler throughput, ${Number(r.nodes).toLocaleString('en-US')} nodes`, `${Math.round(Number(r['pods/s']))} pods/s`, `${r.placed} of ${r.pods} placed in ${Number(r.seconds).toFixed(1)} s`);
  report.chart({ kind: 'bar', title: 'Scheduler throughput', unit: 'pods/s', bars: rows.map((r) => ({ label: `${Number(r.nodes).toLocaleString('en-US')} nodes`, value: Number(r['pods/s']) })) });
  report.write({ pods: podCount, rows });
}
