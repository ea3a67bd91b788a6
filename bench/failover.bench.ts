/**
 * Failover benchmark, with real processes: `setpoint server` (SQLite), two `setpoint
 * controller-manager --leader-elect`, one `setpoint scheduler`, and two simulated agents
 * (`setpoint agent --simulate`): agent A runs node `node-a-0`, agent B nodes `node-b-0…2` (identical simulated machines).
 *
 * 1. Node failure: a Deployment of 12 pods (tolerating the not-ready and unreachable NoExecute
 *    taints for 0 s, so they are evicted as soon as their node is tainted — Kubernetes' default is
 *    300 s, which would add five minutes), spread by the scheduler over the four nodes. Agent A is
 *    killed (SIGKILL). Measured from the kill: node-a-0 marked Ready=Unknown (after the node monitor
 *    grace period, 50 s, `setpoint controller-manager`'s fixed default), its pods evicted, and every
 *    replica Running and Ready elsewhere.
 * 2. Controller-manager failover, `rounds` times with short leases (lease 4 s, renew deadline 3 s,
 *    retry 0.5 s) and once with the defaults (15 s, 10 s, 2 s): the leader (the one whose
 *    leader_election_master_status is 1) is killed with SIGKILL; at once the Deployment is scaled
 *    up by one. Measured from the kill: the Lease taken by the other replica, and the new pod
 *    created (the successor reconciled). A fresh follower is started after each round.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Deployment, Lease, Node, Pod } from '@setpoint/api';
import { builtin, Client, Manager } from '@setpoint/client';
import { setpointProcess, startServer, stopProcess, waitForOutput, type ServerProcess } from './harness.js';
import { BenchReport, nowMs, sleep, smoke, until, type Row } from './lib.js';

const NS = 'failover';
const replicas = 12;
const rounds = smoke ? 1 : 3;
const SHORT = { lease: '4s', renew: '3s', retry: '500ms' };
const DEFAULT = { lease: '15s', renew: '10s', retry: '2s' };
type LeaseSettings = typeof SHORT;

interface Component {
  readonly child: ChildProcess;
  readonly metricsUrl: string;
}

async function controllerManager(server: ServerProcess, lease: LeaseSettings): Promise<Component> {
  const child = setpointProcess(
    [
      'controller-manager',
      '--kubeconfig', join(server.dataDir, 'components', 'controller-manager.kubeconfig'),
      '--leader-elect',
      '--leader-elect-lease-duration', lease.lease,
      '--leader-elect-renew-deadline', lease.renew,
      '--leader-elect-retry-period', lease.retry,
      '--port', '0',
      '--log-level', 'error',
    ],
    { quiet: true },
  );
  const m = await waitForOutput(child, /health and metrics on (http:\/\/\S+)/);
  return { child, metricsUrl: `${m[1]}/metrics` };
}

async function leads(c: Component): Promise<boolean> {
  try {
    const text = await (await fetch(c.metricsUrl, { signal: AbortSignal.timeout(2000) })).text();
    return /^leader_election_master_status\{[^}]*\} 1$/m.test(text);
  } catch {
    return false;
  }
}

function ready(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp === undefined && pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

const toleration = (key: string) => ({ key, operator: 'Exists' as const, effect: 'NoExecute' as const, tolerationSeconds: 0 });

function deployment(): Deployment {
  return {
    metadata: { name: 'web', namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [{ name: 'web', image: 'registry.example/web:1', resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
          tolerations: [toleration('node.kubernetes.io/not-ready'), toleration('node.kubernetes.io/unreachable')],
        },
      },
    },
  };
}

export async function run(): Promise<void> {
  const report = new BenchReport(
    'failover',
    'Real processes (`setpoint server`, two `setpoint controller-manager --leader-elect`, `setpoint scheduler`, simulated agents): from killing a node\'s agent to its pods Running elsewhere, and from killing the leading controller-manager to the successor reconciling.',
  );
  const server = await startServer({ store: 'sqlite' });
  const children: ChildProcess[] = [];
  const client = await Client.fromKubeconfig({ path: server.kubeconfig, qps: 1000, burst: 2000 });
  const observer = new Manager({ client, gracefulShutdownMs: 1000 });
  const pods = observer.informer<Pod>(builtin.pods, { namespace: NS });
  const nodes = observer.informer<Node>(builtin.nodes);
  const leases = observer.informer<Lease>(builtin.leases, { namespace: 'kube-system' });
  const stop = new AbortController();
  const observing = observer.start(stop.signal);
  const agent = (args: string[], pattern: RegExp) => {
    const child = setpointProcess(['agent', '--kubeconfig', server.kubeconfig, '--simulate', '--ready-delay', '0s', '--log-level', 'error', ...args], { quiet: true });
    children.push(child);
    return { child, started: waitForOutput(child, pattern) };
  };
  let cms: Component[] = [];
  let data: Record<string, unknown> = {};
  try {
    const a = agent(['--node-name', 'node-a', '--nodes', '1', '--name-prefix', 'node-a-'], /simulated nodes running/);
    const b = agent(['--node-name', 'node-b', '--nodes', '3', '--name-prefix', 'node-b-'], /simulated nodes running/);
    const scheduler = setpointProcess(['scheduler', '--kubeconfig', join(server.dataDir, 'components', 'scheduler.kubeconfig'), '--port', '0', '--log-level', 'error'], { quiet: true });
    children.push(scheduler);
    cms = [await controllerManager(server, SHORT), await controllerManager(server, SHORT)];
    await Promise.all([a.started, b.started, waitForOutput(scheduler, /health and metrics on/)]);
    await client.namespaces().create({ metadata: { name: NS } });
    const nodesUp = await until(() => nodes.store.list().filter((n) => (n.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True')).length >= 4, 60_000, 100);
    if (!nodesUp) throw new Error('the four nodes did not become Ready within 60 s');
    await client.deployments().create(deployment());
    const running = () => pods.store.list().filter(ready);
    if (!(await until(() => running().length >= replicas, 60_000, 50))) throw new Error(`only ${running().length} of ${replicas} pods Running after 60 s`);
    const onA = running().filter((p) => p.spec?.nodeName === 'node-a-0').length;

    // 1. Node failure.
    const kill = nowMs();
    await stopProcess(a.child, 'SIGKILL');
    const nodeA = () => nodes.store.list().find((n) => n.metadata.name === 'node-a-0');
    const unknown = await until(() => (nodeA()?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status !== 'True'), 180_000, 50);
    const tUnknown = nowMs() - kill;
    const evicted = await until(() => pods.store.list().some((p) => p.spec?.nodeName === 'node-a-0' && p.metadata.deletionTimestamp !== undefined) || onA === 0, 120_000, 50);
    const tEvicted = nowMs() - kill;
    const replaced = await until(() => running().filter((p) => p.spec?.nodeName !== 'node-a-0').length >= replicas, 120_000, 50);
    const tReplaced = nowMs() - kill;
    const nodeRows: Row[] = [
      { step: 'agent killed (SIGKILL)', 's after kill': 0 },
      { step: 'node-a-0 Ready=Unknown (grace period 50 s)', 's after kill': unknown ? tUnknown / 1000 : NaN },
      { step: `first of its ${onA} pods evicted`, 's after kill': evicted ? tEvicted / 1000 : NaN, 's after Unknown': (tEvicted - tUnknown) / 1000 },
      { step: `all ${replicas} replicas Running and Ready elsewhere`, 's after kill': replaced ? tReplaced / 1000 : NaN, 's after Unknown': (tReplaced - tUnknown) / 1000 },
    ];
    report.table(`node failure: agent A (node-a-0, ${onA} of ${replicas} pods) killed`, nodeRows);
    report.headline('node agent killed → its pods Running elsewhere', replaced ? `${(tReplaced / 1000).toFixed(1)} s` : 'not within the deadline', `most of it the node monitor grace period (50 s from the last lease renewal seen, up to 10 s before the kill); ${((tReplaced - tUnknown) / 1000).toFixed(1)} s from Ready=Unknown to all replicas Running`);

    // 2. Controller-manager failover.
    const cmRows: Row[] = [];
    const plan: Array<[string, LeaseSettings]> = [...Array.from({ length: rounds }, () => ['short', SHORT] as [string, LeaseSettings]), ['default', DEFAULT]];
    let scale = replicas;
    for (const [label, lease] of plan) {
      if (cms.some((c) => c.child.exitCode !== null) || label === 'default') {
        for (const c of cms) await stopProcess(c.child);
        cms = [await controllerManager(server, lease), await controllerManager(server, lease)];
      }
      if (!(await until(async () => (await Promise.all(cms.map(leads))).some(Boolean), 60_000, 100))) throw new Error('no controller-manager leads');
      await sleep(1000); // the follower's caches are synced
      const leaderIndex = (await Promise.all(cms.map(leads))).indexOf(true);
      const leader = cms[leaderIndex]!;
      const follower = cms[1 - leaderIndex]!;
      const holder = () => leases.store.list().find((l) => l.metadata.name === 'setpoint-controller-manager')?.spec?.holderIdentity;
      const before = holder();
      const podsBefore = new Set(pods.store.list().map((p) => p.metadata.name));
      const t0 = nowMs();
      await stopProcess(leader.child, 'SIGKILL');
      scale++;
      await client.deployments().patch('web', { spec: { replicas: scale } }, { namespace: NS, type: 'merge' });
      const took = await until(() => holder() !== undefined && holder() !== before, 60_000, 20);
      const tTook = nowMs() - t0;
      const reconciled = await until(() => pods.store.list().some((p) => !podsBefore.has(p.metadata.name)), 60_000, 20);
      const tReconciled = nowMs() - t0;
      cmRows.push({
        round: cmRows.length + 1,
        leases: `${label} (${lease.lease} / ${lease.renew} / ${lease.retry})`,
        'lease taken s': took ? tTook / 1000 : NaN,
        'successor reconciled s': reconciled ? tReconciled / 1000 : NaN,
      });
      console.log(`controller-manager failover, ${label} leases: lease taken after ${(tTook / 1000).toFixed(2)} s, reconciled after ${(tReconciled / 1000).toFixed(2)} s`);
      cms = [follower, await controllerManager(server, lease)];
    }
    report.table('controller-manager failover: leader killed (SIGKILL), Deployment scaled up at once (lease duration / renew deadline / retry period)', cmRows);
    const short = cmRows.filter((r) => String(r.leases).startsWith('short'));
    const worst = Math.max(...short.map((r) => Number(r['successor reconciled s'])));
    const mean = short.reduce((s, r) => s + Number(r['successor reconciled s']), 0) / short.length;
    report.headline('leading controller-manager killed → successor reconciling (lease 4 s)', `${mean.toFixed(1)} s mean, ${worst.toFixed(1)} s worst of ${short.length}`);
    const def = cmRows.find((r) => String(r.leases).startsWith('default'));
    if (def) report.headline('… with the default leases (15 s / 10 s / 2 s)', `${Number(def['successor reconciled s']).toFixed(1)} s`);
    report.chart({
      kind: 'bar',
      title: 'Failover times (s after the kill)',
      unit: 's',
      bars: [
        ...nodeRows.slice(1).map((r) => ({ label: String(r.step).replace(/ \(.*\)/, ''), value: Number(r['s after kill']), series: 'node agent killed' })),
        ...cmRows.map((r) => ({ label: `cm round ${r.round}, ${String(r.leases).split(' ')[0]} lease`, value: Number(r['successor reconciled s']), series: 'controller-manager killed' })),
      ],
    });
    report.note(`Node failure: the pods tolerate node.kubernetes.io/unreachable and not-ready for 0 s; setpoint controller-manager's node monitor grace period is 50 s and not a flag yet, so most of the node figure is that wait. Controller-managers with --leader-elect-lease-duration ${SHORT.lease} --leader-elect-renew-deadline ${SHORT.renew} --leader-elect-retry-period ${SHORT.retry}, then the defaults.`);
    data = { replicas, podsOnKilledNode: onA, node: nodeRows, controllerManager: cmRows, leaseSettings: { short: SHORT, default: DEFAULT } };
  } finally {
    stop.abort();
    await observing.catch(() => undefined);
    client.close();
    for (const c of [...children, ...cms.map((x) => x.child)]) await stopProcess(c, 'SIGTERM', 5000);
    await server.stop();
  }
  // Written once every process is gone, so their CPU counts as this run's own (see Conditions).
  report.write(data);
}
