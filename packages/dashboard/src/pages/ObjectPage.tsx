/**
 * One object: declared (spec) beside observed (status), its conditions, events, owner and
 * dependents, who manages which fields, and the YAML editor. The object and its events are
 * watched (two streams), so status changes appear as they happen.
 */
import { useEffect, useState } from 'preact/hooks';
import { TABLE_ACCEPT, collectionPath, errorText, query, type ApiClient } from '../api/client.js';
import { browsable, qualifiedName, resourceForKind } from '../api/discovery.js';
import type { ApiResource, KubeObject, Table } from '../api/types.js';
import { conditionsOf } from '../api/types.js';
import { toYaml } from '../api/yaml.js';
import { Age, Conditions, ErrorBox, Labels, Loading, StatusBadge } from '../components/bits.js';
import { useClient, useDiscovery, useLiveList, useNow } from '../hooks.js';
import { objectHref, routeResource, type Route } from '../router.js';
import { YamlEditor } from './YamlEditor.js';

export function ObjectPage(props: { route: Route }) {
  const { resources, error } = useDiscovery();
  const wanted = routeResource(props.route);
  const ns = props.route.segments[4];
  const name = props.route.segments[5];
  if (error !== undefined) return <ErrorBox error={error} title="Discovery failed" />;
  if (resources === undefined) return <Loading what="the served kinds" />;
  const found = wanted && resources.find((r) => r.group === wanted.group && r.resource === wanted.resource);
  if (wanted === undefined || found === undefined || name === undefined) return <p>This server does not serve that kind.</p>;
  const resource = { ...found, version: wanted.version };
  const namespace = ns === undefined || ns === '-' ? undefined : ns;
  return <ObjectView key={`${qualifiedName(resource)}/${ns}/${name}`} resources={resources} resource={resource} namespace={namespace} name={name} startEditing={props.route.query.get('edit') === '1'} />;
}

const eventTime = (e: KubeObject): string => String(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp ?? '');
const newestFirst = (a: KubeObject, b: KubeObject): number => eventTime(b).localeCompare(eventTime(a));

function ObjectView(props: { resources: readonly ApiResource[]; resource: ApiResource; namespace: string | undefined; name: string; startEditing: boolean }) {
  const { resource, namespace, name } = props;
  const now = useNow();
  const [editing, setEditing] = useState(props.startEditing);
  const live = useLiveList<KubeObject>({ path: collectionPath(resource, namespace), fieldSelector: `metadata.name=${name}` });
  const obj = live.items[0];
  const uid = obj?.metadata.uid;
  const events = useLiveList<KubeObject>(
    uid === undefined ? undefined : { path: namespace ? `/api/v1/namespaces/${encodeURIComponent(namespace)}/events` : '/api/v1/events', fieldSelector: `involvedObject.uid=${uid}` },
    newestFirst,
  );

  if (live.error !== undefined && obj === undefined) return <ErrorBox error={live.error} />;
  if (!live.synced) return <Loading what={`${resource.kind} ${name}`} />;
  if (obj === undefined) {
    return (
      <>
        <h1 tabIndex={-1}>
          {resource.kind} {name}
        </h1>
        <p role="status">
          Not found{namespace ? ` in namespace ${namespace}` : ''}: it does not exist, or it was deleted. This page shows it if it comes back.
        </p>
      </>
    );
  }

  const meta = obj.metadata;
  const { apiVersion: _a, kind: _k, metadata: _m, status, ...declared } = obj;
  const conditions = conditionsOf(obj);
  const observed = status !== undefined && typeof status === 'object' && status !== null ? Object.fromEntries(Object.entries(status).filter(([k]) => k !== 'conditions')) : undefined;
  const observedGeneration = (status as { observedGeneration?: number } | undefined)?.observedGeneration;

  return (
    <article class="object-page">
      <header class="object-head">
        <h1 tabIndex={-1}>
          <span class="muted small">{resource.kind}</span> {meta.name}
        </h1>
        <p class="muted">
          {namespace ? <>namespace {namespace} · </> : null}
          created <Age time={meta.creationTimestamp} now={now} /> ago · resourceVersion {meta.resourceVersion}
          {meta.generation !== undefined ? <> · generation {meta.generation}</> : null}
          {meta.deletionTimestamp ? (
            <>
              {' '}
              · <StatusBadge ok={false} text="being deleted" />
            </>
          ) : null}
        </p>
        <div class="actions">
          <button type="button" aria-expanded={editing} aria-controls="editor" onClick={() => setEditing(!editing)}>
            {editing ? 'Close editor' : 'Edit YAML'}
          </button>
        </div>
      </header>

      {editing ? <YamlEditor id="editor" resource={resource} object={obj} onClose={() => setEditing(false)} /> : null}

      <div class="side-by-side">
        <section aria-labelledby="declared-h" class="panel">
          <h2 id="declared-h">Declared</h2>
          <p class="muted small">spec: what was asked for</p>
          <pre class="yaml" tabIndex={0} aria-label="declared state">
            {Object.keys(declared).length === 0 ? '# nothing declared' : toYaml(declared)}
          </pre>
        </section>
        <section aria-labelledby="observed-h" class="panel">
          <h2 id="observed-h">
            Observed{' '}
            {observedGeneration !== undefined && meta.generation !== undefined && observedGeneration < meta.generation ? (
              <StatusBadge ok={false} text={`catching up: generation ${observedGeneration} of ${meta.generation}`} />
            ) : null}
          </h2>
          <p class="muted small">status: what the controllers saw</p>
          <pre class="yaml" tabIndex={0} aria-label="observed state">
            {observed === undefined ? '# no status reported' : toYaml(observed)}
          </pre>
        </section>
      </div>

      <section aria-labelledby="conditions-h">
        <h2 id="conditions-h">Conditions</h2>
        <Conditions conditions={conditions} now={now} />
      </section>

      <section aria-labelledby="labels-h">
        <h2 id="labels-h">Labels</h2>
        <Labels labels={meta.labels} />
        {meta.annotations && Object.keys(meta.annotations).length > 0 ? (
          <details>
            <summary>{Object.keys(meta.annotations).length} annotations</summary>
            <pre class="yaml">{toYaml(meta.annotations)}</pre>
          </details>
        ) : null}
      </section>

      <section aria-labelledby="owners-h">
        <h2 id="owners-h">Owner and dependents</h2>
        <h3>Owner</h3>
        {(meta.ownerReferences ?? []).length === 0 ? <p class="muted">No owner.</p> : null}
        <ul class="plain">
          {(meta.ownerReferences ?? []).map((o) => {
            const r = resourceForKind(props.resources, o.apiVersion, o.kind);
            return (
              <li key={o.uid}>
                {r ? <a href={objectHref(r, r.namespaced ? namespace : undefined, o.name)}>{`${o.kind} ${o.name}`}</a> : `${o.kind} ${o.name}`}
                {o.controller ? <span class="muted"> (controller)</span> : null}
              </li>
            );
          })}
        </ul>
        <h3>Dependents</h3>
        <Dependents resources={props.resources} object={obj} namespace={namespace} />
      </section>

      <section aria-labelledby="events-h">
        <h2 id="events-h">Events</h2>
        {events.error !== undefined ? <ErrorBox error={events.error} /> : null}
        {events.synced && events.items.length === 0 ? <p class="muted">No events.</p> : null}
        {events.items.length > 0 ? (
          <div class="scroll-x">
            <table class="data" aria-label="events">
              <thead>
                <tr>
                  <th scope="col">Type</th>
                  <th scope="col">Reason</th>
                  <th scope="col">Age</th>
                  <th scope="col">Count</th>
                  <th scope="col">From</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody>
                {events.items.map((e) => (
                  <tr key={e.metadata.uid}>
                    <td>
                      <StatusBadge ok={e.type === 'Normal' ? undefined : false} text={String(e.type ?? '')} />
                    </td>
                    <td>{String(e.reason ?? '')}</td>
                    <td>
                      <Age time={eventTime(e)} now={now} />
                    </td>
                    <td>{String(e.count ?? (e.series as { count?: number } | undefined)?.count ?? 1)}</td>
                    <td>{String((e.source as { component?: string } | undefined)?.component ?? e.reportingController ?? '')}</td>
                    <td class="wrap">{String(e.message ?? '')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </section>

      <section aria-labelledby="managers-h">
        <h2 id="managers-h">Field managers</h2>
        <ul class="plain">
          {(meta.managedFields ?? []).map((m, i) => (
            <li key={i}>
              <strong>{m.manager}</strong> <span class="muted">{m.operation}{m.subresource ? ` (${m.subresource})` : ''}</span> <Age time={m.time} now={now} />
            </li>
          ))}
        </ul>
      </section>
    </article>
  );
}

/** Objects whose ownerReferences name this one, found by listing the metadata of every kind where they can be. */
function Dependents(props: { resources: readonly ApiResource[]; object: KubeObject; namespace: string | undefined }) {
  const client = useClient();
  const uid = props.object.metadata.uid ?? '';
  const [state, setState] = useState<{ found?: { resource: ApiResource; object: KubeObject }[]; error?: unknown }>({});
  useEffect(() => {
    const abort = new AbortController();
    setState({});
    findDependents(client, props.resources, uid, props.namespace, abort.signal).then(
      (found) => !abort.signal.aborted && setState({ found }),
      (error: unknown) => !abort.signal.aborted && setState({ error }),
    );
    return () => abort.abort();
  }, [client, uid, props.namespace, props.resources]);
  if (state.error !== undefined) return <p class="muted">Dependents unknown: {errorText(state.error)}</p>;
  if (state.found === undefined) return <Loading what="dependents" />;
  if (state.found.length === 0) return <p class="muted">No dependents.</p>;
  return (
    <ul class="plain">
      {state.found.map(({ resource, object }) => (
        <li key={object.metadata.uid}>
          <a href={objectHref(resource, object.metadata.namespace, object.metadata.name ?? '')}>
            {resource.kind} {object.metadata.namespace ? `${object.metadata.namespace}/` : ''}
            {object.metadata.name}
          </a>
        </li>
      ))}
    </ul>
  );
}

async function findDependents(client: ApiClient, resources: readonly ApiResource[], uid: string, namespace: string | undefined, signal: AbortSignal): Promise<{ resource: ApiResource; object: KubeObject }[]> {
  // Namespaced owners have dependents in their namespace only; cluster-scoped ones anywhere.
  const candidates = resources.filter((r) => browsable(r) && r.resource !== 'events' && (namespace === undefined || r.namespaced));
  const found: { resource: ApiResource; object: KubeObject }[] = [];
  let next = 0;
  const worker = async () => {
    while (next < candidates.length && !signal.aborted) {
      const r = candidates[next++]!;
      let token: string | undefined;
      do {
        const table = await client
          .json<Table>(collectionPath(r, namespace) + query({ limit: 500, continue: token, includeObject: 'Metadata' }), { accept: TABLE_ACCEPT, signal })
          .catch(() => undefined); // a kind this user may not list has no dependents to show
        if (table === undefined) break;
        for (const row of table.rows ?? []) {
          if (row.object?.metadata.ownerReferences?.some((o) => o.uid === uid)) found.push({ resource: r, object: row.object });
        }
        token = table.metadata?.continue || undefined;
      } while (token !== undefined);
    }
  };
  // Two at a time: the page's two watches and these stay within the browser's six connections.
  await Promise.all([worker(), worker()]);
  return found.sort((a, b) => a.resource.kind.localeCompare(b.resource.kind) || (a.object.metadata.name ?? '').localeCompare(b.object.metadata.name ?? ''));
}
