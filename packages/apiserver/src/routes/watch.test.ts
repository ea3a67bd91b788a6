import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import net from 'node:net';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import Fastify from 'fastify';
import { EventQueue } from '../watchcache/queue.js';
import { WatchLine } from '../watchcache/cache.js';
import { streamWatch } from './watch.js';

/** A server with one route streaming `queue`; `streamed` settles when streamWatch returns. */
async function serve(queue: EventQueue<WatchLine>, flushGraceMs: number, clock?: FakeClock) {
  const app = Fastify();
  const stopping = new AbortController();
  let streamed!: Promise<void>;
  let response: ServerResponse | undefined;
  let resolveStarted!: () => void;
  const started = new Promise<void>((resolve) => (resolveStarted = resolve));
  app.get('/watch', async (req, reply) => {
    response = reply.raw;
    streamed = streamWatch(req, reply, queue, { stopping: stopping.signal, timeoutSeconds: 60, flushGraceMs, ...(clock ? { clock } : {}) });
    resolveStarted();
    await streamed;
    return reply;
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as net.AddressInfo).port;
  return {
    port,
    started,
    /** Connections the server holds. */
    connections: () => new Promise<number>((resolve, reject) => app.server.getConnections((err, n) => (err ? reject(err) : resolve(n)))),
    get streamed() {
      return streamed;
    },
    get response() {
      return response!;
    },
    async [Symbol.asyncDispose]() {
      stopping.abort();
      await app.close();
    },
  };
}

/** Connects, sends the request, waits for the first bytes (the 200), then never reads again. */
async function unreadClient(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  socket.write('GET /watch HTTP/1.1\r\nHost: x\r\n\r\n');
  const [chunk] = (await once(socket, 'data')) as [Buffer];
  assert.match(chunk.toString('latin1'), /^HTTP\/1\.1 200/);
  socket.pause();
  return socket;
}

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)));
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** Resolves once `check` holds, polling every 10 ms (callers put a deadline on it). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

const big = () => new WatchLine('MODIFIED', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x', resourceVersion: '1' }, data: { blob: 'x'.repeat(64 * 1024) } });

describe('streamWatch', () => {
  it('closes the connection of a client that never reads once its watch is closed for falling behind, after the flush grace', async () => {
    const queue = new EventQueue<WatchLine>({ limit: 10_000, maxBytes: 256 * 1024, sizeOf: (l) => l.byteLength }, () => undefined);
    await using srv = await serve(queue, 200);
    const socket = await unreadClient(srv.port);
    try {
      await srv.started;
      // Fill the kernel's buffers first: push until what was pushed stays unread for 300 ms (the
      // response is waiting for 'drain'); then push until the queue overflows.
      let pushed = 0;
      for (let stuckSince = Date.now(); Date.now() - stuckSince < 300; ) {
        if (queue.size === 0) {
          queue.push(big());
          pushed++;
          stuckSince = Date.now();
        }
        assert.ok(pushed < 4096, 'the response never backed up');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      while (queue.push(big())) assert.ok(++pushed < 8192, 'the queue never overflowed');
      assert.equal(queue.overflowedBounds, true);
      // streamWatch ends the response; unflushed, the connection is destroyed after the grace.
      await withDeadline(srv.streamed, 5000, 'streamWatch returning');
      // The response could not be flushed within the grace: the connection was destroyed, and the
      // process holds none of the watch's bytes.
      assert.equal(srv.response.destroyed, true, 'the connection was destroyed');
      assert.equal(queue.bytes, 0);
      await withDeadline(until(async () => (await srv.connections()) === 0), 5000, 'the server letting go of the connection');
    } finally {
      socket.destroy();
    }
  });

  it('a client that never reads and disconnects: the queue is dropped and streamWatch returns at once', async () => {
    const queue = new EventQueue<WatchLine>({ limit: 10_000, maxBytes: 64 * 1024 * 1024, sizeOf: (l) => l.byteLength }, () => undefined);
    await using srv = await serve(queue, 60_000);
    const socket = await unreadClient(srv.port);
    await srv.started;
    for (let i = 0; i < 200; i++) queue.push(big()); // ~13 MB: more than the sockets take
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    await withDeadline(srv.streamed, 5000, 'streamWatch returning');
    assert.equal(queue.closed, true);
    assert.equal(queue.size, 0, 'nothing left queued');
    assert.equal(queue.bytes, 0);
  });

  it("ends the stream after timeoutSeconds on its clock, and not before", async () => {
    const clock = new FakeClock();
    const queue = new EventQueue<WatchLine>({ limit: 100 }, () => undefined);
    await using srv = await serve(queue, 60_000, clock);
    const socket = net.connect(srv.port, '127.0.0.1');
    try {
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      const ended = once(socket, 'end');
      socket.write('GET /watch HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await srv.started;
      await clock.advance(59_999);
      queue.push(new WatchLine('ADDED', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'a', resourceVersion: '2' } }));
      await withDeadline(until(async () => received.includes('"name":"a"')), 5000, 'the line sent before the timeout');
      assert.equal(queue.closed, false, 'open one millisecond before timeoutSeconds');
      await clock.advance(1);
      await withDeadline(srv.streamed, 5000, 'streamWatch returning at timeoutSeconds');
      await withDeadline(ended, 5000, 'the response ending');
      assert.equal(queue.closed, true);
      assert.match(received, /\r\n0\r\n\r\n$/, 'the chunked response was ended cleanly');
    } finally {
      socket.destroy();
    }
  });
});
