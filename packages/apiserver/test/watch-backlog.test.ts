/**
 * Watch memory over HTTP: a watch whose client stops reading is closed once its backlog passes the
 * byte bound (the events waiting for it plus what its connection has not flushed) and leaves the
 * watch cache; a client that reads under the same load is not closed; the closed one resumes from
 * the last resourceVersion it read; a client that never reads and then disconnects leaves nothing
 * behind. Bounds are small (hundreds of KiB) so the tests run in seconds.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { startTestServer, type TestServer } from './harness.js';
import { CM, listRevision, ok, waitFor } from './support.js';

interface Line {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

/** A watch over HTTP whose reading can be stopped and started again. */
interface TestWatch {
  readonly lines: Line[];
  /** Whether the server ended the response (or the connection closed). */
  readonly ended: boolean;
  pause(): void;
  resume(): void;
  destroy(): void;
}

function openTestWatch(srv: TestServer, path: string, options: { paused?: boolean } = {}): Promise<TestWatch> {
  return new Promise((resolve, reject) => {
    const lines: Line[] = [];
    let ended = false;
    const req = http.get(new URL(path, srv.url), (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`watch answered ${res.statusCode}`));
        return;
      }
      if (options.paused === true) res.pause();
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          if (line !== '') lines.push(JSON.parse(line) as Line);
        }
      });
      const done = () => (ended = true);
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
      resolve({
        lines,
        get ended() {
          return ended;
        },
        pause: () => res.pause(),
        resume: () => res.resume(),
        destroy: () => req.destroy(),
      });
    });
    req.on('error', (err) => {
      ended = true;
      reject(err);
    });
  });
}

const rvOf = (line: Line) => Number(line.object.metadata.resourceVersion);
const blob = (kib: number) => 'x'.repeat(kib * 1024);

function configMapsCache(srv: TestServer) {
  return srv.server.storageFor('', 'v1', 'configmaps').cache;
}

describe('watch memory', () => {
  it('closes a watch whose client stops reading once its backlog passes the byte bound; a reading watch under the same load stays; the closed one resumes from its last resourceVersion', async () => {
    await using srv = await startTestServer({ watchCache: { maxQueuedBytes: 256 * 1024 } });
    const cache = configMapsCache(srv);
    ok(await srv.request('POST', CM, { metadata: { name: 'big' }, data: { v: '0' } }), 201);
    const from = await listRevision(srv);
    const path = `${CM}?watch=true&resourceVersion=${from}`;
    const stuck = await openTestWatch(srv, path, { paused: true });
    const reader = await openTestWatch(srv, path);
    try {
      await waitFor(() => cache.watcherCount === 2, 3000, 'both watches registered');
      // 64 KiB updates until the stuck watch is closed: the kernel's socket buffers take a few MB
      // first, then its backlog grows past 256 KiB. At most 32 MB.
      const written: number[] = [];
      for (let i = 1; cache.watcherCount === 2 && i <= 512; i++) {
        const res = ok(await srv.request('PUT', `${CM}/big`, { metadata: { name: 'big' }, data: { v: String(i), blob: blob(64) } }));
        written.push(Number(res.metadata.resourceVersion));
      }
      assert.equal(cache.watcherCount, 1, 'the watch that does not read left the watcher set');
      assert.equal(cache.terminatedWatchers, 1);
      // The reading watch is still open and gets the writes that follow too.
      for (let i = 0; i < 5; i++) {
        const res = ok(await srv.request('PUT', `${CM}/big`, { metadata: { name: 'big' }, data: { v: `more-${i}`, blob: blob(64) } }));
        written.push(Number(res.metadata.resourceVersion));
      }
      await waitFor(() => reader.lines.length === written.length, 10_000, 'the reader got every event');
      assert.deepEqual(reader.lines.map(rvOf), written);
      assert.equal(reader.ended, false);
      assert.equal(cache.watcherCount, 1);

      // The stuck client reads again: what the server had sent, in order, then the end of the
      // stream (no ERROR event, as kube-apiserver's cacher closes a watcher).
      stuck.resume();
      await waitFor(() => stuck.ended, 10_000, 'the closed watch ends');
      assert.ok(stuck.lines.length > 0 && stuck.lines.length < written.length, `it got a prefix (${stuck.lines.length} of ${written.length})`);
      assert.deepEqual(stuck.lines.map((l) => l.type), stuck.lines.map(() => 'MODIFIED'));
      const got = stuck.lines.map(rvOf);
      assert.deepEqual(got, written.slice(0, got.length));
      // It resumes from the last resourceVersion it read and misses nothing.
      const lastSeen = got.at(-1)!;
      const resumed = await openTestWatch(srv, `${CM}?watch=true&resourceVersion=${lastSeen}`);
      try {
        const rest = written.filter((rv) => rv > lastSeen);
        await waitFor(() => resumed.lines.length >= rest.length, 10_000, 'the resumed watch caught up');
        assert.deepEqual(resumed.lines.map(rvOf), rest);
      } finally {
        resumed.destroy();
      }
    } finally {
      stuck.destroy();
      reader.destroy();
    }
  });

  it('a client that never reads a large initial list and then disconnects leaves no watcher, no watch count and no queue behind', async () => {
    await using srv = await startTestServer({ watchCache: { maxQueuedBytes: 256 * 1024 } });
    const cache = configMapsCache(srv);
    // 6 MB of ConfigMaps: more than the sockets' kernel buffers take, so the server's writes back up.
    for (let i = 0; i < 200; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => srv.request('POST', CM, { metadata: { name: `cm-${i + j}` }, data: { blob: blob(30) } }).then((r) => ok(r, 201))));
    }
    const watches = await Promise.all(Array.from({ length: 5 }, () => openTestWatch(srv, `${CM}?watch=true&resourceVersion=0`, { paused: true })));
    await waitFor(() => cache.watcherCount === 5, 3000, 'the watches registered');
    // Changes while nobody reads: the backlogs grow until the cache closes the watchers.
    for (let i = 0; i < 20; i++) ok(await srv.request('PUT', `${CM}/cm-${i}`, { metadata: { name: `cm-${i}` }, data: { blob: blob(30), v: String(i) } }));
    for (const w of watches) w.destroy();
    await waitFor(() => cache.watcherCount === 0, 5000, 'the cache forgot every watcher');
    await waitFor(async () => /^apiserver_registered_watchers\{[^}]*resource="configmaps"[^}]*\} 0$/m.test((await srv.request('GET', '/metrics')).text), 5000, 'no watch registered');
    const usage = srv.server.limits.usage();
    assert.equal([...usage.watches.values()].reduce((a, b) => a + b, 0), 0, 'no watch counted against a user');
  });
});
