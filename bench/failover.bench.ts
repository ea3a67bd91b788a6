/**
 * Failover benchmark, with real processes: `setpoint server` (SQLite), two `setpoint
 * controller-manager --leader-elect`, one `setpoint scheduler`, and simulated agents (`setpoint
 * agent --simulate`, identical simulated machines): agent B runs nodes `node-b-0…2` throughout,
 * and each node-failure round starts an agent A with one node `node-a-K`.
 *
 * Node failure: a Deployment of 12 pods (tolerating the not-ready and unreachable NoExecute taints
 * for 0 s, so they are evicted as soon as their node is tainted — Kubernetes' default of 300 s
 * would add five minutes), spread by the scheduler over the four nodes; agent A is killed
 * (SIGKILL). Measured from the kill: node-a-K marked Ready=Unknown, its pods evicted, every replica
 * Running and Ready elsewhere. Once with short settings (agent --node-lease-duration-seconds 8, so
 * a renewal every 2 s; controller-manager --node-monitor-grace-period 10s) and once with the
 * defaults (40 s, every 10 s; 50 s).
 *
 * Controller-manager failover: the leader (the one whose leader_election_master_status is 1) is
 * killed with SIGKILL and at once the Deployment is scaled up by one. Measured from the kill: the
 * Lease taken by the other replica, and the new pod created (the successor reconciled). `rounds`
 * times with short leases (lease 4 s, renew deadline 3 s, retry 0.5 s), then once with the defaults
 * (15 s, 10 s, 2 s). A fresh follower is started after each round.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Deployment, Lease, Node, Pod } from '@setpoint/api';
import { builtin, Client, Manager, type SharedInformer } from '@setpoint/client';
import { setpointProcess, startServer, stopProcess, waitForOutput, type ServerProcess } from './harness.js';
import { BenchReport, nowMs, sleep, smoke, until, type Row } from './lib.js';

const NS = 'failover';
const replicas = 12;
const rounds = smoke ? 1 : 3;

interface Settings {
  readonly label: string;
  /** Leader election: lease duration, renew deadline, retry period. */
  readonly lease: string;
  readonly renew: string;
  readonly retry: string;
  /** The controller-manager's node monitor grace period, and the agent's node Lease duration (s). */
  readonly grace: string;
  readonly nodeLeaseSeconds: number;
}
const SHORT: Settings = { label: 'short', lease: '4s', renew: '3s', retry: '500ms', grace: '10s', nodeLeaseSeconds: 8 };
const DEFAULT: Settings = { label: 'default', lease: '15s', renew: '10s', retry: '2s', grace: '50s', nodeLeaseSeconds: 40 };

interface Component {
  readonly child: ChildProcess;
  readonly metricsUrl: string;
}

async function controllerManager(server: ServerProcess, s: Settings): Promise<Component> {
  const child = setpointProcess(
    [
      'controller-manager',
      '--kubeconfig', join(server.dataDir, 'components', 'controller-manager.kubeconfig'),
      '--leader-elect',
      '--leader-elect-lease-duration', s.lease,
      '--leader-elect-renew-deadline', s.renew,
      '--leader-elect-retry-period', s.retry,
      '--node-monitor-grace-period', s.grace,
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

function nodeReady(node: Node | undefined): boolean {
  return (node?.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

const toleration = (key: string) => ({ key, operator: 'Exists' as const, effect: 'NoExecute' as const, tolerationSeconds: 0 });

function deployment(name: string): Deployment {
  return {
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: 'web', image: 'registry.example/web:1', resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
          tolerations: [toleration('node.kubernetes.io/not-ready'), toleration('node.kubernetes.io/unreachable')],
        },
      },
    },
  };
}

interface Cluster {
  readonly server: ServerProcess;
  readonly client: Client;
  readonly pods: SharedInformer<Pod>;
  readonly nodes: SharedInformer<Node>;
  readonly leases: SharedInformer<Lease>;
  readonly children: ChildProcess[];
}

function agent(c: Cluster, name: string, count: number, nodeLeaseSeconds: number): { child: ChildProcess; started: Promise<unknown> } {
  const child = setpointProcess(
    ['agent', '--kubeconfig', c.server.kubeconfig, '--simulate', '--ready-delay', '0s', '--node-lease-duration-seconds', String(nodeLeaseSeconds), '--log-level', 'error', '--node-name', name, '--nodes', String(count), '--name-prefix', `${name}-`],
    { quiet: true },
  );
  c.children.push(child);
  return { child, started: waitForOutput(child, /simulated nodes running/) };
}

/** Starts agent A with node `node`, runs a fresh Deployment over it and agent B's nodes, kills A; the timeline. */
async function nodeFailure(c: Cluster, s: Settings, index: number): Promise<{ rows: Row[]; total: number; afterUnknown: number }> {
  const node = `node-a${index}-0`;
  const a = agent(c, `node-a${index}`, 1, s.nodeLeaseSeconds);
  await a.started;
  if (!(await until(() => nodeReady(c.nodes.store.list().find((n) => n.metadata.name === node)), 60_000, 100))) throw new Error(`${node} did not become Ready`);
  const name = `web-${s.label}`;
  await c.client.deployments().create(deployment(name));
  const running = () => c.pods.store.list().filter((p) => p.metadata.labels?.app === name && ready(p));
  if (!(await until(() => running().length >= replicas, 60_000, 50))) throw new Error(`only ${running().length} of ${replicas} pods Running after 60 s`);
  const onA = running().filter((p) => p.spec?.nodeName === node).length;
  await sleep(s.nodeLeaseSeconds * 250 + 500); // at least one renewal of A's Lease since it started
  const kill = nowMs();
  await stopProcess(a.child, 'SIGKILL');
  const unknown = await until(() => !nodeReady(c.nodes.store.list().find((n) => n.metadata.name === node)), 180_000, 50);
  const tUnknown = nowMs() - kill;
  const evicted = await until(() => onA === 0 || c.pods.store.list().some((p) => p.spec?.nodeName === node && p.metadata.deletionTimestamp !== undefined), 120_000, 50);
  const tEvicted = nowMs() - kill;
  const replaced = await until(() => running().filter((p) => p.spec?.nodeName !== node).length >= replicas, 120_000, 50);
  const tReplaced = nowMs() - kill;
  const settings = `${s.label}: node Lease ${s.nodeLeaseSeconds} s, grace ${s.grace}`;
  return {
    rows: [
      { settings, step: `${node} Ready=Unknown`, 's after kill': unknown ? tUnknown / 1000 : NaN },
      { settings, step: `first of its ${onA} pods evicted`, 's after kill': evicted ? tEvicted / 1000 : NaN, 's after Unknown': (tEvicted - tUnknown) / 1000 },
      { settings, step: `all ${replicas} replicas Running and Ready elsewhere`, 's after kill': replaced ? tReplaced / 1000 : NaN, 's after Unknown': (tReplaced - tUnknown) / 1000 },
    ],
    total: replaced ? tReplaced / 1000 : NaN,
    afterUnknown: (tReplaced - tUnknown) / 1000,
  };
}

/** Kills the leading controller-manager and scales `deployment` up at once; the times to the Lease taken and the new pod. */
async function cmFailover(c: Cluster, cms: Component[], s: Settings, deploymentName: string, scale: number): Promise<{ row: Omit<Row, 'round'>; cms: Component[] }> {
  if (!(await until(async () => (await Promise.all(cms.map(leads))).some(Boolean), 60_000, 100))) throw new Error('no controller-manager leads');
  await sleep(1000); // the follower's caches are synced
  const leaderIndex = (await Promise.all(cms.map(leads))).indexOf(true);
  const holder = () => c.leases.store.list().find((l) => l.metadata.name === 'setpoint-controller-manager')?.spec?.holderIdentity;
  const before = holder();
  const podsBefore = new Set(c.pods.store.list().map((p) => p.metadata.name));
  const t0 = nowMs();
  await stopProcess(cms[leaderIndex]!.child, 'SIGKILL');
  await c.client.deployments().patch(deploymentName, { spec: { replicas: scale } }, { namespace: NS, type: 'merge' });
  const took = await until(() => holder() !== undefined && holder() !== before, 60_000, 20);
  const tTook = nowMs() - t0;
  const reconciled = await until(() => c.pods.store.list().some((p) => !podsBefore.has(p.metadata.name)), 60_000, 20);
  const tReconciled = nowMs() - t0;
  console.log(`controller-manager failover, ${s.label} leases: lease taken after ${(tTook / 1000).toFixed(2)} s, reconciled after ${(tReconciled / 1000).toFixed(2)} s`);
  return {
    row: { leases: `${s.label} (${s.lease} / ${s.renew} / ${s.retry})`, 'lease taken s': took ? tTook / 1000 : NaN, 'successor reconciled s': reconciled ? tReconciled / 1000 : NaN },
    cms: [cms[1 - leaderIndex]!, await controllerManager(c.server, s)],
  };
}

export async function run(): Promise<void> {
  const report = new BenchReport(
    'failover',
    "Real processes (`setpoint server`, two `setpoint controller-manager --leader-elect`, `setpoint scheduler`, simulated agents): from killing a node's agent to its pods Running elsewhere, and from killing the leading controller-manager to the successor reconciling, with short settings and with the defaults.",
  );
  const server = await startServer({ store: 'sqlite' });
  const client = await Client.fromKubeconfig({ path: server.kubeconfig, qps: 1000, burst: 2000 });
  const observer = new Manager({ client, gracefulShutdownMs: 1000 });
  const c: Cluster = {
    server,
    client,
    pods: observer.informer<Pod>(builtin.pods, { namespace: NS }),
    nodes: observer.informer<Node>(builtin.nodes),
    leases: observer.informer<Lease>(builtin.leases, { namespace: 'kube-system' }),
    children: [],
  };
  const stop = new AbortController();
  const observing = observer.start(stop.signal);
  let cms: Component[] = [];
  let data: Record<string, unknown> = {};
  try {
    // B's nodes renew every 2 s, well within either grace period: they stay Ready throughout.
    const b = agent(c, 'node-b', 3, SHORT.nodeLeaseSeconds);
    const scheduler = setpointProcess(['scheduler', '--kubeconfig', join(server.dataDir, 'components', 'scheduler.kubeconfig'), '--port', '0', '--log-level', 'error'], { quiet: true });
    c.children.push(scheduler);
    cms = [await controllerManager(server, SHORT), await controllerManager(server, SHORT)];
    await Promise.all([b.started, waitForOutput(scheduler, /health and metrics on/)]);
    await client.namespaces().create({ metadata: { name: NS } });
    if (!(await until(() => c.nodes.store.list().filter(nodeReady).length >= 3, 60_000, 100))) throw new Error("agent B's nodes did not become Ready within 60 s");

    const nodeRows: Row[] = [];
    const nodeTotals: Record<string, { total: number; afterUnknown: number }> = {};
    const cmRows: Row[] = [];
    const short = await nodeFailure(c, SHORT, 0);
    nodeRows.push(...short.rows);
    nodeTotals.short = short;
    let scale = replicas;
    for (let r = 0; r < rounds; r++) {
      const res = await cmFailover(c, cms, SHORT, 'web-short', ++scale);
      cms = res.cms;
      cmRows.push({ round: cmRows.length + 1, ...res.row });
    }
    // The defaults take a minute and a half more; a smoke run only checks that the rounds work.
    if (!smoke) {
      for (const cm of cms) await stopProcess(cm.child);
      cms = [await controllerManager(server, DEFAULT), await controllerManager(server, DEFAULT)];
      const res = await cmFailover(c, cms, DEFAULT, 'web-short', ++scale);
      cms = res.cms;
      cmRows.push({ round: cmRows.length + 1, ...res.row });
      const def = await nodeFailure(c, DEFAULT, 1);
      nodeRows.push(...def.rows);
      nodeTotals.default = def;
    }

    report.table('node failure: agent A killed (SIGKILL) with its node, while running some of 12 pods', nodeRows);
    report.table('controller-manager failover: leader killed (SIGKILL), Deployment scaled up at once (lease duration / renew deadline / retry period)', cmRows);
    for (const s of [SHORT, DEFAULT]) {
      const t = nodeTotals[s.label];
      if (t === undefined) continue;
      report.headline(
        `node agent killed → its pods Running elsewhere (node Lease ${s.nodeLeaseSeconds} s, grace ${s.grace})`,
        `${t.total.toFixed(1)} s`,
        `${(t.total - t.afterUnknown).toFixed(1)} s until Ready=Unknown (the grace period, from the last renewal seen), then ${t.afterUnknown.toFixed(1)} s to all replicas Running`,
      );
    }
    const shortRows = cmRows.filter((r) => String(r.leases).startsWith('short'));
    const worst = Math.max(...shortRows.map((r) => Number(r['successor reconciled s'])));
    const mean = shortRows.reduce((sum, r) => sum + Number(r['successor reconciled s']), 0) / shortRows.length;
    report.headline(`leading controller-manager killed → successor reconciling (lease ${SHORT.lease} / ${SHORT.renew} / ${SHORT.retry})`, `${mean.toFixed(1)} s mean, ${worst.toFixed(1)} s worst of ${shortRows.length}`);
    const defRow = cmRows.find((r) => String(r.leases).startsWith('default'));
    if (defRow) report.headline(`… with the default leases (${DEFAULT.lease} / ${DEFAULT.renew} / ${DEFAULT.retry})`, `${Number(defRow['successor reconciled s']).toFixed(1)} s`);
    report.chart({
      kind: 'bar',
      title: 'Failover: seconds after the kill',
      unit: 's',
      bars: [
        ...nodeRows.map((r) => ({ label: `${String(r.step).replace(/node-a\d-0 /, 'node ').replace(/ Running and Ready elsewhere/, ' elsewhere')}`, value: Number(r['s after kill']), series: `node killed, ${String(r.settings).split(':')[0]} settings` })),
        ...cmRows.map((r) => ({ label: `controller-manager, round ${r.round}`, value: Number(r['successor reconciled s']), series: `controller-manager killed, ${String(r.leases).split(' ')[0]} leases` })),
      ],
    });
    report.note(
      `Pods tolerate node.kubernetes.io/unreachable and not-ready for 0 s. Short settings: agent --node-lease-duration-seconds ${SHORT.nodeLeaseSeconds}, controller-manager --node-monitor-grace-period ${SHORT.grace} --leader-elect-lease-duration ${SHORT.lease} --leader-elect-renew-deadline ${SHORT.renew} --leader-elect-retry-period ${SHORT.retry}; defaults: ${DEFAULT.nodeLeaseSeconds} s, ${DEFAULT.grace}, ${DEFAULT.lease} / ${DEFAULT.renew} / ${DEFAULT.retry}.`,
    );
    data = { replicas, node: nodeRows, controllerManager: cmRows, settings: { short: SHORT, default: DEFAULT } };
  } finally {
    stop.abort();
    await observing.catch(() => undefined);
    client.close();
    for (const child of [...c.children, ...cms.map((x) => x.child)]) await stopProcess(child, 'SIGTERM', 5000);
    await server.stop();
  }
  // Written once every process is gone, so their CPU counts as this run's own (see Conditions).
  report.write(data);
}
