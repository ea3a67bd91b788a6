import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { ApiError, type KubeObject } from '@setpoint/api';
import type { WatchEvent } from '../types.js';
import { HttpClient } from './httpclient.js';
import { closedPort, json, startStub, status, waitFor } from './stub-server.test-support.js';

const cm = (name: string, rv: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, resourceVersion: rv } });
const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;
const startWatch = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });

async function collect<T extends KubeObject>(it: AsyncIterable<WatchEvent<T>>): Promise<string[]> {
  const seen: string[] = [];
  for await (const e of it) seen.push(`${e.type} ${e.object.metadata.name ?? ''}@${e.object.metadata.resourceVersion ?? ''}`);
  return seen;
}

describe('HttpClient.stream', () => {
  it('reads events split across chunks, skips blank lines, and ends when the server ends', async () => {
    await using stub = await startStub(async (_req, res) => {
      startWatch(res);
      const text = line('ADDED', cm('grüße', '1')) + '\n\n' + line('MODIFIED', cm('grüße', '2')) + line('BOOKMARK', { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '3' } }) + line('DELETED', cm('b', '4')).trimEnd();
      const bytes = Buffer.from(text, 'utf8');
      // Cut inside the multi-byte "ü" and inside a JSON object.
      const cuts = [bytes.indexOf(Buffer.from('ü')) + 1, bytes.indexOf(Buffer.from('MODIFIED')) + 3, bytes.length];
      let from = 0;
      for (const to of cuts) {
        await new Promise<void>((resolve) => res.write(bytes.subarray(from, to), () => resolve()));
        from = to;
      }
      res.end();
    });
    const http = new HttpClient({ server: stub.url }, { qps: Infinity });
    assert.deepEqual(await collect(http.stream({ path: '/api/v1/configmaps', query: { watch: 'true' } })), ['ADDED grüße@1', 'MODIFIED grüße@2', 'BOOKMARK @3', 'DELETED b@4']);
    assert.equal(stub.requests[0]?.url, '/api/v1/configmaps?watch=true');
    http.close();
  });

  it('throws an ERROR event as ApiError after the events before it', async () => {
    await using stub = await startStub((_req, res) => {
      startWatch(res);
      res.write(line('ADDED', cm('a', '7')));
      res.write(line('ERROR', status(410, 'Expired', 'too old resource version: 5 (150)')));
      res.end();
    });
    const http = new HttpClient({ server: stub.url }, { qps: Infinity });
    const seen: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const e of http.stream({ path: '/w' })) seen.push(e.type);
      })(),
      (err: unknown) => err instanceof ApiError && err.code === 410 && err.reason === 'Expired' && err.message === 'too old resource version: 5 (150)',
    );
    assert.deepEqual(seen, ['ADDED']);
    http.close();
  });

  it('throws an error response or a refused connection at the start as ApiError', async () => {
    await using stub = await startStub((_req, res) => json(res, 403, status(403, 'Forbidden', 'configmaps is forbidden')));
    const http = new HttpClient({ server: stub.url }, { qps: Infinity });
    await assert.rejects(http.stream({ path: '/w' }).next(), (err: unknown) => err instanceof ApiError && err.reason === 'Forbidden' && err.code === 403);
    http.close();
    const refused = new HttpClient({ server: `http://127.0.0.1:${await closedPort()}` }, { qps: Infinity, maxRetries: 0 });
    await assert.rejects(refused.stream({ path: '/w' }).next(), (err: unknown) => err instanceof ApiError && err.reason === 'ServiceUnavailable');
    refused.close();
  });

  it('ends quietly and closes the connection on return() while a next() is pending, and on abort', async () => {
    let closed = 0;
    await using stub = await startStub((req, res) => {
      startWatch(res);
      res.write(line('ADDED', cm('a', '1')));
      res.on('close', () => closed++);
      void req;
    });
    const http = new HttpClient({ server: stub.url }, { qps: Infinity });
    const stream = http.stream({ path: '/w' });
    assert.equal((await stream.next()).value?.type, 'ADDED');
    const pending = stream.next();
    await stream.return();
    assert.deepEqual(await pending, { value: undefined, done: true });
    await waitFor(() => closed === 1, 'the server to see the watch closed');

    const ac = new AbortController();
    const seen: string[] = [];
    const loop = (async () => {
      for await (const e of http.stream({ path: '/w', signal: ac.signal })) seen.push(e.type);
    })();
    await waitFor(() => seen.length === 1, 'the first event');
    ac.abort();
    await loop;
    await waitFor(() => closed === 2, 'the server to see the aborted watch closed');
    http.close();
  });

  it('ends (as client-go does) when the connection breaks mid-stream', async () => {
    await using stub = await startStub((req, res) => {
      startWatch(res);
      res.write(line('ADDED', cm('a', '1')), () => req.socket.destroy());
    });
    const http = new HttpClient({ server: stub.url }, { qps: Infinity });
    assert.deepEqual(await collect(http.stream({ path: '/w' })), ['ADDED a@1']);
    http.close();
  });

  it('pauses the response while the consumer is behind, then delivers everything in order', async () => {
    const total = 3000;
    const padding = 'x'.repeat(10_000);
    let written = 0;
    let blocked = false;
    await using stub = await startStub(async (_req, res) => {
      startWatch(res);
      for (let i = 1; i <= total; i++) {
        written = i;
        const more = res.write(line('ADDED', { ...cm(`cm-${i}`, String(i)), data: { padding } }));
        if (!more) {
          blocked = true;
          await new Promise((resolve) => res.once('drain', resolve));
          blocked = false;
        }
      }
      res.end();
    });
    const http = new HttpClient({ server: stub.url }, { qps: Infinity });
    const stream = http.stream({ path: '/w' });
    assert.equal((await stream.next()).value?.object.metadata.name, 'cm-1');
    await waitFor(() => stream.paused, 'the stream to pause');
    // Paused: no more data is read, so the queue cannot grow and the server is held back.
    assert.ok(stream.buffered < total - 1, `buffered ${stream.buffered}`);
    await waitFor(() => blocked, 'the server to be held back');
    assert.ok(stream.paused);
    assert.ok(written < total, `the server wrote ${written} of ${total} while the consumer held back`);
    const names: string[] = [];
    for await (const e of stream) names.push(e.object.metadata.name ?? '');
    assert.equal(names.length, total - 1);
    assert.equal(names[0], 'cm-2');
    assert.equal(names.at(-1), `cm-${total}`);
    http.close();
  });
});
