/**
 * Connection timeouts: a request whose headers, or whose body, never finish arriving has its
 * connection closed (over TLS, as `setpoint up` serves), while a watch, which has sent its whole
 * request, stays open past both timeouts.
 */
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { describe, it } from 'node:test';
import { connectionServerOptions, DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS } from '../src/http/connections.js';
import { openWatch, startTestServer, type TestServer } from './harness.js';
import { CM, configMap, ok } from './support.js';

const HEADERS_MS = 300;
const REQUEST_MS = 600;

/** A raw TLS connection to the server that records when it closed and what it was answered. */
function rawConnection(srv: TestServer, send: (socket: tls.TLSSocket) => void) {
  const url = new URL(srv.url);
  const opened = Date.now();
  let closedAfter: number | undefined;
  let answer = '';
  const socket = tls.connect({ host: url.hostname, port: Number(url.port), ca: srv.caCert, servername: 'localhost' }, () => send(socket));
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => (answer += d));
  socket.on('error', () => undefined);
  socket.on('close', () => (closedAfter = Date.now() - opened));
  return {
    socket,
    get answer() {
      return answer;
    },
    /** Resolves with how long the connection lasted; rejects when it is still open after `ms`. */
    async closed(ms = 5000): Promise<number> {
      const deadline = Date.now() + ms;
      while (closedAfter === undefined) {
        if (Date.now() > deadline) {
          socket.destroy();
          throw new Error(`the connection was still open after ${ms} ms`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      return closedAfter;
    },
  };
}

describe('connection timeouts', () => {
  it('close requests whose headers or body never finish, and leave watches alone', async () => {
    await using srv = await startTestServer({ secure: true, connections: { headersTimeoutMs: HEADERS_MS, requestReceiveTimeoutMs: REQUEST_MS } });
    const auth = `Authorization: Bearer ${srv.token!}\r\n`;
    const watchStarted = Date.now();
    const watch = openWatch(srv.url, `${CM}?watch=true`, { authorization: `Bearer ${srv.token!}` }, srv.caCert);

    const idle = rawConnection(srv, () => undefined);
    const partialHeaders = rawConnection(srv, (s) => s.write(`GET ${CM} HTTP/1.1\r\nHost: localhost\r\n${auth}`));
    const partialBody = rawConnection(srv, (s) =>
      s.write(`POST ${CM} HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n`),
    );
    const shortBody = rawConnection(srv, (s) => s.write(`POST ${CM} HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"kind":`));

    const headerWait = await partialHeaders.closed();
    assert.ok(headerWait >= HEADERS_MS - 50, `closed after ${headerWait} ms, before the header timeout`);
    assert.match(partialHeaders.answer, /^HTTP\/1\.1 408 /);
    await idle.closed();
    const bodyWait = await partialBody.closed();
    assert.ok(bodyWait >= REQUEST_MS - 50, `closed after ${bodyWait} ms, before the request timeout`);
    assert.match(partialBody.answer, /^HTTP\/1\.1 408 /);
    await shortBody.closed();

    // The watch began before all of that, so it has outlived both timeouts: still open and served.
    assert.ok(Date.now() - watchStarted > REQUEST_MS);
    assert.equal(watch.closed, false, 'the watch was cut');
    ok(await srv.request('POST', CM, configMap('after-timeouts')), 201);
    const event = await watch.next();
    assert.equal(event.type, 'ADDED');
    assert.equal(event.object.metadata.name, 'after-timeouts');
    watch.close();
  });

  it('default to kube-apiserver’s header timeout and the request timeout, checked at least every second', () => {
    assert.equal(DEFAULT_HEADERS_TIMEOUT_MS, 32_000);
    assert.equal(DEFAULT_REQUEST_RECEIVE_TIMEOUT_MS, 60_000);
    assert.deepEqual(connectionServerOptions(), { headersTimeout: 32_000, requestTimeout: 60_000, connectionsCheckingInterval: 1_000 });
    assert.deepEqual(connectionServerOptions({ headersTimeoutMs: 0, requestReceiveTimeoutMs: 0 }), { headersTimeout: 0, requestTimeout: 0, connectionsCheckingInterval: 1_000 });
    assert.throws(() => connectionServerOptions({ headersTimeoutMs: 2000, requestReceiveTimeoutMs: 1000 }), RangeError);
    assert.throws(() => connectionServerOptions({ headersTimeoutMs: -1 }), RangeError);
  });
});
