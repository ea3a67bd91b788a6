/**
 * Fault test 3 — controllers: the controller-manager is killed with SIGKILL at 5 random points of
 * the rolling update of a 50-replica Deployment (maxSurge 5, maxUnavailable 5) and started again
 * each time. Processes: `setpoint server`, `setpoint scheduler`, `setpoint agent --simulate
 * --nodes 4` (pods become Running and Ready 300 ms after they are bound) and `setpoint
 * controller-manager`, each with its own identity.
 *
 * What counts as a pod for maxSurge: as in Kubernetes (the ReplicaSet controller's active pods),
 * a pod that is neither terminating (deletionTimestamp set) nor finished (Succeeded or Failed).
 * Terminating pods are counted apart and reported. The count is kept from a watch of the
 * Deployment's pods — every change, in resourceVersion order — so it is the count after each
 * change, not a sample.
 *
 * Proves: at every change, active pods ≤ replicas + maxSurge (55); after the kills the Deployment
 * converges (the newest template everywhere, 50 pods, rollout complete); every ReplicaSet is owned
 * by the Deployment and all old ones are scaled to 0; every pod is owned by the newest ReplicaSet.
 * If a rollout finishes before the next kill is due, a template change starts another, so every
 * kill falls inside a rollout (the Deployment's status is read just before each kill).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Api } from './support/api.js';
import { adminCredentials, setpoint, startComponent, startServer, stopAll, tempDir } from './support/processes.js';
import { between, sleep, waitFor } from './support/wait.js';
import { ResumingWatcher } from './support/watcher.js';

const REPLICAS = 50;
const MAX_SURGE = 5;
const KILLS = 5;
const NS = 'default';
const DEPLOY = `/apis/apps/v1/namespaces/${NS}/deployments`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of Kubernetes objects
type Json = any;

const active = (pod: Json) => pod.metadata.deletionTimestamp === undefined && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';

/** kubectl rollout status's test: the controller saw the latest spec and every replica is updated and available. */
function rolledOut(d: Json): boolean {
  const s = d.status ?? {};
  return (s.observedGeneration ?? 0) >= d.metadata.generation && s.updatedReplicas === REPLICAS && s.replicas === REPLICAS && s.availableReplicas === REPLICAS;
}

describe('controller-manager killed during a rolling update', () => {
  after(stopAll);

  it(`${KILLS} kills -9 during a ${REPLICAS}-replica rolling update: never more than replicas + maxSurge pods, converges, no orphaned ReplicaSets`, { timeout: 300_000 }, async () => {
    const dir = await tempDir('controllers');
    const stop = new AbortController();
    let api: Api | undefined;
    let monitorApi: Api | undefined;
    try {
      const server = await startServer(dir.path, 0);
      const creds = await adminCredentials(dir.path);
      api = new Api(server.url, creds);
      monitorApi = new Api(server.url, creds);
      const components = join(dir.path, 'components');
      await startComponent('scheduler', 'scheduler', join(components, 'scheduler.kubeconfig'));
      const agent = setpoint('agent', ['agent', '--kubeconfig', join(dir.path, 'kubeconfig.yaml'), '--simulate', '--nodes', '4', '--name-prefix', 'sim-', '--ready-delay', '300ms', '--log-level', 'warn']);
      await agent.waitForOutput(/simulated nodes running/);
      const startManager = (name: string) => startComponent(name, 'controller-manager', join(components, 'controller-manager.kubeconfig'));
      let manager = await startManager('controller-manager');

      // The monitor: every change of the Deployment's pods, in order.
      let maxActive = 0;
      let maxTotal = 0;
      const over: string[] = [];
      const monitor = new ResumingWatcher(monitorApi, `/api/v1/namespaces/${NS}/pods`, {
        query: 'labelSelector=app%3Dweb',
        onChange: (state, entry) => {
          let n = 0;
          for (const pod of state.values()) if (active(pod)) n++;
          maxActive = Math.max(maxActive, n);
          maxTotal = Math.max(maxTotal, state.size);
          if (n > REPLICAS + MAX_SURGE) over.push(`${n} active pods at resourceVersion ${entry.rv}`);
        },
      });
      const monitoring = monitor.run(stop.signal);

      let version = 1;
      const template = (v: number) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: `example/web:${v}` }] } });
      await api.ok('POST', DEPLOY, {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: NS },
        spec: { replicas: REPLICAS, selector: { matchLabels: { app: 'web' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: MAX_SURGE, maxUnavailable: 5 } }, template: template(version) },
      });
      const deployment = async () => await api!.ok('GET', `${DEPLOY}/web`);
      await waitFor('the first rollout', async () => rolledOut(await deployment()), 90_000);

      // Five kills, each inside a rolling update.
      const kills: string[] = [];
      let rollouts = 0;
      const newRollout = async () => {
        version++;
        rollouts++;
        await api!.ok('PATCH', `${DEPLOY}/web`, { spec: { template: template(version) } }, { contentType: 'application/merge-patch+json' });
      };
      for (let k = 0; k < KILLS; k++) {
        let wait = between(300, 2000);
        for (;;) {
          if (rolledOut(await deployment())) {
            await newRollout();
            wait = between(100, 800);
          }
          await sleep(wait);
          const d = await deployment();
          if (rolledOut(d)) continue; // it finished meanwhile: start another and try again
          await manager.proc.kill();
          kills.push(`at ${d.status?.updatedReplicas ?? 0}/${REPLICAS} updated`);
          break;
        }
        manager = await startManager(`controller-manager after kill ${k + 1}`);
      }

      const converged = await waitFor('the Deployment to converge', async () => {
        const d = await deployment();
        if (!rolledOut(d) || d.spec.template.spec.containers[0].image !== `example/web:${version}`) return undefined;
        const pods = (await api!.ok('GET', `/api/v1/namespaces/${NS}/pods?labelSelector=app%3Dweb`)).items as Json[];
        return pods.length === REPLICAS && pods.every(active) ? { d, pods } : undefined;
      }, 120_000);
      const final = new Map(converged.pods.map((p: Json) => [`${NS}/${p.metadata.name}`, p.metadata.resourceVersion]));
      await waitFor('the monitor to see the final pods', () => monitor.state.size === final.size && [...monitor.state].every(([k, p]) => final.get(k) === p.metadata.resourceVersion), 10_000);
      stop.abort();
      await monitoring;

      console.log(
        `controllers: ${KILLS} kills of the controller-manager (${kills.join('; ')}) over ${rollouts} rolling updates after the first; ` +
          `at most ${maxActive} active pods (limit ${REPLICAS + MAX_SURGE}), ${maxTotal} with terminating ones; the monitor saw ${monitor.events} pod changes (${monitor.resumes} resumes, ${monitor.relists} relists)`,
      );
      assert.deepEqual(monitor.violations, []);
      assert.deepEqual(over, [], `never more than ${REPLICAS + MAX_SURGE} active pods`);

      // Ownership: every ReplicaSet is the Deployment's; old ones are at 0; every pod is the newest one's.
      const sets = (await api.ok('GET', `/apis/apps/v1/namespaces/${NS}/replicasets?labelSelector=app%3Dweb`)).items as Json[];
      const uid = converged.d.metadata.uid;
      const owned = (o: Json, kind: string, owner: string) => (o.metadata.ownerReferences ?? []).some((r: Json) => r.controller === true && r.kind === kind && r.uid === owner);
      const orphans = sets.filter((rs) => !owned(rs, 'Deployment', uid)).map((rs) => rs.metadata.name);
      assert.deepEqual(orphans, [], 'no orphaned ReplicaSets');
      const newest = sets.filter((rs) => rs.spec.template.spec.containers[0].image === `example/web:${version}`);
      assert.equal(newest.length, 1, 'one ReplicaSet for the newest template');
      assert.equal(newest[0].spec.replicas, REPLICAS);
      for (const rs of sets) if (rs !== newest[0]) assert.deepEqual([rs.metadata.name, rs.spec.replicas, rs.status?.replicas ?? 0], [rs.metadata.name, 0, 0], 'old ReplicaSets are scaled to 0');
      const strays = converged.pods.filter((p: Json) => !owned(p, 'ReplicaSet', newest[0].metadata.uid)).map((p: Json) => p.metadata.name);
      assert.deepEqual(strays, [], 'every pod belongs to the newest ReplicaSet');
      assert.ok(sets.length >= 2, `old ReplicaSets are kept as history (${sets.length})`);
    } finally {
      stop.abort();
      api?.close();
      monitorApi?.close();
      await stopAll();
      await dir.remove();
    }
  });
});
