/**
 * Fault test 5 — network: two node agents, each in its own network namespace (support/netns.ts),
 * reach the API server over a veth pair; their pods are real processes (/bin/sleep). One node's
 * link is cut, later healed.
 *
 * Processes: `setpoint server --host 10.R.0.1` (a loopback address of the host the namespaces
 * route to), `setpoint controller-manager --node-monitor-grace-period 3s`, `setpoint scheduler`
 * (on the host), and in each namespace `setpoint agent --node-lease-duration-seconds 2` (renewed
 * every 500 ms) with the node's own identity (system:node:NAME, a client certificate). The pods
 * tolerate unreachable and not-ready nodes for 2 s (Kubernetes' default is 300 s).
 *
 * Proves: with its link cut, the node goes NotReady (Ready Unknown, tainted unreachable) and its
 * pods are evicted and replaced on the other node — while their processes, which nothing can
 * reach, keep running, as under a kubelet; once healed, the node is Ready again (taint removed),
 * its agent stops the stale processes and removes their pods; nothing is started twice: active
 * pods never exceed the replicas (a watch counts them at every change) and at the end every
 * running container process belongs to an active pod.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Api } from './support/api.js';
import { NetLab } from './support/netns.js';
import { adminCredentials, setpoint, startComponent, startServer, stopAll, tempDir } from './support/processes.js';
import { waitFor } from './support/wait.js';
import { ResumingWatcher } from './support/watcher.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of Kubernetes objects
type Json = any;

const REPLICAS = 4;
const NODES = ['node-a', 'node-b'];
const PODS = '/api/v1/namespaces/default/pods?labelSelector=app%3Dweb';

const active = (pod: Json) => pod.metadata.deletionTimestamp === undefined && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
const ready = (node: Json) => node.status?.conditions?.find((c: Json) => c.type === 'Ready')?.status;
const unreachable = (node: Json) => (node.spec?.taints ?? []).some((t: Json) => t.key === 'node.kubernetes.io/unreachable' && t.effect === 'NoExecute');

/** The container processes an agent's data dir records: pod uid → pid. */
function recordedProcesses(agentDir: string): Map<string, number> {
  const out = new Map<string, number>();
  let uids: string[] = [];
  try {
    uids = readdirSync(join(agentDir, 'pods'));
  } catch {
    return out;
  }
  for (const uid of uids) {
    try {
      for (const file of readdirSync(join(agentDir, 'pods', uid, 'containers'))) {
        const pid = JSON.parse(readFileSync(join(agentDir, 'pods', uid, 'containers', file), 'utf8')).run?.pid;
        if (typeof pid === 'number') out.set(uid, pid);
      }
    } catch {
      // a pod being removed
    }
  }
  return out;
}

/** Whether `pid` is a live /bin/sleep (not a zombie, not a recycled pid). */
function sleeping(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.includes('(sleep)') && !/\) Z /.test(stat);
  } catch {
    return false;
  }
}

describe('network partition of a node', () => {
  after(stopAll);

  it('a cut link makes the node NotReady and its pods move; healed, it is Ready again and its stale pods are stopped, not duplicated', { timeout: 240_000 }, async () => {
    const lab = await NetLab.create(NODES.length);
    const dir = await tempDir('network');
    const agentDirs = NODES.map((n) => join(dir.path, 'agents', n));
    let api: Api | undefined;
    let monitorApi: Api | undefined;
    const stop = new AbortController();
    try {
      const server = await startServer(dir.path, 0, ['--host', lab.apiAddress, '--advertise-address', lab.apiAddress]);
      const creds = await adminCredentials(dir.path);
      api = new Api(server.url, { ...creds, maxSockets: 4 });
      const components = join(dir.path, 'components');
      await startComponent('scheduler', 'scheduler', join(components, 'scheduler.kubeconfig'));
      await startComponent('controller-manager', 'controller-manager', join(components, 'controller-manager.kubeconfig'), ['--node-monitor-grace-period', '3s']);
      for (const [i, name] of NODES.entries()) {
        const kubeconfig = join(dir.path, `${name}.kubeconfig`);
        const issue = setpoint(`kubeconfig ${name}`, ['kubeconfig', 'create', '--user', `system:node:${name}`, '--group', 'system:nodes', '--data-dir', dir.path, '-o', kubeconfig]);
        assert.equal((await issue.exited).code, 0, issue.output);
        const agent = setpoint(
          `agent ${name}`,
          ['agent', '--kubeconfig', kubeconfig, '--node-name', name, '--data-dir', agentDirs[i]!, '--kubelet-port', '0', '--node-lease-duration-seconds', '2', '--node-status-update-frequency', '1s', '--log-level', 'warn'],
          { wrap: lab.wrap(i) },
        );
        await agent.waitForOutput(/agent for node/);
      }
      const node = async (name: string) => await api!.ok('GET', `/api/v1/nodes/${name}`);
      for (const name of NODES) await waitFor(`${name} to be Ready`, async () => ready(await node(name)) === 'True', 60_000);

      // Pods never counted twice: active pods at every change.
      let maxActive = 0;
      monitorApi = new Api(server.url, creds);
      const monitor = new ResumingWatcher(monitorApi, '/api/v1/namespaces/default/pods', {
        query: 'labelSelector=app%3Dweb',
        onChange: (state) => {
          let n = 0;
          for (const pod of state.values()) if (active(pod)) n++;
          maxActive = Math.max(maxActive, n);
        },
      });
      const monitoring = monitor.run(stop.signal);

      const toleration = (key: string) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 2 });
      await api.ok('POST', '/apis/apps/v1/namespaces/default/replicasets', {
        metadata: { name: 'web' },
        spec: {
          replicas: REPLICAS,
          selector: { matchLabels: { app: 'web' } },
          template: {
            metadata: { labels: { app: 'web' } },
            spec: {
              automountServiceAccountToken: false,
              terminationGracePeriodSeconds: 2,
              tolerations: [toleration('node.kubernetes.io/unreachable'), toleration('node.kubernetes.io/not-ready')],
              containers: [{ name: 'main', image: 'example/sleep:1', command: ['/bin/sleep', '3600'] }],
            },
          },
        },
      });
      const pods = async () => (await api!.ok('GET', PODS)).items as Json[];
      const running = (list: Json[]) => list.filter((p) => active(p) && p.status?.phase === 'Running');
      const placed = await waitFor(`${REPLICAS} pods Running`, async () => {
        const list = running(await pods());
        return list.length === REPLICAS ? list : undefined;
      }, 60_000);
      const counts = NODES.map((n) => placed.filter((p) => p.spec.nodeName === n).length);
      const victim = counts[0]! >= counts[1]! ? 0 : 1;
      const survivor = 1 - victim;
      const [victimName, survivorName] = [NODES[victim]!, NODES[survivor]!];
      const stale = placed.filter((p) => p.spec.nodeName === victimName);
      const stalePids = await waitFor('the stale pods\' processes to be recorded', () => {
        const recorded = recordedProcesses(agentDirs[victim]!);
        const pids = stale.map((p) => recorded.get(p.metadata.uid));
        return pids.every((pid) => pid !== undefined && sleeping(pid)) ? (pids as number[]) : undefined;
      });

      // Cut.
      const cutAt = Date.now();
      await lab.cut(victim);
      const down = await waitFor(`${victimName} to be NotReady and tainted`, async () => {
        const n = await node(victimName);
        return ready(n) !== 'True' && unreachable(n) ? n : undefined;
      }, 60_000);
      const notReadyAfter = Date.now() - cutAt;
      await waitFor(`${REPLICAS} pods Running on ${survivorName}`, async () => running(await pods()).filter((p) => p.spec.nodeName === survivorName).length === REPLICAS, 60_000);
      const replacedAfter = Date.now() - cutAt;
      const during = await pods();
      for (const p of stale) assert.ok(during.find((q) => q.metadata.uid === p.metadata.uid)?.metadata.deletionTimestamp, `${p.metadata.name} is evicted`);
      assert.ok(stalePids.every(sleeping), 'the partitioned node\'s processes keep running: nothing can tell them to stop');

      // Heal.
      const healAt = Date.now();
      await lab.heal(victim);
      await waitFor(`${victimName} to be Ready again, untainted`, async () => {
        const n = await node(victimName);
        return ready(n) === 'True' && !unreachable(n);
      }, 60_000);
      const readyAfter = Date.now() - healAt;
      await waitFor('the stale pods to be gone and their processes stopped', async () => {
        const uids = new Set((await pods()).map((p) => p.metadata.uid));
        return stale.every((p) => !uids.has(p.metadata.uid)) && !stalePids.some(sleeping);
      }, 60_000);
      const stoppedAfter = Date.now() - healAt;

      // Nothing duplicated: the active pods are the replicas, each one process.
      const final = await pods();
      assert.equal(final.filter(active).length, REPLICAS);
      const processes = new Map<string, number>();
      for (const d of agentDirs) for (const [uid, pid] of recordedProcesses(d)) if (sleeping(pid)) processes.set(uid, pid);
      assert.deepEqual([...processes.keys()].sort(), final.filter(active).map((p) => p.metadata.uid).sort(), 'each running process is an active pod, and each active pod one process');
      const monitored = final.map((p) => p.metadata.resourceVersion);
      await waitFor('the monitor to see the final pods', () => monitored.every((rv) => [...monitor.state.values()].some((p) => p.metadata.resourceVersion === rv)));
      stop.abort();
      await monitoring;
      console.log(
        `network: ${victimName} (with ${stale.length} of ${REPLICAS} pods) cut: NotReady (Ready ${ready(down)}) after ${(notReadyAfter / 1000).toFixed(1)} s, ` +
          `pods replaced on ${survivorName} after ${(replacedAfter / 1000).toFixed(1)} s; healed: Ready after ${(readyAfter / 1000).toFixed(1)} s, ` +
          `stale pods stopped and removed after ${(stoppedAfter / 1000).toFixed(1)} s; at most ${maxActive} active pods`,
      );
      assert.ok(maxActive <= REPLICAS, `never more than ${REPLICAS} active pods (${maxActive})`);
      assert.deepEqual(monitor.violations, []);
    } finally {
      stop.abort();
      api?.close();
      monitorApi?.close();
      await stopAll();
      // Pods' processes outlive their agents by design: stop them.
      for (const d of agentDirs) {
        for (const pid of recordedProcesses(d).values()) {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
      await lab.destroy();
      await dir.remove();
    }
  });
});
