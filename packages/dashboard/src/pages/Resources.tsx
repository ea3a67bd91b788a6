/**
 * The browser: every served kind (custom resources included, from discovery), listed as the
 * server's Tables — kubectl's columns — filtered by namespace and label selector, kept live by a
 * watch, in a virtualised grid (10,000 rows cost what forty do).
 */
import { useEffect, useState } from 'preact/hooks';
import { collectionPath } from '../api/client.js';
import { browsable, qualifiedName } from '../api/discovery.js';
import type { ApiResource, KubeObject, TableRow } from '../api/types.js';
import { Age, ErrorBox, Loading } from '../components/bits.js';
import { VirtualTable, type VirtualColumn } from '../components/VirtualTable.js';
import { useDiscovery, useLiveList, useNow } from '../hooks.js';
import { listHref, navigate, objectHref, type Route, routeResource } from '../router.js';

export function Resources(props: { route: Route }) {
  const { resources, error } = useDiscovery();
  const wanted = routeResource(props.route);
  if (error !== undefined) return <ErrorBox error={error} title="Discovery failed" />;
  if (resources === undefined) return <Loading what="the served kinds" />;
  const resource = wanted === undefined ? undefined : resources.find((r) => r.group === wanted.group && r.resource === wanted.resource);
  if (wanted !== undefined && resource === undefined) {
    return (
      <>
        <h1 tabIndex={-1}>Not served</h1>
        <p>
          This server does not serve <code>{qualifiedName(wanted)}</code>. <a href="#/resources">All kinds</a>
        </p>
      </>
    );
  }
  if (resource === undefined) return <KindIndex resources={resources} />;
  const namespace = resource.namespaced ? (props.route.query.get('ns') ?? '') : '';
  return <ResourceList key={`${resource.group}/${resource.resource}`} resources={resources} resource={{ ...resource, version: wanted?.version ?? resource.version }} namespace={namespace} selector={props.route.query.get('l') ?? ''} />;
}

function KindIndex(props: { resources: readonly ApiResource[] }) {
  const [filter, setFilter] = useState('');
  const f = filter.trim().toLowerCase();
  const shown = props.resources.filter(browsable).filter((r) => f === '' || r.kind.toLowerCase().includes(f) || qualifiedName(r).includes(f) || (r.shortNames ?? []).includes(f));
  const groups = new Map<string, ApiResource[]>();
  for (const r of shown) groups.set(r.group, [...(groups.get(r.group) ?? []), r]);
  return (
    <>
      <h1 tabIndex={-1}>Resources</h1>
      <label for="kind-filter">Filter kinds</label>
      <input id="kind-filter" type="search" value={filter} onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)} />
      <div class="kinds">
        {[...groups].map(([group, list]) => (
          <section key={group} aria-label={group === '' ? 'core' : group}>
            <h2>{group === '' ? 'core (v1)' : group}</h2>
            <ul class="plain">
              {list.map((r) => (
                <li key={r.resource}>
                  <a href={listHref(r)}>{r.kind}</a> <span class="muted">{qualifiedName(r)}</span>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </>
  );
}

function ResourceList(props: { resources: readonly ApiResource[]; resource: ApiResource; namespace: string; selector: string }) {
  const { resource, namespace, selector } = props;
  const now = useNow();
  const [selectorText, setSelectorText] = useState(selector);
  useEffect(() => setSelectorText(selector), [selector]);
  const list = useLiveList<TableRow>({ path: collectionPath(resource, namespace), table: true, ...(selector ? { labelSelector: selector } : {}) });
  const namespaces = useLiveList<KubeObject>(resource.namespaced ? { path: '/api/v1/namespaces' } : undefined);
  const allNamespaces = resource.namespaced && namespace === '';

  const columns: VirtualColumn<TableRow>[] = [];
  list.columns.forEach((c, i) => {
    if ((c.priority ?? 0) > 0) return; // -o wide columns
    const isName = i === 0 && c.name === 'Name';
    const isAge = c.name === 'Age';
    columns.push({
      key: `${i}:${c.name}`,
      title: c.name,
      track: isName ? 'minmax(10rem, 3fr)' : isAge ? 'minmax(4rem, 0.6fr)' : 'minmax(5rem, 1fr)',
      minPx: isName ? 160 : isAge ? 64 : 96,
      render: (row) =>
        isName ? (
          <a href={objectHref(resource, row.object?.metadata.namespace, String(row.cells[i]))} tabIndex={-1}>
            {String(row.cells[i])}
          </a>
        ) : isAge && row.object?.metadata.creationTimestamp ? (
          // Ages grow: computed here, not frozen at the time the server printed the row.
          <Age time={row.object.metadata.creationTimestamp} now={now} />
        ) : (
          cellText(row.cells[i])
        ),
    });
  });
  // Across namespaces the namespace comes second (kubectl puts it first; a narrow window keeps the name).
  if (allNamespaces) columns.splice(Math.min(1, columns.length), 0, { key: 'namespace', title: 'Namespace', track: 'minmax(7rem, 1fr)', minPx: 110, render: (row) => row.object?.metadata.namespace ?? '' });

  const go = (ns: string, l: string) => navigate(listHref(resource, { ns, l }));
  const plural = list.items.length === 1 ? resource.kind : resource.resource;

  return (
    <div class="list-page">
      <h1 tabIndex={-1}>
        {resource.kind} <span class="muted small">{qualifiedName(resource)}</span>
      </h1>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          go(namespace, selectorText.trim());
        }}
      >
        <div class="field">
          <label for="filter-kind">Kind</label>
          <select
            id="filter-kind"
            value={`${resource.group}/${resource.resource}`}
            onChange={(e) => {
              const [group, res] = (e.currentTarget as HTMLSelectElement).value.split('/');
              const next = props.resources.find((r) => r.group === group && r.resource === res);
              if (next !== undefined) navigate(listHref(next, next.namespaced ? { ns: namespace } : {}));
            }}
          >
            {props.resources.filter(browsable).map((r) => (
              <option key={`${r.group}/${r.resource}`} value={`${r.group}/${r.resource}`}>
                {r.kind} ({qualifiedName(r)})
              </option>
            ))}
          </select>
        </div>
        {resource.namespaced ? (
          <div class="field">
            <label for="filter-namespace">Namespace</label>
            <select id="filter-namespace" value={namespace} onChange={(e) => go((e.currentTarget as HTMLSelectElement).value, selector)}>
              <option value="">All namespaces</option>
              {namespace !== '' && !namespaces.items.some((n) => n.metadata.name === namespace) ? <option value={namespace}>{namespace}</option> : null}
              {namespaces.items.map((n) => (
                <option key={n.metadata.name} value={n.metadata.name}>
                  {n.metadata.name}
                </option>
              ))}
            </select>
          </div>
        ) : null}
        <div class="field">
          <label for="filter-labels">Label selector</label>
          <input id="filter-labels" type="search" placeholder="app=web,tier!=cache" value={selectorText} onInput={(e) => setSelectorText((e.currentTarget as HTMLInputElement).value)} spellcheck={false} />
        </div>
        <button type="submit">Filter</button>
      </form>
      {list.error !== undefined ? <ErrorBox error={list.error} /> : null}
      <p class="muted" role="status" aria-live="polite">
        {list.synced ? `${list.items.length} ${plural}` : 'Loading…'}
        {list.phase === 'retrying' ? ' (reconnecting)' : ''}
      </p>
      <VirtualTable
        rows={list.items}
        columns={columns}
        rowKey={(row) => row.object?.metadata.uid ?? String(row.cells[0])}
        rowHref={(row) => objectHref(resource, row.object?.metadata.namespace, row.object?.metadata.name ?? String(row.cells[0]))}
        label={`${resource.resource}${namespace ? ` in ${namespace}` : ''}`}
        empty={list.synced ? `No ${resource.resource}${namespace ? ` in ${namespace}` : ''}${selector ? ` matching ${selector}` : ''}.` : undefined}
      />
    </div>
  );
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

