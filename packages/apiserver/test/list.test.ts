/**
 * LIST over HTTP: label and field selectors, limit/continue paging over a consistent snapshot,
 * expired continue tokens, the resourceVersion / resourceVersionMatch semantics, all-namespaces
 * and cluster-scoped collections.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestServer, type TestServer } from './harness.js';
import { CM, assertStatus, configMap, createConfigMap, listRevision, names, ok } from './support.js';

async function seedLabelled(srv: TestServer): Promise<void> {
  await createConfigMap(srv, 'a', {}, { app: 'web', tier: 'front' });
  await createConfigMap(srv, 'b', {}, { app: 'web', tier: 'back' });
  await createConfigMap(srv, 'c', {}, { app: 'db' });
  await createConfigMap(srv, 'd', {}, { app: 'web', tier: 'front' }, 'kube-system');
}

async function event(srv: TestServer, name: string, involved: Record<string, string>, reason = 'Tested') {
  return ok(
    await srv.request('POST', '/api/v1/namespaces/default/events', { metadata: { name }, involvedObject: { namespace: 'default', ...involved }, reason, type: 'Normal' }),
    201,
  );
}

const q = encodeURIComponent;

describe('list', () => {
  it('answers a typed list with a resourceVersion and an items array, also when empty', async () => {
    await using srv = await startTestServer();
    for (const query of ['', '?resourceVersion=0', '?labelSelector=none%3Dmatches', '?limit=5', '?resourceVersion=0&limit=5']) {
      const res = await srv.request('GET', `/api/v1/namespaces/kube-public/configmaps${query}`);
      const list = ok(res);
      assert.equal(list.kind, 'ConfigMapList');
      assert.equal(list.apiVersion, 'v1');
      assert.match(list.metadata.resourceVersion, /^\d+$/, `resourceVersion for ${query}`);
      assert.equal(list.metadata.continue, undefined);
      assert.ok(res.text.includes('"items":[]'), `items is [] (not null or missing) for ${query}: ${res.text}`);
    }
  });

  it('filters by label selector', async () => {
    await using srv = await startTestServer();
    await seedLabelled(srv);
    const sel = async (s: string) => names(ok(await srv.request('GET', `${CM}?labelSelector=${q(s)}`)));
    assert.deepEqual(await sel('app=web'), ['a', 'b']);
    assert.deepEqual(await sel('app=web,tier=front'), ['a']);
    assert.deepEqual(await sel('app in (web,db),tier!=back'), ['a', 'c']);
    assert.deepEqual(await sel('!tier'), ['c']);
    assert.deepEqual(await sel('tier'), ['a', 'b']);
    assert.deepEqual(await sel('app notin (web)'), ['c']);
    assert.deepEqual(await sel('app=nothing'), []);
    // The same from the watch cache (resourceVersion=0).
    assert.deepEqual(names(ok(await srv.request('GET', `${CM}?resourceVersion=0&labelSelector=${q('app=web')}`))), ['a', 'b']);
    assertStatus(await srv.request('GET', `${CM}?labelSelector=${q('app==(')}`), 400, 'BadRequest');
  });

  it('filters by metadata.name and metadata.namespace field selectors', async () => {
    await using srv = await startTestServer();
    await seedLabelled(srv);
    const fs = async (path: string, s: string) => names(ok(await srv.request('GET', `${path}?fieldSelector=${q(s)}`)));
    assert.deepEqual(await fs(CM, 'metadata.name=b'), ['b']);
    assert.deepEqual(await fs(CM, 'metadata.name!=b'), ['a', 'c']);
    assert.deepEqual(await fs(CM, 'metadata.name==c'), ['c']);
    assert.deepEqual(await fs('/api/v1/configmaps', 'metadata.namespace=kube-system'), ['d']);
    assert.deepEqual(await fs('/api/v1/configmaps', 'metadata.namespace!=kube-system'), ['a', 'b', 'c']);
    assert.deepEqual(await fs('/api/v1/configmaps', 'metadata.namespace=default,metadata.name=a'), ['a']);
    // Cluster-scoped kinds too (kubectl's delete-and-wait uses metadata.name).
    assert.deepEqual(await fs('/api/v1/namespaces', 'metadata.name=kube-public'), ['kube-public']);
    // Label and field selectors together.
    assert.deepEqual(names(ok(await srv.request('GET', `/api/v1/configmaps?labelSelector=${q('app=web')}&fieldSelector=${q('metadata.name!=a')}`))), ['b', 'd']);
  });

  it('filters events by involvedObject fields', async () => {
    await using srv = await startTestServer();
    await event(srv, 'e1', { kind: 'Pod', name: 'p1', uid: 'u-1' });
    await event(srv, 'e2', { kind: 'Pod', name: 'p2', uid: 'u-2' }, 'Other');
    await event(srv, 'e3', { kind: 'Node', name: 'p1', uid: 'u-3' });
    const fs = async (s: string) => names(ok(await srv.request('GET', `/api/v1/namespaces/default/events?fieldSelector=${q(s)}`)));
    assert.deepEqual(await fs('involvedObject.name=p1'), ['e1', 'e3']);
    assert.deepEqual(await fs('involvedObject.kind=Pod'), ['e1', 'e2']);
    assert.deepEqual(await fs('involvedObject.uid=u-2'), ['e2']);
    assert.deepEqual(await fs('involvedObject.namespace=default'), ['e1', 'e2', 'e3']);
    // What kubectl describe sends.
    assert.deepEqual(await fs('involvedObject.name=p1,involvedObject.namespace=default,involvedObject.uid=u-1'), ['e1']);
    assert.deepEqual(await fs('reason=Other'), ['e2']);
  });

  it('refuses a field label the kind does not support', async () => {
    await using srv = await startTestServer();
    assertStatus(await srv.request('GET', `${CM}?fieldSelector=${q('spec.foo=x')}`), 400, 'BadRequest', 'field label not supported: spec.foo');
    assertStatus(await srv.request('GET', `${CM}?fieldSelector=${q('involvedObject.name=x')}`), 400, 'BadRequest', 'field label not supported: involvedObject.name');
    assertStatus(await srv.request('GET', `${CM}?watch=true&fieldSelector=${q('spec.foo=x')}`), 400, 'BadRequest', 'field label not supported: spec.foo');
    // The same field is fine where the kind supports it.
    ok(await srv.request('GET', `/api/v1/nodes?fieldSelector=${q('spec.unschedulable=false')}`));
    ok(await srv.request('GET', `/api/v1/namespaces?fieldSelector=${q('status.phase=Active')}`));
  });

  it('pages with limit/continue: every object exactly once from one snapshot while writes happen between pages', async () => {
    await using srv = await startTestServer();
    const original = new Map<string, string>();
    for (let i = 0; i < 23; i++) {
      const name = `cm-${String(i).padStart(2, '0')}`;
      original.set(name, (await createConfigMap(srv, name, { v: 'original' })).metadata.resourceVersion!);
    }
    const first = ok(await srv.request('GET', `${CM}?limit=5`));
    const snapshot = first.metadata.resourceVersion;
    assert.equal(first.items.length, 5);
    assert.ok(first.metadata.continue, 'a first page that is not the last carries a continue token');
    const seen: string[] = [...names(first)];
    const items = [...first.items];
    let token: string = first.metadata.continue;
    let page = 0;
    while (token) {
      // Between pages: objects added before and after the cursor, objects not yet listed updated
      // and deleted. None of it may show in the remaining pages.
      await createConfigMap(srv, `cm-00-new-${page}`);
      await createConfigMap(srv, `zz-new-${page}`);
      const pending = [...original.keys()].filter((n) => !seen.includes(n));
      if (pending.length > 2) {
        ok(await srv.request('PUT', `${CM}/${pending[0]}`, configMap(pending[0]!, { v: 'changed' })));
        ok(await srv.request('DELETE', `${CM}/${pending[1]}`));
      }
      const next = ok(await srv.request('GET', `${CM}?limit=5&continue=${q(token)}`));
      assert.equal(next.metadata.resourceVersion, snapshot, 'every page is read at the first page’s resourceVersion');
      assert.ok(next.items.length <= 5);
      seen.push(...names(next));
      items.push(...next.items);
      token = next.metadata.continue;
      page++;
    }
    assert.deepEqual(seen, [...original.keys()], 'each object of the snapshot exactly once, in key order');
    for (const item of items) {
      assert.equal(item.data.v, 'original', `${item.metadata.name} as it was in the snapshot`);
      assert.equal(item.metadata.resourceVersion, original.get(item.metadata.name));
    }
    // A new list sees the writes.
    const now = names(ok(await srv.request('GET', CM)));
    assert.ok(now.includes('zz-new-0') && now.includes('cm-00-new-0'));
  });

  it('pages a filtered list and an all-namespaces list', async () => {
    await using srv = await startTestServer();
    for (let i = 0; i < 9; i++) await createConfigMap(srv, `f${i}`, {}, { keep: i % 2 === 0 ? 'yes' : 'no' }, i < 5 ? 'default' : 'kube-system');
    const collect = async (path: string) => {
      const out: string[] = [];
      let token = '';
      do {
        const sep = path.includes('?') ? '&' : '?';
        const list = ok(await srv.request('GET', `${path}${sep}limit=2${token ? `&continue=${q(token)}` : ''}`));
        assert.ok(list.items.length <= 2);
        out.push(...list.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`));
        token = list.metadata.continue ?? '';
      } while (token);
      return out;
    };
    assert.deepEqual(await collect(`/api/v1/configmaps?labelSelector=keep%3Dyes`), ['default/f0', 'default/f2', 'default/f4', 'kube-system/f6', 'kube-system/f8']);
    assert.deepEqual((await collect('/api/v1/configmaps')).length, 9);
  });

  it('answers 410 Expired for a continue token whose revision was compacted', async () => {
    await using srv = await startTestServer();
    for (let i = 0; i < 4; i++) await createConfigMap(srv, `c${i}`);
    const first = ok(await srv.request('GET', `${CM}?limit=2`));
    assert.ok(first.metadata.continue);
    await createConfigMap(srv, 'later');
    await srv.store.compact(await srv.store.currentRevision());
    assertStatus(
      await srv.request('GET', `${CM}?limit=2&continue=${q(first.metadata.continue)}`),
      410,
      'Expired',
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
    );
    // A new list works.
    assert.equal(ok(await srv.request('GET', CM)).items.length, 5);
  });

  it('refuses a continue token it did not issue, and a resourceVersion with continue', async () => {
    await using srv = await startTestServer();
    for (let i = 0; i < 3; i++) await createConfigMap(srv, `c${i}`);
    assertStatus(await srv.request('GET', `${CM}?limit=1&continue=garbage`), 400, 'BadRequest');
    const first = ok(await srv.request('GET', `${CM}?limit=1`));
    const token = q(first.metadata.continue);
    assertStatus(await srv.request('GET', `${CM}?limit=1&continue=${token}&resourceVersion=2`), 400, 'BadRequest', 'specifying resource version is not allowed when using continue');
    assertStatus(
      await srv.request('GET', `${CM}?limit=1&continue=${token}&resourceVersion=2&resourceVersionMatch=Exact`),
      422,
      'Invalid',
      /resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided/,
    );
    // resourceVersion=0 with continue is tolerated and the token wins.
    assert.deepEqual(names(ok(await srv.request('GET', `${CM}?limit=1&continue=${token}&resourceVersion=0`))), ['c1']);
  });

  it('serves resourceVersion unset as the most recent state, "0" from the cache, N not older than N', async () => {
    await using srv = await startTestServer({ watchCache: { waitForFreshMs: 200 } });
    const a = await createConfigMap(srv, 'a');
    // Unset: the most recent state, at the store's current revision.
    const latest = ok(await srv.request('GET', CM));
    assert.deepEqual(names(latest), ['a']);
    assert.equal(latest.metadata.resourceVersion, String(await srv.store.currentRevision()));
    // "0": whatever the cache has; it holds a (it is fed before or shortly after the write).
    const any = ok(await srv.request('GET', `${CM}?resourceVersion=0`));
    assert.ok(Number(any.metadata.resourceVersion) > 0);
    // N: at least as new as N, so a is there.
    const notOlder = ok(await srv.request('GET', `${CM}?resourceVersion=${a.metadata.resourceVersion}`));
    assert.deepEqual(names(notOlder), ['a']);
    assert.ok(Number(notOlder.metadata.resourceVersion) >= Number(a.metadata.resourceVersion));
    const explicit = ok(await srv.request('GET', `${CM}?resourceVersion=${a.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan`));
    assert.deepEqual(names(explicit), ['a']);
    // NotOlderThan with a limit pages (from the latest revision).
    await createConfigMap(srv, 'b');
    const page = ok(await srv.request('GET', `${CM}?resourceVersion=${a.metadata.resourceVersion}&resourceVersionMatch=NotOlderThan&limit=1`));
    assert.deepEqual(names(page), ['a']);
    assert.ok(page.metadata.continue);
    assert.deepEqual(names(ok(await srv.request('GET', `${CM}?limit=1&continue=${q(page.metadata.continue)}`))), ['b']);
    assertStatus(await srv.request('GET', `${CM}?resourceVersion=${Number(a.metadata.resourceVersion) + 1000}&resourceVersionMatch=NotOlderThan&limit=1`), 504, 'Timeout');
    // N the server has not reached: 504 Timeout after waiting a little.
    const future = Number(a.metadata.resourceVersion) + 1000;
    const body = assertStatus(await srv.request('GET', `${CM}?resourceVersion=${future}`), 504, 'Timeout', new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
    assert.equal(body.details.causes[0].reason, 'ResourceVersionTooLarge');
    // The same answer when the store is asked (Exact, and NotOlderThan with a limit), as Kubernetes words it.
    for (const query of [`resourceVersion=${future}&resourceVersionMatch=Exact`, `resourceVersion=${future}&resourceVersionMatch=NotOlderThan&limit=1`]) {
      const fromStore = assertStatus(await srv.request('GET', `${CM}?${query}`), 504, 'Timeout', new RegExp(`^Timeout: Too large resource version: ${future}, current: \\d+$`));
      assert.deepEqual(fromStore.details.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], query);
      assert.equal(fromStore.details.retryAfterSeconds, 1);
    }
    assertStatus(await srv.request('GET', `${CM}?resourceVersion=abc`), 400, 'BadRequest');
  });

  it('serves resourceVersionMatch=Exact at exactly that revision', async () => {
    await using srv = await startTestServer();
    const a = await createConfigMap(srv, 'a', { v: '1' });
    const at = a.metadata.resourceVersion!;
    ok(await srv.request('PUT', `${CM}/a`, configMap('a', { v: '2' })));
    await createConfigMap(srv, 'b');
    const exact = ok(await srv.request('GET', `${CM}?resourceVersion=${at}&resourceVersionMatch=Exact`));
    assert.equal(exact.metadata.resourceVersion, at);
    assert.deepEqual(names(exact), ['a']);
    assert.deepEqual(exact.items[0].data, { v: '1' });
    // Legacy: resourceVersion=N with a limit (and no match) is Exact too.
    const legacy = ok(await srv.request('GET', `${CM}?resourceVersion=${at}&limit=10`));
    assert.equal(legacy.metadata.resourceVersion, at);
    assert.deepEqual(legacy.items.map((i: { data: unknown }) => i.data), [{ v: '1' }]);
    // Exact paging keeps the revision across pages.
    const paged = ok(await srv.request('GET', `${CM}?resourceVersion=${await listRevision(srv)}&resourceVersionMatch=Exact&limit=1`));
    assert.deepEqual(names(paged), ['a']);
    const rest = ok(await srv.request('GET', `${CM}?limit=1&continue=${q(paged.metadata.continue)}`));
    assert.deepEqual(names(rest), ['b']);
    // A compacted revision: 410.
    await srv.store.compact(await srv.store.currentRevision());
    assertStatus(await srv.request('GET', `${CM}?resourceVersion=${at}&resourceVersionMatch=Exact`), 410, 'Expired', 'The resourceVersion for the provided list is too old.');
  });

  it('validates resourceVersionMatch like Kubernetes (422 Invalid on ListOptions)', async () => {
    await using srv = await startTestServer();
    assertStatus(
      await srv.request('GET', `${CM}?resourceVersionMatch=Exact`),
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    assertStatus(
      await srv.request('GET', `${CM}?resourceVersion=0&resourceVersionMatch=Exact`),
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
    );
    assertStatus(
      await srv.request('GET', `${CM}?resourceVersion=1&resourceVersionMatch=Newest`),
      422,
      'Invalid',
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""',
    );
    // NotOlderThan with "0": any.
    ok(await srv.request('GET', `${CM}?resourceVersion=0&resourceVersionMatch=NotOlderThan`));
  });

  it('lists every namespace at /api/v1/configmaps', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'x', {}, undefined, 'default');
    await createConfigMap(srv, 'y', {}, undefined, 'kube-system');
    await createConfigMap(srv, 'z', {}, undefined, 'kube-public');
    for (const rv of ['', '?resourceVersion=0']) {
      const list = ok(await srv.request('GET', `/api/v1/configmaps${rv}`));
      assert.equal(list.kind, 'ConfigMapList');
      assert.deepEqual(
        list.items.map((i: { metadata: { namespace: string; name: string } }) => `${i.metadata.namespace}/${i.metadata.name}`),
        ['default/x', 'kube-public/z', 'kube-system/y'],
      );
    }
    // A namespaced list sees only its namespace.
    assert.deepEqual(names(ok(await srv.request('GET', '/api/v1/namespaces/kube-system/configmaps'))), ['y']);
  });

  it('lists cluster-scoped kinds at their cluster path', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', '/api/v1/nodes', { metadata: { name: 'n2', labels: { role: 'worker' } } }), 201);
    ok(await srv.request('POST', '/api/v1/nodes', { metadata: { name: 'n1' }, spec: { unschedulable: true } }), 201);
    const nodes = ok(await srv.request('GET', '/api/v1/nodes'));
    assert.equal(nodes.kind, 'NodeList');
    assert.deepEqual(names(nodes), ['n1', 'n2']);
    assert.deepEqual(names(ok(await srv.request('GET', '/api/v1/nodes?labelSelector=role%3Dworker'))), ['n2']);
    assert.deepEqual(names(ok(await srv.request('GET', `/api/v1/nodes?fieldSelector=${q('spec.unschedulable=true')}`))), ['n1']);
    assert.deepEqual(names(ok(await srv.request('GET', '/api/v1/namespaces'))), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    assertStatus(await srv.request('GET', '/api/v1/namespaces/default/nodes'), 404, 'NotFound');
  });
});
