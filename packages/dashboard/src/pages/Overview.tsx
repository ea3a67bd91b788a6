/**
 * Overview: the nodes with their readiness and heartbeat age (from their Leases in
 * kube-node-lease), the pods by phase, and the controllers' health. Nodes, Leases and pods are
 * watched (three streams), so everything moves without polling or reloading; the controllers'
 * figures come from their metrics, sampled every 5 s.
 */
import type { KubeObject } from '../api/types.js';
import { conditionsOf } from '../api/types.js';
import { Age, ErrorBox, Loading, StatusBadge } from '../components/bits.js';
import { useLiveList, useNow } from '../hooks.js';
import { listHref, objectHref } from '../router.js';
import { isLeaderLease, leaseFresh, LeaseTable, useComponentMetrics } from './Controllers.js';

const NODES = { group: '', version: 'v1', resource: 'nodes' };
const PODS = { group: '', version: 'v1', resource: 'pods' };
const PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;

export function Overview() {
  const now = useNow();
  const nodes = useLiveList<KubeObject>({ path: '/api/v1/nodes' });
  const leases = useLiveList<KubeObject>({ path: '/apis/coordination.k8s.io/v1/leases' });
  const pods = useLiveList<KubeObject>({ path: '/api/v1/pods' });
  const metrics = useComponentMetrics();

  const nodeLeases = new Map(leases.items.filter((l) => l.metadata.namespace === 'kube-node-lease').map((l) => [l.metadata.name, l]));
  const phases = new Map<string, number>();
  for (const pod of pods.items) {
    const phase = (pod.status as { phase?: string } | undefined)?.phase ?? 'Pending';
    phases.set(phase, (phases.get(phase) ?? 0) + 1);
  }
  const unhealthy = pods.items.filter((p) => {
    const phase = (p.status as { phase?: string } | undefined)?.phase ?? 'Pending';
    return phase === 'Pending' || phase === 'Failed' || phase === 'Unknown';
  });

  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      <div class="cards">
        <section class="card" aria-labelledby="nodes-h">
          <h2 id="nodes-h">
            <a href={listHref(NODES)}>Nodes</a> <span class="count">{nodes.items.length}</span>
          </h2>
          {nodes.error !== undefined ? <ErrorBox error={nodes.error} /> : null}
          {!nodes.synced && nodes.error === undefined ? <Loading what="nodes" /> : null}
          {nodes.synced && nodes.items.length === 0 ? <p class="muted">No nodes have registered.</p> : null}
          {nodes.items.length > 0 ? (
            <div class="scroll-x">
              <table class="data" aria-label="nodes">
                <thead>
                  <tr>
                    <th scope="col">Node</th>
                    <th scope="col">Ready</th>
                    <th scope="col">Heartbeat</th>
                    <th scope="col">Schedulable</th>
                  </tr>
                </thead>
                <tbody>
                  {nodes.items.map((n) => {
                    const ready = conditionsOf(n).find((c) => c.type === 'Ready');
                    const lease = nodeLeases.get(n.metadata.name);
                    const spec = lease?.spec as { renewTime?: string; leaseDurationSeconds?: number; holderIdentity?: string } | undefined;
                    const heartbeat = spec?.renewTime ?? ready?.lastHeartbeatTime;
                    const fresh = lease === undefined ? undefined : leaseFresh(spec, now);
                    const unschedulable = (n.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true;
                    return (
                      <tr key={n.metadata.uid}>
                        <th scope="row">
                          <a href={objectHref(NODES, undefined, n.metadata.name ?? '')}>{n.metadata.name}</a>
                        </th>
                        <td>
                          <StatusBadge ok={ready?.status === 'True'} text={ready === undefined ? 'Unknown' : ready.status === 'True' ? 'Ready' : (ready.reason ?? 'NotReady')} />
                        </td>
                        <td class={fresh === false ? 'bad-text' : ''}>
                          <Age time={heartbeat} now={now} /> {fresh === false ? '(lease expired)' : ''}
                        </td>
                        <td>{unschedulable ? 'cordoned' : 'yes'}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          ) : null}
        </section>

        <section class="card" aria-labelledby="pods-h">
          <h2 id="pods-h">
            <a href={listHref(PODS)}>Pods</a> <span class="count">{pods.items.length}</span>
          </h2>
          {pods.error !== undefined ? <ErrorBox error={pods.error} /> : null}
          {!pods.synced && pods.error === undefined ? <Loading what="pods" /> : null}
          <dl class="phases" aria-label="pods by phase">
            {PHASES.map((phase) => (
              <div key={phase} class={`phase phase-${phase.toLowerCase()}`}>
                <dt>{phase}</dt>
                <dd data-phase={phase}>{phases.get(phase) ?? 0}</dd>
              </div>
            ))}
          </dl>
          {unhealthy.length > 0 ? (
            <>
              <h3>Not running</h3>
              <ul class="plain">
                {unhealthy.slice(0, 8).map((p) => {
                  const reason = conditionsOf(p).find((c) => c.status === 'False' && c.reason !== undefined);
                  return (
                    <li key={p.metadata.uid}>
                      <a href={objectHref(PODS, p.metadata.namespace, p.metadata.name ?? '')}>
                        {p.metadata.namespace}/{p.metadata.name}
                      </a>{' '}
                      <span class="muted">{(p.status as { phase?: string } | undefined)?.phase ?? 'Pending'}{reason ? `: ${reason.reason}` : ''}</span>
                    </li>
                  );
                })}
                {unhealthy.length > 8 ? <li class="muted">and {unhealthy.length - 8} more</li> : null}
              </ul>
            </>
          ) : null}
        </section>

        <section class="card" aria-labelledby="controllers-h">
          <h2 id="controllers-h">
            <a href="#/controllers">Controllers</a>
          </h2>
          {metrics.error !== undefined ? <ErrorBox error={metrics.error} title="Controller metrics unavailable" /> : null}
          {metrics.components === undefined && metrics.error === undefined ? <Loading what="controller metrics" /> : null}
          {metrics.components?.length === 0 ? <p class="muted">No component metrics served.</p> : null}
          <ul class="plain">
            {metrics.components?.map((c) => {
              const depth = c.stats.controllers.reduce((acc, s) => acc + s.queueDepth, 0);
              const failing = c.stats.controllers.filter((s) => s.errorRate !== undefined && s.errorRate > 0.1);
              return (
                <li key={c.name} data-component={c.name}>
                  <StatusBadge ok={failing.length === 0} text={failing.length === 0 ? 'healthy' : `${failing.length} failing`} /> <strong>{c.name}</strong>:{' '}
                  {c.stats.controllers.length} controllers, {depth} queued
                  {failing.length > 0 ? <span class="bad-text"> ({failing.map((f) => f.name).join(', ')})</span> : null}
                </li>
              );
            })}
          </ul>
          {leases.items.some(isLeaderLease) ? <LeaseTable leases={leases.items.filter(isLeaderLease)} now={now} /> : null}
        </section>
      </div>
    </>
  );
}
