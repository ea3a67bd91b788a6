/**
 * WATCH over HTTP: the initial state, resuming from a resourceVersion without replay, selector
 * transitions, bookmarks, watch-list, timeouts, expired resourceVersions, resuming from beyond the
 * watch cache's window, and the shape of every line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openWatch, startTestServer, type TestServer } from './harness.js';
import { CM, configMap, createConfigMap, listRevision, ok } from './support.js';

type Watch = ReturnType<typeof openWatch>;
interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

function watch(srv: TestServer, path: string): Watch {
  return openWatch(srv.url, path);
}

/** Reads the next `n` events, checking the shape every line must have. */
async function take(w: Watch, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  for (let i = 0; i < n; i++) {
    const event = (await w.next()) as WatchEvent;
    assert.equal(typeof event.object.apiVersion, 'string', `apiVersion on ${JSON.stringify(event)}`);
    assert.equal(typeof event.object.kind, 'string', `kind on ${JSON.stringify(event)}`);
    if (event.type !== 'ERROR') assert.match(event.object.metadata.resourceVersion, /^\d+$/);
    out.push(event);
  }
  return out;
}

const summary = (events: WatchEvent[]) => events.map((e) => `${e.type} ${e.object.metadata.name ?? ''}`.trim());

/** Writes a sentinel and reads up to it: proves nothing else was queued before it. */
async function expectOnlySentinel(srv: TestServer, w: Watch, name = `sentinel-${Math.random().toString(36).slice(2, 7)}`): Promise<void> {
  await createConfigMap(srv, name);
  const [event] = await take(w, 1);
  assert.deepEqual(summary([event!]), [`ADDED ${name}`], 'no other event came before the sentinel');
}

describe('watch', () => {
  for (const flag of ['true', '1', 'True']) {
    it(`watch=${flag} without a resourceVersion starts with ADDED for the current state, then follows changes`, async () => {
      await using srv = await startTestServer();
      await createConfigMap(srv, 'one');
      await createConfigMap(srv, 'two');
      await createConfigMap(srv, 'other-ns', {}, undefined, 'kube-system');
      const w = watch(srv, `${CM}?watch=${flag}`);
      try {
        const initial = await take(w, 2);
        assert.equal(w.status, 200);
        assert.equal(w.contentType, 'application/json');
        assert.deepEqual(summary(initial).sort(), ['ADDED one', 'ADDED two']);
        assert.equal(initial[0]!.object.apiVersion, 'v1');
        assert.equal(initial[0]!.object.kind, 'ConfigMap');
        await createConfigMap(srv, 'three');
        ok(await srv.request('PUT', `${CM}/one`, configMap('one', { k: 'v' })));
        ok(await srv.request('DELETE', `${CM}/two`));
        assert.deepEqual(summary(await take(w, 3)), ['ADDED three', 'MODIFIED one', 'DELETED two']);
      } finally {
        w.close();
      }
    });
  }

  it('resourceVersion=0 starts with ADDED for the current state', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'one');
    const w = watch(srv, `${CM}?watch=1&resourceVersion=0`);
    try {
      assert.deepEqual(summary(await take(w, 1)), ['ADDED one']);
      await expectOnlySentinel(srv, w);
    } finally {
      w.close();
    }
  });

  it('resourceVersion=N sends only the changes after N, in order, none replayed', async () => {
    await using srv = await startTestServer();
    const a = await createConfigMap(srv, 'a');
    const b = await createConfigMap(srv, 'b');
    ok(await srv.request('PUT', `${CM}/a`, configMap('a', { v: '2' })));
    await createConfigMap(srv, 'c');
    const w = watch(srv, `${CM}?watch=true&resourceVersion=${a.metadata.resourceVersion}`);
    try {
      const events = await take(w, 3);
      assert.deepEqual(summary(events), ['ADDED b', 'MODIFIED a', 'ADDED c']);
      assert.equal(events[0]!.object.metadata.resourceVersion, b.metadata.resourceVersion);
      const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual([...rvs].sort((x, y) => x - y), rvs, 'in resourceVersion order');
      assert.deepEqual(events[1]!.object.data, { v: '2' });
      await expectOnlySentinel(srv, w);
    } finally {
      w.close();
    }
    // From the current resourceVersion: nothing at first.
    const w2 = watch(srv, `${CM}?watch=true&resourceVersion=${await listRevision(srv)}`);
    try {
      await expectOnlySentinel(srv, w2);
    } finally {
      w2.close();
    }
  });

  it('a label-filtered watch turns a change that stops matching into DELETED and one that starts matching into ADDED', async () => {
    await using srv = await startTestServer();
    const w = watch(srv, `${CM}?watch=true&labelSelector=app%3Dweb`);
    try {
      await createConfigMap(srv, 'ignored', {}, { app: 'db' });
      await createConfigMap(srv, 'x', {}, { app: 'web' });
      assert.deepEqual(summary(await take(w, 1)), ['ADDED x'], 'an object that never matched is not sent');
      ok(await srv.request('PUT', `${CM}/x`, configMap('x', { k: '1' }, { app: 'web' })));
      ok(await srv.request('PUT', `${CM}/x`, configMap('x', { k: '1' }, { app: 'db' })));
      ok(await srv.request('PUT', `${CM}/ignored`, configMap('ignored', { k: '1' }, { app: 'web' })));
      ok(await srv.request('DELETE', `${CM}/x`));
      const events = await take(w, 3);
      assert.deepEqual(summary(events), ['MODIFIED x', 'DELETED x', 'ADDED ignored']);
      assert.equal(events[1]!.object.metadata.labels.app, 'db');
      // The delete of x (no longer matching) is not sent.
      await createConfigMap(srv, 'last', {}, { app: 'web' });
      assert.deepEqual(summary(await take(w, 1)), ['ADDED last']);
    } finally {
      w.close();
    }
  });

  it('a field-filtered watch and a watch on one object by name', async () => {
    await using srv = await startTestServer();
    const byField = watch(srv, `${CM}?watch=true&fieldSelector=metadata.name%3Dme`);
    const byPath = watch(srv, `${CM}/me?watch=true`);
    try {
      await createConfigMap(srv, 'not-me');
      await createConfigMap(srv, 'me');
      assert.deepEqual(summary(await take(byField, 1)), ['ADDED me']);
      assert.deepEqual(summary(await take(byPath, 1)), ['ADDED me']);
    } finally {
      byField.close();
      byPath.close();
    }
  });

  it('watches every namespace at /api/v1/configmaps and cluster-scoped kinds', async () => {
    await using srv = await startTestServer();
    const all = watch(srv, '/api/v1/configmaps?watch=true&resourceVersion=' + (await listRevision(srv)));
    const nodes = watch(srv, '/api/v1/nodes?watch=true');
    try {
      await createConfigMap(srv, 'a', {}, undefined, 'kube-system');
      await createConfigMap(srv, 'b');
      assert.deepEqual(summary(await take(all, 2)), ['ADDED a', 'ADDED b']);
      ok(await srv.request('POST', '/api/v1/nodes', { metadata: { name: 'n1' } }), 201);
      const [event] = await take(nodes, 1);
      assert.deepEqual([event!.type, event!.object.kind, event!.object.metadata.name], ['ADDED', 'Node', 'n1']);
    } finally {
      all.close();
      nodes.close();
    }
  });

  it('DELETED carries the last state with the deletion’s resourceVersion', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'gone', { v: '1' });
    const last = ok(await srv.request('PUT', `${CM}/gone`, configMap('gone', { v: 'last' })));
    const w = watch(srv, `${CM}?watch=true&resourceVersion=${last.metadata.resourceVersion}`);
    try {
      ok(await srv.request('DELETE', `${CM}/gone`));
      const deletionRv = String(await srv.store.currentRevision());
      const [event] = await take(w, 1);
      assert.equal(event!.type, 'DELETED');
      assert.deepEqual(event!.object.data, { v: 'last' });
      assert.equal(event!.object.metadata.uid, last.metadata.uid);
      assert.equal(event!.object.metadata.resourceVersion, deletionRv);
      assert.ok(Number(deletionRv) > Number(last.metadata.resourceVersion));
    } finally {
      w.close();
    }
  });

  it('sends BOOKMARK events carrying kind and resourceVersion when asked, and only then', async () => {
    await using srv = await startTestServer({ watchCache: { bookmarkIntervalMs: 50 } });
    const start = await createConfigMap(srv, 'seed');
    const withBookmarks = watch(srv, `${CM}?watch=true&allowWatchBookmarks=true&resourceVersion=${start.metadata.resourceVersion}`);
    const without = watch(srv, `${CM}?watch=true&resourceVersion=${start.metadata.resourceVersion}`);
    try {
      const [bookmark] = await take(withBookmarks, 1);
      assert.equal(bookmark!.type, 'BOOKMARK');
      assert.equal(bookmark!.object.kind, 'ConfigMap');
      assert.equal(bookmark!.object.apiVersion, 'v1');
      assert.ok(Number(bookmark!.object.metadata.resourceVersion) >= Number(start.metadata.resourceVersion));
      // The other watcher was due the same bookmark but did not ask for one.
      await expectOnlySentinel(srv, without, 'after-bookmark');
      // Bookmarks keep coming and never go backwards.
      let previous = Number(bookmark!.object.metadata.resourceVersion);
      for (let seen = 0; seen < 2; ) {
        const [event] = await take(withBookmarks, 1);
        const rv = Number(event!.object.metadata.resourceVersion);
        assert.ok(rv >= previous, 'resourceVersions never go backwards');
        previous = rv;
        if (event!.type === 'BOOKMARK') seen++;
      }
      assert.ok(previous >= Number(ok(await srv.request('GET', `${CM}/after-bookmark`)).metadata.resourceVersion));
    } finally {
      withBookmarks.close();
      without.close();
    }
  });

  it('sendInitialEvents=true&resourceVersionMatch=NotOlderThan ends the initial ADDEDs with an initial-events-end BOOKMARK', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'a');
    const b = await createConfigMap(srv, 'b');
    const w = watch(srv, `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    try {
      const events = await take(w, 3);
      assert.deepEqual(summary(events.slice(0, 2)).sort(), ['ADDED a', 'ADDED b']);
      const end = events[2]!;
      assert.equal(end.type, 'BOOKMARK');
      assert.equal(end.object.kind, 'ConfigMap');
      assert.deepEqual(end.object.metadata.annotations, { 'k8s.io/initial-events-end': 'true' });
      assert.ok(Number(end.object.metadata.resourceVersion) >= Number(b.metadata.resourceVersion));
      await createConfigMap(srv, 'c');
      assert.deepEqual(summary(await take(w, 1)), ['ADDED c']);
    } finally {
      w.close();
    }
    // Kubernetes' rules for the watch-list parameters.
    const bad = await srv.request('GET', `${CM}?watch=true&sendInitialEvents=true`);
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /sendInitialEvents requires setting resourceVersionMatch to NotOlderThan/);
    const bad2 = await srv.request('GET', `${CM}?watch=true&resourceVersionMatch=NotOlderThan`);
    assert.equal(bad2.status, 422);
    assert.match(bad2.body.message, /resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided/);
  });

  it('sendInitialEvents=false starts at the most recent resourceVersion without the current state', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'existing');
    for (const rv of ['', '&resourceVersion=0']) {
      const w = watch(srv, `${CM}?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan${rv}`);
      try {
        await expectOnlySentinel(srv, w);
      } finally {
        w.close();
      }
    }
  });

  it('timeoutSeconds closes the stream', async () => {
    await using srv = await startTestServer();
    const w = watch(srv, `${CM}?watch=true&timeoutSeconds=1&resourceVersion=${await listRevision(srv)}`);
    try {
      await w.waitClosed(4000);
      assert.equal(w.status, 200);
      assert.deepEqual(w.events, []);
    } finally {
      w.close();
    }
  });

  it('a resourceVersion below the compacted history: HTTP 200, one ERROR 410 Expired, then the stream closes', async () => {
    await using srv = await startTestServer({ watchCache: { windowSize: 2 } });
    const first = await createConfigMap(srv, 'c0');
    for (let i = 1; i < 6; i++) await createConfigMap(srv, `c${i}`);
    const compactAt = await srv.store.currentRevision();
    await srv.store.compact(compactAt);
    // A list not older than the last write waits until the watch cache has applied it, so its
    // window has moved past the first object.
    ok(await srv.request('GET', `${CM}?resourceVersion=${compactAt}`));
    const w = watch(srv, `${CM}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    try {
      await w.waitClosed();
      assert.equal(w.status, 200);
      assert.equal(w.contentType, 'application/json');
      assert.equal(w.events.length, 1);
      const [event] = await take(w, 1);
      assert.equal(event!.type, 'ERROR');
      assert.deepEqual(event!.object, {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `too old resource version: ${first.metadata.resourceVersion} (${compactAt})`,
        reason: 'Expired',
        code: 410,
      });
    } finally {
      w.close();
    }
  });

  it('resumes from a resourceVersion older than the watch cache window (not compacted) with nothing missed', async () => {
    await using srv = await startTestServer({ watchCache: { windowSize: 2 } });
    const first = await createConfigMap(srv, 'c0');
    for (let i = 1; i < 8; i++) await createConfigMap(srv, `c${i}`);
    ok(await srv.request('DELETE', `${CM}/c3`));
    ok(await srv.request('GET', `${CM}?resourceVersion=${await srv.store.currentRevision()}`));
    const w = watch(srv, `${CM}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    try {
      const events = await take(w, 8);
      assert.deepEqual(summary(events), ['ADDED c1', 'ADDED c2', 'ADDED c3', 'ADDED c4', 'ADDED c5', 'ADDED c6', 'ADDED c7', 'DELETED c3']);
      const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual([...rvs].sort((x, y) => x - y), rvs);
      // Live changes keep coming after the history, once each.
      await expectOnlySentinel(srv, w);
      await expectOnlySentinel(srv, w);
    } finally {
      w.close();
    }
  });

  it('ends open watches when the server stops', async () => {
    const srv = await startTestServer();
    const w = watch(srv, `${CM}?watch=true`);
    try {
      await createConfigMap(srv, 'x');
      await take(w, 1);
      await srv[Symbol.asyncDispose]();
      await w.waitClosed();
    } finally {
      w.close();
    }
  });
});
