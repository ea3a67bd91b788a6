/**
 * The ListWatch conformance suite: the one set of tests every ListWatch must pass — the client's
 * ResourceClient over HTTP, the tests' fetch-based one, and the scripted fake the informer tests
 * use — so that a fake cannot drift from what an API server does. After the store's suite: a test
 * file calls `listWatchConformance` with a harness; the suite registers node:test blocks proving
 * the contract written on ListWatch (types.ts) on ConfigMaps.
 *
 * What a ListWatch cannot do is said by its capabilities, never by skipping a failing test: the
 * scripted fake serves no selectors, no watch from resourceVersion "0" and no initial events (its
 * tests script those), so it gets only the tests every ListWatch must pass.
 *
 * Guarantees: every test opens its own harness state and disposes it, also when it fails. Nothing
 * waits on a fixed sleep: every wait has a deadline (10 s, `within` of @setpoint/api) and fails naming what it waited for.
 * Assumes: the tests of one file run one at a time (node:test's default inside a file).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, isApiError, isGone, within, type ConfigMap } from '@setpoint/api';
import type { ListWatch, WatchEvent } from '../types.js';

/** What a ListWatch serves beyond what every ListWatch must. */
export interface ListWatchCapabilities {
  /**
   * A server is behind it: label selectors filter, a watch from resourceVersion "0" starts with
   * the current state as ADDED, sendInitialEvents ends the current state with an
   * initial-events-end BOOKMARK, and a malformed request is refused with a 400.
   */
  readonly server: boolean;
}

/** How a ListWatch's test file gives the suite what it tests. */
export interface ListWatchHarness {
  /** Names the suite, e.g. "ResourceClient". */
  readonly name: string;
  readonly capabilities: ListWatchCapabilities;
  /** Opens a ListWatch of ConfigMaps over an empty namespace. Every test opens its own. */
  open(): Promise<OpenedListWatch>;
}

/** One ListWatch opened for one test, and the writes that change what it lists and watches. */
export interface OpenedListWatch {
  readonly lw: ListWatch<ConfigMap>;
  /** The namespace the suite lists and watches in (and the writes write to). */
  readonly namespace: string;
  /** Creates ConfigMap `name`, as another client of the server would; returns it as stored. */
  create(name: string, labels?: Record<string, string>): Promise<ConfigMap>;
  /** Replaces the data of ConfigMap `name`; returns it as stored. */
  update(name: string, data: Record<string, string>): Promise<ConfigMap>;
  remove(name: string): Promise<void>;
  /**
   * A resourceVersion a watch can no longer start from (history compacted past it): a watch
   * from it must throw ApiError 410.
   */
  expiredResourceVersion(): Promise<string>;
  /** Cleans up. Called once after every test, also after failures. */
  dispose(): Promise<void>;
}

/** Reads the next `n` events of `iterator`, under the deadline. */
async function take(iterator: AsyncIterator<WatchEvent<ConfigMap>>, n: number, what: string): Promise<WatchEvent<ConfigMap>[]> {
  const events: WatchEvent<ConfigMap>[] = [];
  while (events.length < n) {
    const next = await within(iterator.next(), `${what} (${events.length} of ${n} so far)`);
    if (next.done === true) assert.fail(`the watch ended after ${events.length} of ${n} events: ${what}`);
    events.push(next.value);
  }
  return events;
}

const names = (items: readonly ConfigMap[]) => items.map((i) => i.metadata.name ?? '').sort();
const describeEvent = (e: WatchEvent<ConfigMap>) => `${e.type} ${e.object.metadata.name ?? ''}`;

/** Registers the conformance tests for `harness` under describe("ListWatch conformance: <name>"). */
export function listWatchConformance(harness: ListWatchHarness): void {
  const test = (name: string, body: (opened: OpenedListWatch) => Promise<void>) =>
    it(name, async () => {
      const opened = await harness.open();
      try {
        await body(opened);
      } finally {
        await opened.dispose();
      }
    });

  describe(`ListWatch conformance: ${harness.name}`, () => {
    test("list returns every object and the collection's resourceVersion", async ({ lw, namespace, create }) => {
      const empty = await lw.list({ namespace });
      assert.deepEqual(empty.items, []);
      assert.equal(typeof empty.metadata.resourceVersion, 'string');
      await create('a');
      const b = await create('b');
      const list = await lw.list({ namespace });
      assert.deepEqual(names(list.items), ['a', 'b']);
      assert.ok(list.items.every((i) => i.metadata.resourceVersion !== undefined && i.metadata.namespace === namespace));
      assert.equal(list.metadata.resourceVersion, b.metadata.resourceVersion, "the list's resourceVersion is that of the last write");
      assert.equal(list.metadata.continue ?? '', '', 'one page holds everything without a limit');
    });

    test('list pages by limit, following continue: every object once, the last page without continue', async ({ lw, namespace, create }) => {
      for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) await create(n);
      const first = await lw.list({ namespace, limit: 2 });
      const all = [...first.items];
      let page = first;
      let pages = 1;
      while ((page.metadata.continue ?? '') !== '') {
        assert.equal(page.items.length, 2, 'a page that is not the last is full');
        assert.ok(pages < 5, 'paging ends');
        page = await lw.list({ namespace, limit: 2, continue: page.metadata.continue ?? '' });
        assert.equal(page.metadata.resourceVersion, first.metadata.resourceVersion, "every page is of the first page's snapshot");
        all.push(...page.items);
        pages++;
      }
      assert.equal(pages, 3);
      assert.deepEqual(names(all), ['p1', 'p2', 'p3', 'p4', 'p5']);
    });

    // Moved from client/watch.test.ts (ResourceClient.watch against a control plane).
    test('a watch from a resourceVersion delivers ADDED, MODIFIED and DELETED in order after it, and ends without an error on abort', async ({ lw, namespace, create, update, remove }) => {
      const { metadata } = await lw.list({ namespace });
      const ac = new AbortController();
      const iterator = lw.watch({ namespace, resourceVersion: metadata.resourceVersion ?? '', signal: ac.signal })[Symbol.asyncIterator]();
      const created = await create('w1');
      const updated = await update('w1', { v: '2' });
      await remove('w1');
      const events = await take(iterator, 3, 'three events');
      assert.deepEqual(events.map(describeEvent), ['ADDED w1', 'MODIFIED w1', 'DELETED w1']);
      assert.deepEqual(events[1]?.object.data, { v: '2' });
      assert.ok(events.every((e) => e.object.kind === 'ConfigMap' && e.object.metadata.resourceVersion));
      assert.deepEqual(
        events.slice(0, 2).map((e) => e.object.metadata.resourceVersion),
        [created.metadata.resourceVersion, updated.metadata.resourceVersion],
        'each event carries the resourceVersion of its write',
      );
      ac.abort();
      assert.equal((await within(iterator.next(), 'the watch to end on abort')).done, true);
    });

    test('a watch whose signal is already aborted ends at once, without an error', async ({ lw, namespace }) => {
      const { metadata } = await lw.list({ namespace });
      const events: WatchEvent<ConfigMap>[] = [];
      await within(
        (async () => {
          for await (const e of lw.watch({ namespace, resourceVersion: metadata.resourceVersion ?? '', signal: AbortSignal.abort() })) events.push(e);
        })(),
        'an aborted watch to end',
      );
      assert.deepEqual(events, []);
    });

    test('return() ends a watch: the next read is done', async ({ lw, namespace, create }) => {
      const { metadata } = await lw.list({ namespace });
      const iterator = lw.watch({ namespace, resourceVersion: metadata.resourceVersion ?? '' })[Symbol.asyncIterator]();
      await create('r1');
      assert.deepEqual((await take(iterator, 1, 'the first event')).map(describeEvent), ['ADDED r1']);
      await within(Promise.resolve(iterator.return?.()), 'return() to resolve');
      assert.equal((await within(iterator.next(), 'a read after return()')).done, true);
    });

    // Moved from client/watch.test.ts.
    test('a watch from a compacted resourceVersion throws ApiError 410 Expired, which isGone recognises', async (opened) => {
      const old = await opened.expiredResourceVersion();
      await assert.rejects(
        within(
          (async () => {
            for await (const _ of opened.lw.watch({ namespace: opened.namespace, resourceVersion: old })) {
              // nothing is expected before the error
            }
          })(),
          'the watch to fail',
        ),
        (err: unknown) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal(err.code, 410);
          assert.match(err.reason, /^(Expired|Gone)$/);
          assert.match(err.message, /too old resource version/);
          assert.ok(isGone(err));
          return true;
        },
      );
    });

    if (harness.capabilities.server) {
      // Moved from client/watch.test.ts.
      test('a watch from resourceVersion 0 starts with the current state as ADDED, and filters by label', async ({ lw, namespace, create }) => {
        await create('existing', { team: 'a' });
        await create('other', { team: 'b' });
        const iterator = lw.watch({ namespace, resourceVersion: '0', labelSelector: 'team=a' })[Symbol.asyncIterator]();
        const [first] = await take(iterator, 1, 'the current state');
        assert.equal(first?.type, 'ADDED');
        assert.equal(first?.object.metadata.name, 'existing');
        await iterator.return?.();
        assert.equal((await iterator.next()).done, true);
      });

      test('a list by label selector holds only the matching objects', async ({ lw, namespace, create }) => {
        await create('x', { team: 'a' });
        await create('y', { team: 'b' });
        assert.deepEqual(names((await lw.list({ namespace, labelSelector: 'team=b' })).items), ['y']);
      });

      test('sendInitialEvents: the current state as ADDED, then a BOOKMARK annotated k8s.io/initial-events-end, then the changes', async ({ lw, namespace, create }) => {
        await create('i1');
        await create('i2');
        const ac = new AbortController();
        const iterator = lw.watch({ namespace, sendInitialEvents: true, allowWatchBookmarks: true, resourceVersionMatch: 'NotOlderThan', signal: ac.signal })[Symbol.asyncIterator]();
        const initial = await take(iterator, 3, 'the initial events and their bookmark');
        assert.deepEqual(initial.slice(0, 2).map(describeEvent).sort(), ['ADDED i1', 'ADDED i2']);
        assert.equal(initial[2]?.type, 'BOOKMARK');
        assert.equal(initial[2]?.object.metadata.annotations?.['k8s.io/initial-events-end'], 'true');
        assert.ok(initial[2]?.object.metadata.resourceVersion);
        await create('i3');
        const [later] = await take(iterator, 1, 'the change after the bookmark');
        assert.equal(later === undefined ? '' : describeEvent(later), 'ADDED i3');
        ac.abort();
      });

      test('a malformed request is refused: the list throws ApiError 400, not an empty list', async ({ lw, namespace }) => {
        await assert.rejects(lw.list({ namespace, labelSelector: 'team in (a' }), (err: unknown) => {
          assert.ok(isApiError(err, 'BadRequest'), String(err));
          return true;
        });
      });
    }
  });
}
