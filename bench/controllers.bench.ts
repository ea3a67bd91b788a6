/**
 * Controllers benchmark: a Deployment of 3,000 replicas on 100 simulated nodes (300 pods on 10
 * nodes with --smoke), in one process: the API server on SQLite (durable, in a temporary
 * directory), the built-in controllers in one Manager (as `setpoint controller-manager`: client
 * 200 qps, burst 400), the scheduler in another (the same limits), and the simulated nodes
 * (runSimulatedNodes: 10 s lease renewals; pods Running and Ready as soon as their node's agent
 * sees them, readyDelay 0 — no container to start, as Kubernetes' SLO leaves image pulls out; one
 * client with 50 qps per node, what 100 kubelets would have together).
 *
 * Measured, by a separate watcher of the pods (so "observed via watch", as Kubernetes' pod startup
 * SLI says): from the Deployment's creation until every pod is Ready; each pod's startup latency,
 * from when its creation was observed to when it was observed Running and Ready (p50, p99, max;
 * Kubernetes' SLO: p99 ≤ 5 s), split at its binding; and reconciles per event: the
 * controller-manager's reconciles per controller (controller_runtime_reconcile_total) beside the
 * watch events its shared informers delivered and the keys its handlers queued
 * (workqueue_adds_total) — the fewer reconciles per event, the more coalescing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Deployment, Pod } from '@setpoint/api';
import { runSimulatedNodes } from '@setpoint/agent';
import { builtin, Client, Manager, type ControllerMetrics } from '@setpoint/client';
import { startControlPlane } from '@setpoint/testing';
import { NODE_LEASE_NAMESPACE, registerBuiltinControllers, registerScheduler } from '@setpoint/controllers';
import { SqliteStore } from '@setpoint/store';
import { BenchReport, Latencies, nowMs, sleep, smoke, until, type Row } from './lib.js';

const replicas = smoke ? 300 : 3_000;
const nodes = smoke ? 10 : 100;
const NS = 'bench';

/** The kinds whose events reach each controller's handlers (its for() and watches()). */
const WATCHES: Record<string, readonly string[]> = {
  replicaset: ['replicasets', 'pods'],
  deployment: ['deployments', 'replicasets', 'pods'],
  'node-lifecycle': ['nodes', 'leases'],
  'taint-eviction': ['nodes', 'pods'],
};

interface PodTimes {
  created: number;
  bound?: number;
  ready?: number;
}

function isReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

async function counters(metrics: ControllerMetrics, name: string, label: string): Promise<Map<string, number>> {
  const metric = metrics.registry.getSingleMetric(name);
  const out = new Map<string, number>();
  if (metric === undefined) return out;
  for (const v of (await metric.get()).values) {
    const key = String(v.labels[label] ?? '');
    out.set(key, (out.get(key) ?? 0) + v.value);
  }
  return out;
}

interface Scenario {
  readonly label: string;
  /** The controller-manager's and the scheduler's client limits; undefined: none. */
  readonly limits: { readonly qps: number; readonly burst: number } | undefined;
}

interface Outcome {
  readonly latency: Row[];
  readonly deployment: Row;
  readonly controllers: Row[];
  readonly eventsTitle: string;
  readonly allReadySeconds: number;
  readonly startup: Latencies;
  readonly workload: number;
  readonly workloadEvents: number;
  readonly replicaSetRatio: number;
}

async function scenario(sc: Scenario): Promise<Outcome> {
  const limits = sc.limits ?? { qps: 1_000_000, burst: 1_000_000 };
  const dir = mkdtempSync(join(tmpdir(), 'setpoint-bench-controllers-'));
  const store = await SqliteStore.open({ path: join(dir, 'db.sqlite') });
  const cp = await startControlPlane({ store });
  const stop = new AbortController();
  const cmClient = new Client(cp.config, limits);
  const schedulerClient = new Client(cp.config, limits);
  const nodeClient = new Client(cp.config, { qps: 50 * nodes, burst: 100 * nodes });
  const watchClient = new Client(cp.config, { qps: 1_000_000, burst: 1_000_000 });
  const cm = new Manager({ client: cmClient, gracefulShutdownMs: 2000 });
  registerBuiltinControllers(cm);
  const schedulerManager = new Manager({ client: schedulerClient, gracefulShutdownMs: 2000 });
  const scheduler = registerScheduler(schedulerManager);
  const observer = new Manager({ client: watchClient, namespace: NS, gracefulShutdownMs: 2000 });

  // What the controller-manager's shared informers delivered, by kind.
  const events = new Map<string, number>();
  const informers = [
    ['pods', cm.informer(builtin.pods)],
    ['replicasets', cm.informer(builtin.replicaSets)],
    ['deployments', cm.informer(builtin.deployments)],
    ['nodes', cm.informer(builtin.nodes)],
    ['leases', cm.informer(builtin.leases, { namespace: NODE_LEASE_NAMESPACE })],
  ] as const;
  for (const [kind, informer] of informers) {
    const count = () => events.set(kind, (events.get(kind) ?? 0) + 1);
    informer.addEventHandler({ onAdd: count, onUpdate: count, onDelete: count });
  }
  // Pod timeline, as a watcher sees it.
  const pods = new Map<string, PodTimes>();
  let readyCount = 0;
  const seen = (pod: Pod) => {
    const name = pod.metadata.name ?? '';
    const now = nowMs();
    let t = pods.get(name);
    if (t === undefined) pods.set(name, (t = { created: now }));
    if (t.bound === undefined && (pod.spec?.nodeName ?? '') !== '') t.bound = now;
    if (t.ready === undefined && isReady(pod)) {
      t.ready = now;
      readyCount++;
    }
  };
  observer.informer<Pod>(builtin.pods).addEventHandler({ onAdd: (p) => seen(p as Pod), onUpdate: (_o, p) => seen(p as Pod) });

  const running = [cm.start(stop.signal), schedulerManager.start(stop.signal), observer.start(stop.signal)];
  const fleet = runSimulatedNodes({ client: nodeClient, count: nodes, namePrefix: 'sim-', readyDelayMs: 0, signal: stop.signal });
  try {
    await watchClient.namespaces().create({ metadata: { name: NS } });
    const nodesReady = await until(async () => (await watchClient.nodes().list()).items.length >= nodes && cm.ready() && schedulerManager.ready() && observer.ready(), 120_000, 100);
    if (!nodesReady) throw new Error('the nodes or the managers did not come up within 120 s');
    await sleep(1000); // every node's first status is in the scheduler's cache
    const before = {
      reconciles: await counters(cm.metrics, 'controller_runtime_reconcile_total', 'controller'),
      adds: await counters(cm.metrics, 'workqueue_adds_total', 'name'),
      events: new Map(events),
    };
    const t0 = nowMs();
    const deployment: Deployment = {
      metadata: { name: 'web', namespace: NS },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image: 'registry.example/web:1', resources: { requests: { cpu: '10m', memory: '16Mi' } } }] },
        },
      },
    };
    await watchClient.deployments().create(deployment);
    const done = await until(() => readyCount >= replicas, smoke ? 120_000 : 600_000, 50);
    const allReadySeconds = (nowMs() - t0) / 1000;
    // Let the controllers write their last statuses, then count.
    await until(async () => ((await watchClient.deployments().get('web', { namespace: NS })).status?.readyReplicas ?? 0) >= replicas, 60_000, 200);
    const statusSeconds = (nowMs() - t0) / 1000;
    await sleep(2000);
    const after = {
      reconciles: await counters(cm.metrics, 'controller_runtime_reconcile_total', 'controller'),
      adds: await counters(cm.metrics, 'workqueue_adds_total', 'name'),
    };

    const startup = new Latencies();
    const toBind = new Latencies();
    const bindToReady = new Latencies();
    for (const t of pods.values()) {
      if (t.ready === undefined) continue;
      startup.add(t.ready - t.created);
      if (t.bound !== undefined) {
        toBind.add(t.bound - t.created);
        bindToReady.add(t.ready - t.bound);
      }
    }
    const latencyRows: Row[] = [
      { phase: 'created → Running and Ready (startup)', pods: startup.count, 'p50 ms': startup.percentile(50), 'p90 ms': startup.percentile(90), 'p99 ms': startup.percentile(99), 'max ms': startup.max },
      { phase: 'created → bound (scheduling)', pods: toBind.count, 'p50 ms': toBind.percentile(50), 'p90 ms': toBind.percentile(90), 'p99 ms': toBind.percentile(99), 'max ms': toBind.max },
      { phase: 'bound → Running and Ready (node)', pods: bindToReady.count, 'p50 ms': bindToReady.percentile(50), 'p90 ms': bindToReady.percentile(90), 'p99 ms': bindToReady.percentile(99), 'max ms': bindToReady.max },
    ];
    const deploymentRow: Row = {
      clients: sc.label,
      replicas,
      nodes,
      'all pods Ready s': allReadySeconds,
      'Deployment status readyReplicas s': statusSeconds,
      'pods/s': replicas / allReadySeconds,
      'scheduled by scheduler': scheduler.stats.scheduled,
      'bind errors': scheduler.stats.errors,
      ...(done ? {} : { note: 'not every pod became Ready in time' }),
    };
    const delta = (a: Map<string, number>, b: Map<string, number>, k: string) => (a.get(k) ?? 0) - (b.get(k) ?? 0);
    const eventsOf = (kinds: readonly string[]) => kinds.reduce((sum, k) => sum + delta(events, before.events, k), 0);
    const controllerRows: Row[] = [...after.reconciles.keys()]
      .filter((c) => delta(after.reconciles, before.reconciles, c) > 0)
      .map((c) => {
        const kinds = WATCHES[c] ?? [];
        const reconciles = delta(after.reconciles, before.reconciles, c);
        const watched = eventsOf(kinds);
        return { clients: sc.label, controller: c, watches: kinds.join(', '), 'events of those kinds': watched, 'keys queued': delta(after.adds, before.adds, c), reconciles, 'reconciles per event': reconciles / watched };
      });
    const reconcilesOf = (c: string) => Number(controllerRows.find((r) => r.controller === c)?.reconciles ?? 0);
    return {
      latency: latencyRows.map((r) => ({ clients: sc.label, ...r })),
      deployment: deploymentRow,
      controllers: controllerRows,
      eventsTitle: [...events.keys()].map((k) => `${k} ${delta(events, before.events, k)}`).join(', '),
      allReadySeconds,
      startup,
      workload: reconcilesOf('replicaset') + reconcilesOf('deployment'),
      workloadEvents: eventsOf(['pods', 'replicasets', 'deployments']),
      replicaSetRatio: reconcilesOf('replicaset') / eventsOf(['replicasets', 'pods']),
    };
  } finally {
    stop.abort();
    await Promise.allSettled([...running, fleet]);
    for (const c of [cmClient, schedulerClient, nodeClient, watchClient]) c.close();
    await cp.stop();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const scenarios: readonly Scenario[] = [
  { label: 'clients at 200 qps', limits: { qps: 200, burst: 400 } },
  { label: 'clients unlimited', limits: undefined },
];

export async function run(): Promise<void> {
  const report = new BenchReport(
    'controllers',
    `A Deployment of ${replicas.toLocaleString('en-US')} replicas on ${nodes} simulated nodes, with the built-in controllers, the scheduler and the API server (SQLite) in one process: time until every pod is Ready, pod startup latency (Kubernetes' SLO: p99 ≤ 5 s), and reconciles per event — once with the client rate limits \`setpoint controller-manager\` and \`setpoint scheduler\` use (200 qps, burst 400), once without any.`,
  );
  const outcomes: Outcome[] = [];
  for (const sc of scenarios) outcomes.push(await scenario(sc));
  report.table(`pod startup latency, observed via watch (${replicas.toLocaleString('en-US')} pods, ${nodes} nodes)`, outcomes.flatMap((o) => o.latency));
  report.table('the Deployment', outcomes.map((o) => o.deployment));
  outcomes.forEach((o, i) => report.table(`reconciles per event, ${scenarios[i]!.label}: watch events that reached the controller-manager: ${o.eventsTitle}`, o.controllers));
  outcomes.forEach((o, i) => {
    const label = scenarios[i]!.label;
    report.headline(`Deployment of ${replicas.toLocaleString('en-US')} replicas on ${nodes} simulated nodes: all Ready (${label})`, `${o.allReadySeconds.toFixed(1)} s`, `${Math.round(replicas / o.allReadySeconds)} pods/s`);
    report.headline(`pod startup latency, created → Running via watch (${label})`, `p50 ${(o.startup.percentile(50) / 1000).toFixed(2)} s, p99 ${(o.startup.percentile(99) / 1000).toFixed(2)} s`, "Kubernetes' SLO: p99 ≤ 5 s");
    report.headline(
      `reconciles per event, ReplicaSet + Deployment controllers (${label})`,
      `${(o.workload / o.workloadEvents).toFixed(3)}`,
      `${o.workload.toLocaleString('en-US')} reconciles for ${o.workloadEvents.toLocaleString('en-US')} pod, ReplicaSet and Deployment events; ReplicaSet controller alone ${o.replicaSetRatio.toFixed(3)}`,
    );
  });
  report.chart({
    kind: 'bar',
    title: `Pod startup latency, ${replicas.toLocaleString('en-US')} pods on ${nodes} nodes (SLO: p99 ≤ 5 s)`,
    unit: 's',
    bars: outcomes.flatMap((o, i) =>
      o.latency.flatMap((r) => [
        { label: `${String(r.phase).split(' (')[0]} p50`, value: Number(r['p50 ms']) / 1000, series: scenarios[i]!.label },
        { label: `${String(r.phase).split(' (')[0]} p99`, value: Number(r['p99 ms']) / 1000, series: scenarios[i]!.label },
      ]),
    ),
  });
  report.chart({
    kind: 'bar',
    title: 'Reconciles per watch event of the kinds each controller watches',
    unit: '',
    bars: outcomes.flatMap((o, i) => o.controllers.map((r) => ({ label: String(r.controller), value: Number(r['reconciles per event']), series: scenarios[i]!.label }))),
  });
  report.note(
    `In one process on SQLite. Simulated nodes: one client with ${50 * nodes} qps in all (50 per node, the kubelet's default), pods Ready as soon as their node sees them (readyDelay 0). ` +
      'The scheduler makes about two API calls per pod (the binding and its Scheduled event), so at 200 qps it binds about 100 pods/s; the second run shows the control plane without that limit.',
  );
  report.write({ replicas, nodes, outcomes: outcomes.map((o, i) => ({ scenario: scenarios[i]!.label, latency: o.latency, deployment: o.deployment, controllers: o.controllers })) });
}
