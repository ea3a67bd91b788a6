/** list and count: prefixes, key order, past revisions, paging and consistent snapshots. */
import assert from 'node:assert/strict';
import { compareKeys, expectStoreError, item, pad, plainCount, plainKv, range, type Register, shuffled, writeMixedHistory } from './fixture.js';

export function listTests(test: Register): void {
  test('list returns exactly the keys that start with the prefix, in key order, at the current revision', async (fx) => {
    const h = await fx.history();
    const keys = [
      '/l', '/l/a', '/l/a/b', '/l/a/b/c', '/l/ab', '/l/A', '/l/a_b', '/l/a%b', '/l/a*', '/l/a[1]', '/l/a?', '/l/b',
      '/l/😀', '/l/\uFFFFx', '/l/\u{10FFFF}', '/l/\u{10FFFF}z', '/m/a', '/la',
    ];
    for (const key of shuffled(keys)) await h.create(key, `value of ${key}`);
    await h.update('/l/a/b', 'changed');
    await h.delete('/l/b');
    const prefixes = ['/', '/l', '/l/', '/l/a', '/l/a/', '/l/A', '/l/a_', '/l/a%', '/l/a*', '/l/a[', '/l/a?', '/l/b', '/l/😀', '/l/\uFFFF', '/l/\u{10FFFF}', '/nothing'];
    for (const prefix of prefixes) {
      const listed = await fx.store.list(prefix);
      assert.deepEqual(listed.items.map(plainKv), h.stateAt(h.lastRevision, prefix), `list(${JSON.stringify(prefix)})`);
      assert.equal(listed.revision, h.lastRevision, `list(${JSON.stringify(prefix)}).revision is the current revision`);
      assert.equal(listed.more, false, `list(${JSON.stringify(prefix)}).more without a limit`);
    }
  });

  test('list at a past revision returns the state at that revision', async (fx) => {
    const h = await fx.history();
    await writeMixedHistory(h, '/h/');
    // No write has revision 0, and the contract does not say what `revision: 0` reads (etcd: the current one).
    for (let revision = Math.max(h.baseRevision, 1); revision <= h.lastRevision; revision++) {
      const listed = await fx.store.list('/h/', { revision });
      assert.deepEqual(listed.items.map(plainKv), h.stateAt(revision, '/h/'), `list at revision ${revision}`);
      assert.equal(listed.revision, revision, `list at revision ${revision} says its revision`);
    }
  });

  test('list at revision 0 reads the current revision (as without a revision)', async (fx) => {
    const h = await fx.history();
    await writeMixedHistory(h, '/h/');
    const listed = await fx.store.list('/h/', { revision: 0 });
    assert.equal(listed.revision, h.lastRevision, 'list at revision 0 says the current revision');
    assert.deepEqual(listed.items.map(plainKv), h.stateAt(h.lastRevision, '/h/'), 'list at revision 0 holds the current state');
    const page = await fx.store.list('/h/', { revision: 0, limit: 1 });
    assert.deepEqual({ keys: page.items.map((kv) => kv.key), more: page.more }, { keys: [item(h.stateAt(h.lastRevision, '/h/'), 0).key], more: true }, 'a page at revision 0');
  });

  test('list above the current revision throws FutureRevision', async ({ store }) => {
    await store.create('/a', '1');
    const current = await store.currentRevision();
    for (const revision of [current + 1, current + 1000]) {
      const err = await expectStoreError(() => store.list('/', { revision }), 'FutureRevision', `list at revision ${revision}`);
      if (err.currentRevision !== undefined) assert.equal(err.currentRevision, current, 'FutureRevision.currentRevision');
    }
    await expectStoreError(() => store.list('/', { revision: current + 1, limit: 1 }), 'FutureRevision', 'a page above the current revision');
  });

  test('a limit that is not an integer throws InvalidValue; 0 or less means no limit', async ({ store }) => {
    await store.create('/a', '1');
    await store.create('/b', '1');
    for (const limit of [1.5, Number.NaN, Infinity]) await expectStoreError(() => store.list('/', { limit }), 'InvalidValue', `list with limit ${limit}`);
    for (const limit of [0, -1]) assert.deepEqual((await store.list('/', { limit })).items.map((kv) => kv.key), ['/a', '/b'], `limit ${limit}`);
  });

  test('limit and after page through the keys; more tells whether keys under the prefix remain', async ({ store }) => {
    const keys = range(0, 9).map((i) => `/q/${i}`);
    for (const key of keys) await store.create(key, key);
    await store.create('/r/after-the-prefix', 'x');
    for (const limit of [1, 3, 5, 9, 10, 11]) {
      const pages: string[][] = [];
      let after: string | undefined;
      let revision: number | undefined;
      for (;;) {
        const page = await store.list('/q/', { limit, ...(after === undefined ? {} : { after }), ...(revision === undefined ? {} : { revision }) });
        assert.ok(page.items.length <= limit, `limit ${limit}: a page holds at most ${limit}`);
        revision ??= page.revision;
        assert.equal(page.revision, revision, `limit ${limit}: every page is read at the first page's revision`);
        pages.push(page.items.map((kv) => kv.key));
        const last = page.items.at(-1);
        const remaining = keys.filter((key) => last !== undefined && compareKeys(key, last.key) > 0).length;
        assert.equal(page.more, last !== undefined && remaining > 0, `limit ${limit}, page ${pages.length}: more`);
        if (!page.more) break;
        after = last?.key;
        assert.ok(pages.length <= keys.length, 'paging ends');
      }
      assert.deepEqual(pages.flat(), keys, `limit ${limit}: the pages hold every key once, in order`);
      assert.equal(pages.length, Math.ceil(keys.length / limit), `limit ${limit}: number of pages`);
    }
    assert.deepEqual((await store.list('/q/', { limit: 0 })).items.map((kv) => kv.key), keys, 'limit 0 means no limit');
    assert.deepEqual((await store.list('/q/', { after: '/q/35' })).items.map((kv) => kv.key), keys.slice(4), 'after a key that does not exist');
    await store.create('/p/before-the-prefix', 'x');
    assert.deepEqual((await store.list('/q/', { after: '/a' })).items.map((kv) => kv.key), keys, 'after a key below the prefix (and below other keys): the whole prefix');
    const beyond = await store.list('/q/', { after: '/q/9', limit: 2 });
    assert.deepEqual({ items: beyond.items, more: beyond.more }, { items: [], more: false }, 'after the last key');
  });

  test('pages read at one revision form a consistent snapshot while writes go on: each key exactly once, with the snapshot\'s values', async (fx) => {
    const { store } = fx;
    const h = await fx.history();
    for (let i = 0; i < 30; i++) await h.create(`/p/${pad(i)}`, 'v0');
    const background = ['/p/05', '/p/17', '/p/25'];
    let paging = true;
    const backgroundWriter = (async () => {
      for (let i = 0; paging && i < 300; i++) await h.update(item(background, i % background.length), `bg${i}`);
    })();
    try {
      let page = await store.list('/p/', { limit: 7 });
      const snapshot = page.revision;
      const seen = [...page.items];
      for (let round = 0; page.more; round++) {
        assert.ok(round < 30, 'paging ends');
        const cursor = item(page.items, page.items.length - 1).key;
        // Writes ahead of the cursor (which later pages must not see) and behind it.
        const ahead = h.stateAt(Infinity, '/p/').map((kv) => kv.key).filter((key) => compareKeys(key, cursor) > 0 && !background.includes(key));
        if (ahead[0] !== undefined) await h.delete(ahead[0]);
        if (ahead[1] !== undefined) await h.update(ahead[1], `changed in round ${round}`);
        await h.create(`${cursor}-new`, 'created ahead of the cursor');
        const behind = seen.map((kv) => kv.key).find((key) => !background.includes(key) && h.current(key) !== undefined);
        if (behind !== undefined) await h.update(behind, `changed behind the cursor in round ${round}`);
        page = await store.list('/p/', { limit: 7, after: cursor, revision: snapshot });
        assert.equal(page.revision, snapshot, 'a page read at the snapshot revision says so');
        seen.push(...page.items);
      }
      paging = false;
      await backgroundWriter;
      const keys = seen.map((kv) => kv.key);
      assert.equal(new Set(keys).size, keys.length, 'no key is listed twice');
      assert.deepEqual(seen.map(plainKv), h.stateAt(snapshot, '/p/'), 'the pages together are the state at the snapshot revision');
      assert.notDeepEqual((await store.list('/p/')).items.map(plainKv), h.stateAt(snapshot, '/p/'), 'the writes did change the current state');
    } finally {
      paging = false;
      await backgroundWriter.catch((err: unknown) => {
        // Only reached when the test already failed: report the writer's error beside that failure.
        console.error('the background writer failed too:', err);
      });
    }
  });

  test('count returns how many live keys start with the prefix, and the current revision', async ({ store }) => {
    for (const key of ['/c/a', '/c/b', '/c/c', '/c/d/e', '/cx', '/d/a']) await store.create(key, '1');
    await store.delete('/c/b');
    const current = await store.currentRevision();
    assert.deepEqual(plainCount(await store.count('/c/')), { count: 3, revision: current });
    assert.deepEqual(plainCount(await store.count('/c')), { count: 4, revision: current });
    assert.deepEqual(plainCount(await store.count('/')), { count: 5, revision: current });
    assert.deepEqual(plainCount(await store.count('/zzz')), { count: 0, revision: current });
    await store.create('/c/b', 'again');
    assert.deepEqual(plainCount(await store.count('/c/')), { count: 4, revision: await store.currentRevision() });
  });
}
