/**
 * Fault test 4 — leader election: two `setpoint controller-manager --leader-elect` processes
 * (lease 3 s, renew deadline 2 s, retry 250 ms), each talking to the API server through its own
 * recording proxy, so every request is attributed to the process that sent it. A workload creates
 * a ReplicaSet of 2 replicas every 100 ms, so the leader is always writing (pods, statuses). The
 * leader is frozen with SIGSTOP at a random moment, for longer than its lease; the follower takes
 * over; then the old leader is thawed with SIGCONT.
 *
 * Proves: the follower takes over only once the lease has run out; after the thaw the old leader
 * reports that it no longer leads and changes nothing: no pod, no status, no event — at most a
 * lease renewal it had started before the freeze arrives, and the server refuses it (409: it
 * carries the lease's old resourceVersion); the two never write at once — every write of the old
 * leader reached the server before the first write of the new one; and no ReplicaSet got more pods
 * than its replicas. (Without the Manager's write fence the thawed leader went on writing pods and
 * statuses for the reconciles it had in flight: I/O callbacks run before the deadline's timer.)
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Api } from './support/api.js';
import { adminCredentials, startComponent, startServer, stopAll, tempDir, type Proc } from './support/processes.js';
import { RecordingProxy, tokenKubeconfig, type RecordedRequest } from './support/proxy.js';
import { between, sleep, waitFor } from './support/wait.js';

const LEASE = '/leases/setpoint-controller-manager';
const LEASE_MS = 3000;
const TIMING = ['--leader-elect-lease-duration', `${LEASE_MS}ms`, '--leader-elect-renew-deadline', '2s', '--leader-elect-retry-period', '250ms'];

interface Replica {
  readonly name: string;
  readonly proc: Proc;
  readonly url: string;
  readonly proxy: RecordingProxy;
}

async function leading(r: Replica): Promise<boolean> {
  const text = await (await fetch(`${r.url}/metrics`, { signal: AbortSignal.timeout(2000) })).text();
  return /leader_election_master_status\{name="setpoint-controller-manager"\} 1/.test(text);
}

const describeWrite = (w: RecordedRequest) => `${new Date(w.at).toISOString()} ${w.method} ${w.path} → ${w.status ?? '…'}`;

describe('leader election under SIGSTOP', () => {
  after(stopAll);

  it('a frozen leader loses its lease to the follower, and once thawed writes nothing more', { timeout: 180_000 }, async () => {
    const dir = await tempDir('leader');
    const proxies: RecordingProxy[] = [];
    let api: Api | undefined;
    let workload: Promise<void> | undefined;
    let producing = true;
    try {
      const server = await startServer(dir.path, 0);
      const creds = await adminCredentials(dir.path);
      api = new Api(server.url, { ...creds, maxSockets: 4 });
      const replica = async (name: string): Promise<Replica> => {
        const proxy = await RecordingProxy.start(server.url, creds.ca);
        proxies.push(proxy);
        const kubeconfig = join(dir.path, `${name}.kubeconfig`);
        await writeFile(kubeconfig, tokenKubeconfig(proxy.url, creds.token), { mode: 0o600 });
        const { proc, url } = await startComponent(name, 'controller-manager', kubeconfig, ['--leader-elect', ...TIMING]);
        return { name, proc, url, proxy };
      };
      const a = await replica('cm-a');
      const b = await replica('cm-b');
      await waitFor('one leader', async () => (await leading(a)) !== (await leading(b)));
      const old = (await leading(a)) ? a : b;
      const heir = old === a ? b : a;

      // The workload: a ReplicaSet of 2 every 100 ms.
      let created = 0;
      workload = (async () => {
        while (producing) {
          const name = `rs-${created}`;
          await api!.ok('POST', '/apis/apps/v1/namespaces/default/replicasets', {
            metadata: { name },
            spec: { replicas: 2, selector: { matchLabels: { rs: name } }, template: { metadata: { labels: { rs: name } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
          });
          created++;
          await sleep(100);
        }
      })();
      const podWrites = (r: Replica) => r.proxy.writes().filter((w) => w.path.includes('/pods')).length;
      await waitFor('the leader to create pods', () => podWrites(old) >= 10);
      await sleep(between(200, 1500));

      // Freeze the leader past its lease.
      old.proc.signal('SIGSTOP');
      const frozenAt = Date.now();
      await waitFor('the follower to take over', () => leading(heir), 30_000, 20);
      const tookOverAt = Date.now();
      await sleep(between(500, 1500));
      old.proc.signal('SIGCONT');
      const thawedAt = Date.now();
      await waitFor('the thawed leader to notice it lost the lease', async () => !(await leading(old)), 10_000, 20);
      const noticedAt = Date.now();
      await sleep(3000); // the workload goes on: a leader that still believed it led would write now
      producing = false;
      await workload;

      // Every ReplicaSet gets its 2 pods from the new leader — and no more.
      const counts = await waitFor('every ReplicaSet to have its pods', async () => {
        const pods = (await api!.ok('GET', '/api/v1/namespaces/default/pods')).items as { metadata: { labels: { rs: string } } }[];
        const byRs = new Map<string, number>();
        for (const p of pods) byRs.set(p.metadata.labels.rs, (byRs.get(p.metadata.labels.rs) ?? 0) + 1);
        return byRs.size === created && [...byRs.values()].every((n) => n >= 2) ? byRs : undefined;
      }, 60_000);
      const extra = [...counts].filter(([, n]) => n !== 2);
      assert.deepEqual(extra, [], 'no ReplicaSet has more than its 2 pods');

      const oldWrites = old.proxy.writes();
      const heirWrites = heir.proxy.writes();
      const afterThaw = oldWrites.filter((w) => w.at >= thawedAt);
      const oldWork = oldWrites.filter((w) => !w.path.includes(LEASE));
      const heirWork = heirWrites.filter((w) => !w.path.includes(LEASE));
      const heirAcquired = heirWrites.find((w) => w.path.includes(LEASE) && w.status !== undefined && w.status < 300);
      const lastRenewal = oldWrites.filter((w) => w.path.includes(LEASE) && w.status !== undefined && w.status < 300).at(-1)!;
      console.log(
        `leader election: ${created} ReplicaSets; ${old.name} led and wrote ${oldWork.length} times, was frozen ${((thawedAt - frozenAt) / 1000).toFixed(1)} s; ` +
          `${heir.name} took the lease ${heirAcquired === undefined ? '?' : heirAcquired.at - lastRenewal.at} ms after the last renewal (${((tookOverAt - frozenAt) / 1000).toFixed(1)} s after the freeze) and wrote ${heirWork.length} times; ` +
          `the old leader noticed ${noticedAt - thawedAt} ms after the thaw; its requests after it: ${afterThaw.map(describeWrite).join(', ') || 'none'}`,
      );
      // Nothing but its lease — and a renewal sent from before the freeze carries the lease's old
      // resourceVersion, so the server refuses it: the lease cannot be taken back behind the heir.
      assert.deepEqual(afterThaw.filter((w) => !(w.path.includes(LEASE) && w.status === 409)).map(describeWrite), [], 'the thawed leader changes nothing');
      assert.ok(heirAcquired !== undefined && heirAcquired.at - lastRenewal.at >= LEASE_MS, `the follower took the lease only once it ran out: ${(heirAcquired?.at ?? NaN) - lastRenewal.at} ms after the last renewal`);
      assert.ok(heirWork.length > 0 && heirWork.every((w) => w.at >= heirAcquired!.at), 'the follower wrote only once it held the lease');
      const lastOld = oldWork.at(-1)!;
      assert.ok(lastOld.at < heirWork[0]!.at, `the two never wrote at once: the old leader's last write (${describeWrite(lastOld)}) came before the new one's first (${describeWrite(heirWork[0]!)})`);
    } finally {
      producing = false;
      await workload?.catch(() => undefined);
      api?.close();
      await stopAll();
      for (const p of proxies) await p.close();
      await dir.remove();
    }
  });
});
