/**
 * Fault test 6 — overload: ten times the request rate the API server sustains, from a user with
 * no special standing (a token of --token-auth-file, allowed to read by RBAC; system:masters would
 * bypass the limits, as in Kubernetes), while a node agent and a leader-elected controller-manager
 * — each with its own identity — keep their Leases, and the test probes the health endpoints.
 *
 * The server runs with --max-requests-inflight 4 and --max-mutating-requests-inflight 4 (a Node
 * process serialises one answer at a time: more seats only lengthen the queue; the lease pool is
 * apart). The load is a LIST of 2,000 ConfigMaps: first by 4 clients in a closed loop for 4 s
 * (the sustainable rate R), then sent at 10 R per second for 10 s whatever the answers
 * (support/load.ts, a process of its own). The node's Lease lasts 10 s (renewed every 2.5 s, node
 * monitor grace period 20 s), the controller-manager's has Kubernetes' timing (15 s, renewed every
 * 2 s, renew deadline 10 s).
 *
 * Proves: requests past the limits get 429 with Retry-After — and nothing else fails; the node's
 * Lease keeps renewing (it never lapses, the node stays Ready; the longest gap between renewals is
 * reported) and the controller-manager keeps its leadership (no lapse, no transition); /livez,
 * /readyz and /healthz answer 200 within 5 s throughout (the slowest is reported); the server's memory stays bounded (peak RSS under overload within
 * MEMORY_HEADROOM_MIB of the baseline); every process is alive afterwards and the load user is
 * served again.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Api, TransportError } from './support/api.js';
import type { LoadOptions, LoadResult } from './support/load.js';
import { adminCredentials, Proc, setpoint, startComponent, startServer, stopAll, tempDir } from './support/processes.js';
import { sleep, waitFor } from './support/wait.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of Kubernetes objects
type Json = any;

const OBJECTS = 2000;
const FACTOR = 10;
const OVERLOAD_S = 10;
/**
 * How far the server's RSS may rise under the overload. What it holds is bounded by the seats (4
 * lists of about 0.6 MB in flight, each a few copies while serialised), the open connections and
 * V8's lazy collection; queueing ten times the sustainable rate (over 1 GB of answers in 10 s)
 * would pass it.
 */
const MEMORY_HEADROOM_MIB = 512;
const loadScript = fileURLToPath(new URL('./support/load.ts', import.meta.url));

/** Runs the load generator and resolves with its results. */
async function load(options: LoadOptions): Promise<LoadResult> {
  const proc = new Proc('load', process.execPath, ['--import', 'tsx', loadScript, JSON.stringify(options)]);
  const { code } = await proc.exited;
  assert.equal(code, 0, `the load generator failed:\n${proc.tail()}`);
  return JSON.parse(proc.output.trim().split('\n').at(-1)!) as LoadResult;
}

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

describe('overload of the API server', () => {
  after(stopAll);

  it(`${FACTOR}× the sustainable rate: 429 with Retry-After, leases renew, health answers, memory bounded, nothing crashes`, { timeout: 240_000 }, async () => {
    const dir = await tempDir('overload');
    const apis: Api[] = [];
    const stopProbes = new AbortController();
    try {
      writeFileSync(join(dir.path, 'tokens.csv'), 'load-token,load,,"loaders"\n', { mode: 0o600 });
      const server = await startServer(dir.path, 0, ['--token-auth-file', join(dir.path, 'tokens.csv'), '--max-requests-inflight', '4', '--max-mutating-requests-inflight', '4']);
      const creds = await adminCredentials(dir.path);
      const admin = new Api(server.url, { ...creds, maxSockets: 16, timeoutMs: 30_000 });
      const health = new Api(server.url, { ca: creds.ca, maxSockets: 4 });
      apis.push(admin, health);
      await admin.ok('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
        metadata: { name: 'load-view' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'User', name: 'load', apiGroup: 'rbac.authorization.k8s.io' }],
      });
      for (let i = 0; i < OBJECTS; i += 16) {
        await Promise.all(Array.from({ length: Math.min(16, OBJECTS - i) }, (_, j) => admin.ok('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `load-${i + j}` }, data: { v: 'x'.repeat(200) } })));
      }

      // A node agent and a leader-elected controller-manager, each with its own identity.
      const components = join(dir.path, 'components');
      const manager = await startComponent('controller-manager', 'controller-manager', join(components, 'controller-manager.kubeconfig'), [
        '--leader-elect', // Kubernetes' timing: lease 15 s, renew deadline 10 s, retry every 2 s
        '--node-monitor-grace-period', '20s',
      ]);
      const nodeKubeconfig = join(dir.path, 'node-a.kubeconfig');
      const issue = setpoint('kubeconfig', ['kubeconfig', 'create', '--user', 'system:node:node-a', '--group', 'system:nodes', '--data-dir', dir.path, '-o', nodeKubeconfig]);
      assert.equal((await issue.exited).code, 0, issue.output);
      const agent = setpoint('agent', ['agent', '--kubeconfig', nodeKubeconfig, '--node-name', 'node-a', '--data-dir', join(dir.path, 'agent'), '--kubelet-port', '0', '--node-lease-duration-seconds', '10', '--node-status-update-frequency', '1s', '--log-level', 'warn']);
      await agent.waitForOutput(/agent for node/);
      const ready = async () => (await admin.ok('GET', '/api/v1/nodes/node-a')).status?.conditions?.find((c: Json) => c.type === 'Ready')?.status;
      const cmLease = '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/setpoint-controller-manager';
      const nodeLease = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a';
      await waitFor('node-a to be Ready with its Lease', async () => (await ready()) === 'True' && (await admin.request('GET', nodeLease)).status === 200, 60_000);
      const leader = await waitFor('a controller-manager leader', async () => (await admin.ok('GET', cmLease)).spec);

      // The probes: health every 100 ms, leases and the node every 250 ms, the server's memory.
      const baseline = rssMiB(server.proc.pid);
      const window = { from: Infinity, to: Infinity };
      const probes = { health: 0, healthFailures: [] as string[], healthMaxMs: 0, peakRss: baseline, notReady: [] as string[], gaps: { node: 0, manager: 0 }, holders: new Set<string>(), transitions: new Set<number>() };
      const inWindow = () => performance.now() >= window.from && performance.now() <= window.to;
      const probeHealth = (async () => {
        for (let i = 0; !stopProbes.signal.aborted; i++) {
          const path = ['/livez', '/readyz', '/healthz'][i % 3]!;
          const t = performance.now();
          try {
            const answer = await health.request('GET', path, undefined, { timeoutMs: 5000 });
            if (answer.status !== 200) probes.healthFailures.push(`${path}: ${answer.status}`);
          } catch (err) {
            if (!(err instanceof TransportError)) throw err;
            probes.healthFailures.push(`${path}: ${err.message}`);
          }
          if (inWindow()) {
            probes.health++;
            probes.healthMaxMs = Math.max(probes.healthMaxMs, performance.now() - t);
          }
          await sleep(100);
        }
      })();
      const probeLeases = (async () => {
        let last = { node: '', manager: '' };
        let changed = { node: performance.now(), manager: performance.now() };
        while (!stopProbes.signal.aborted) {
          const [n, m, r] = await Promise.all([admin.ok('GET', nodeLease), admin.ok('GET', cmLease), ready()]);
          const now = performance.now();
          for (const [k, lease] of [['node', n], ['manager', m]] as const) {
            if (lease.spec.renewTime !== last[k]) {
              if (inWindow()) probes.gaps[k] = Math.max(probes.gaps[k], now - changed[k]);
              last = { ...last, [k]: lease.spec.renewTime };
              changed = { ...changed, [k]: now };
            }
          }
          probes.holders.add(m.spec.holderIdentity);
          probes.transitions.add(m.spec.leaseTransitions ?? 0);
          if (r !== 'True') probes.notReady.push(`Ready ${r} at +${((now - Math.min(now, window.from)) / 1000).toFixed(1)} s into the overload`);
          probes.peakRss = Math.max(probes.peakRss, rssMiB(server.proc.pid));
          await sleep(250);
        }
      })();

      const common = { url: server.url, caFile: join(dir.path, 'ca.crt'), token: 'load-token', path: '/api/v1/namespaces/default/configmaps' };
      const sustained = await load({ ...common, mode: 'closed', concurrency: 4, seconds: 4 });
      const rate = Math.max(10, Math.round(sustained.okRate * FACTOR));
      window.from = performance.now();
      const overload = await load({ ...common, mode: 'open', rate, seconds: OVERLOAD_S });
      window.to = performance.now();
      await sleep(2000); // the leases after the storm, too
      stopProbes.abort();
      await Promise.all([probeHealth, probeLeases]);

      const after = new Api(server.url, { ca: creds.ca, token: 'load-token' });
      apis.push(after);
      const served = await after.request('GET', '/api/v1/namespaces/default/configmaps?limit=1');
      console.log(
        `overload: sustained ${sustained.okRate.toFixed(0)} req/s (4 clients, ${OBJECTS} objects a list); offered ${rate} req/s for ${OVERLOAD_S} s ` +
          `(${overload.sentRate.toFixed(0)} sent/s, ${overload.skipped} skipped by the generator): ${JSON.stringify(overload.statuses)}, ${overload.errors} transport errors; ` +
          `health: ${probes.health} probes, slowest ${probes.healthMaxMs.toFixed(0)} ms; longest lease gaps: node ${(probes.gaps.node / 1000).toFixed(1)} s, controller-manager ${(probes.gaps.manager / 1000).toFixed(1)} s; ` +
          `server RSS ${baseline.toFixed(0)} MiB → peak ${probes.peakRss.toFixed(0)} MiB`,
      );
      assert.ok((overload.statuses['429'] ?? 0) > 0, 'requests past the limits get 429');
      assert.equal(overload.missingRetryAfter, 0, 'every 429 says Retry-After');
      assert.deepEqual(Object.keys(overload.statuses).filter((s) => s !== '200' && s !== '429'), [], 'no answer but 200 and 429');
      assert.equal(overload.errors, 0, 'no connection failed');
      assert.ok(overload.sentRate >= rate * 0.7, `the generator offered about ${FACTOR}× (${overload.sentRate.toFixed(0)} of ${rate} req/s)`);
      assert.deepEqual(probes.healthFailures, [], 'health checks answer 200 within 5 s');
      assert.deepEqual(probes.notReady, [], 'the node stays Ready');
      assert.ok(probes.gaps.node < 10_000, 'the node Lease never lapsed (10 s)');
      assert.ok(probes.gaps.manager < 15_000, "the controller-manager's Lease never lapsed (15 s)");
      assert.deepEqual([...probes.holders], [leader.holderIdentity], 'the controller-manager keeps its leadership');
      assert.deepEqual([...probes.transitions], [leader.leaseTransitions ?? 0]);
      assert.ok(probes.peakRss - baseline < MEMORY_HEADROOM_MIB, `memory stays bounded: ${baseline.toFixed(0)} → ${probes.peakRss.toFixed(0)} MiB`);
      for (const p of [server.proc, manager.proc, agent]) assert.ok(p.running, `${p.name} is alive`);
      assert.equal(served.status, 200, 'the load user is served again');
    } finally {
      stopProbes.abort();
      for (const api of apis) api.close();
      await stopAll();
      await dir.remove();
    }
  });
});
