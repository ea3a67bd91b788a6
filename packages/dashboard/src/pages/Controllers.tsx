/**
 * Controllers: per controller of each component (the controller-manager, the scheduler) its queue
 * depth, reconciles per second, error rate and latency, from the component's Prometheus metrics
 * that the API server serves at /metrics/components/NAME (sampled every 5 s while the page is
 * open: metrics cannot be watched); and the holder of each leader Lease (watched).
 */
import { controllerStats, parsePrometheus, type ComponentStats, type Scrape } from '../api/metrics.js';
import { ApiStatusError } from '../api/client.js';
import type { KubeObject } from '../api/types.js';
import { Age, ErrorBox, Loading, StatusBadge } from '../components/bits.js';
import { useClient, useLiveList, useNow, usePoll } from '../hooks.js';
import { objectHref } from '../router.js';

const SAMPLE_MS = 5000;

export interface ComponentMetrics {
  readonly components: readonly { name: string; stats: ComponentStats; at: number }[] | undefined;
  readonly error: unknown;
}

/** Every component's controller figures, sampled every 5 s. */
export function useComponentMetrics(): ComponentMetrics {
  const client = useClient();
  const polled = usePoll(
    async (signal) => {
      const { components } = await client.json<{ components: string[] }>('/metrics/components', { signal });
      const scrapes = await Promise.all(components.map(async (name) => ({ name, scrape: { at: Date.now(), samples: parsePrometheus(await client.text(`/metrics/components/${encodeURIComponent(name)}`, { signal })) } })));
      return new Map<string, Scrape>(scrapes.map((s) => [s.name, s.scrape]));
    },
    SAMPLE_MS,
    [client],
  );
  const latest = polled.results[polled.results.length - 1];
  const previous = polled.results.length > 1 ? polled.results[polled.results.length - 2] : undefined;
  const components = latest === undefined ? undefined : [...latest.value].map(([name, scrape]) => ({ name, at: scrape.at, stats: controllerStats(scrape, previous?.value.get(name)) }));
  return { components, error: polled.error };
}

/** A Lease a component campaigns for (not a node's heartbeat). */
export function isLeaderLease(lease: KubeObject): boolean {
  return lease.metadata.namespace !== 'kube-node-lease';
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  renewTime?: string;
  acquireTime?: string;
  leaseTransitions?: number;
}

/** Whether a lease was renewed within its duration. */
export function leaseFresh(spec: LeaseSpec | undefined, now: number): boolean {
  if (spec?.renewTime === undefined || spec.holderIdentity === undefined || spec.holderIdentity === '') return false;
  return now - Date.parse(spec.renewTime) <= (spec.leaseDurationSeconds ?? 15) * 1000;
}

const LEASES = { group: 'coordination.k8s.io', version: 'v1', resource: 'leases' };

export function Controllers() {
  const now = useNow();
  const metrics = useComponentMetrics();
  const leases = useLiveList<KubeObject>({ path: '/apis/coordination.k8s.io/v1/leases' });
  const leaderLeases = leases.items.filter(isLeaderLease);

  return (
    <>
      <h1 tabIndex={-1}>Controllers</h1>
      {metrics.error !== undefined ? (
        <ErrorBox error={metrics.error} title={metrics.error instanceof ApiStatusError && metrics.error.code === 403 ? 'Not allowed to read controller metrics' : 'Controller metrics unavailable'} />
      ) : null}
      {metrics.components === undefined && metrics.error === undefined ? <Loading what="controller metrics" /> : null}
      {metrics.components?.length === 0 ? <p class="muted">This API server serves no component metrics (run the controllers with `setpoint up`, or see docs/dashboard.md).</p> : null}
      {metrics.components?.map((c) => (
        <section key={c.name} aria-labelledby={`component-${c.name}`}>
          <h2 id={`component-${c.name}`}>
            {c.name}{' '}
            {Object.entries(c.stats.leading).map(([lease, leading]) => (
              <StatusBadge key={lease} ok={leading} text={lease === 'none' ? 'no leader election' : leading ? `leading ${lease}` : `following ${lease}`} />
            ))}
          </h2>
          <div class="scroll-x">
            <table class="data numeric" aria-label={`${c.name} controllers`}>
              <thead>
                <tr>
                  <th scope="col">Controller</th>
                  <th scope="col">Queue depth</th>
                  <th scope="col">Workers</th>
                  <th scope="col">Reconciles/s</th>
                  <th scope="col">Error rate</th>
                  <th scope="col">Mean latency</th>
                  <th scope="col" title="the upper bound of the histogram bucket holding the 95th percentile">p95 latency</th>
                  <th scope="col">Reconciles (errors)</th>
                </tr>
              </thead>
              <tbody>
                {c.stats.controllers.map((s) => (
                  <tr key={s.name} data-controller={s.name}>
                    <th scope="row">{s.name}</th>
                    <td>{s.queueDepth}</td>
                    <td>
                      {s.activeWorkers}/{s.maxWorkers}
                    </td>
                    <td>{s.reconcilesPerSecond === undefined ? <span class="muted">measuring…</span> : s.reconcilesPerSecond.toFixed(2)}</td>
                    <td class={s.errorRate !== undefined && s.errorRate > 0 ? 'bad-text' : ''}>{s.errorRate === undefined ? '—' : `${(s.errorRate * 100).toFixed(1)}%`}</td>
                    <td>{formatSeconds(s.meanLatency)}</td>
                    <td>{s.p95Latency === undefined ? '—' : `≤ ${formatSeconds(s.p95Latency)}`}</td>
                    <td>
                      {s.reconciles} ({s.errors})
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
      <section aria-labelledby="leases-h">
        <h2 id="leases-h">Leader leases</h2>
        {leases.error !== undefined ? <ErrorBox error={leases.error} /> : null}
        {!leases.synced && leases.error === undefined ? <Loading what="leases" /> : null}
        {leases.synced && leaderLeases.length === 0 ? <p class="muted">No leader leases: the components run without leader election (one replica each, as in `setpoint up`).</p> : null}
        {leaderLeases.length > 0 ? <LeaseTable leases={leaderLeases} now={now} /> : null}
      </section>
    </>
  );
}

export function LeaseTable(props: { leases: readonly KubeObject[]; now: number }) {
  return (
    <div class="scroll-x">
      <table class="data" aria-label="leader leases">
        <thead>
          <tr>
            <th scope="col">Lease</th>
            <th scope="col">Holder</th>
            <th scope="col">State</th>
            <th scope="col">Renewed</th>
            <th scope="col">Duration</th>
            <th scope="col">Transitions</th>
          </tr>
        </thead>
        <tbody>
          {props.leases.map((l) => {
            const spec = l.spec as LeaseSpec | undefined;
            const fresh = leaseFresh(spec, props.now);
            return (
              <tr key={l.metadata.uid}>
                <th scope="row">
                  <a href={objectHref(LEASES, l.metadata.namespace, l.metadata.name ?? '')}>
                    {l.metadata.namespace}/{l.metadata.name}
                  </a>
                </th>
                <td>{spec?.holderIdentity || <span class="muted">none</span>}</td>
                <td>
                  <StatusBadge ok={fresh} text={fresh ? 'held' : 'expired'} />
                </td>
                <td>
                  <Age time={spec?.renewTime} now={props.now} />
                </td>
                <td>{spec?.leaseDurationSeconds ?? '—'}s</td>
                <td>{spec?.leaseTransitions ?? 0}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

function formatSeconds(s: number | undefined): string {
  if (s === undefined) return '—';
  if (s < 0.001) return `${(s * 1e6).toFixed(0)} µs`;
  if (s < 1) return `${(s * 1000).toFixed(1)} ms`;
  return `${s.toFixed(2)} s`;
}
