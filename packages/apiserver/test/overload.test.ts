/**
 * Overload: many clients hammering LISTs and creates at well over the in-flight limits of a server
 * whose store is slow get 429s with Retry-After (and nothing else but successes), while a node's
 * lease keeps renewing, /readyz keeps answering, memory stays bounded, and the server serves
 * normally once the storm is over.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MemoryStore } from '@setpoint/store';
import { TokenAuthenticator } from '../src/auth/index.js';
import { ApiServer } from '../src/server.js';
import { request, type TestResponse } from './harness.js';
import { slowStore, until } from './slowstore.js';
import { CM, configMap } from './support.js';

const ALICE = 'alice-overload-token';
const NODE = 'node-overload-token';
const LEASE = '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1';

it('overload gets 429s with Retry-After while a node lease keeps renewing and /readyz answers', async (t) => {
  const slow = slowStore(new MemoryStore(), (key) => key.includes('/configmaps/'));
  const server = await ApiServer.start({
    store: slow.store,
    port: 0,
    compaction: false,
    limits: { maxRequestsInflight: 4, maxMutatingRequestsInflight: 2 },
    authorization: false,
    authenticator: new TokenAuthenticator({
      tokens: [
        [ALICE, { name: 'alice', groups: ['system:authenticated'] }],
        [NODE, { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] }],
      ],
    }),
  });
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const call = (token: string, method: string, path: string, body?: unknown): Promise<TestResponse> => request(server.url, method, path, body, as(token));
  try {
    const created = await call(NODE, 'POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', {
      metadata: { name: 'n1' },
      spec: { holderIdentity: 'n1', leaseDurationSeconds: 10, renewTime: new Date().toISOString().replace('Z', '000Z') },
    });
    assert.equal(created.status, 201, created.text);
    slow.delayMs = 5;
    const before = process.memoryUsage();
    let storming = true;

    // The node agent: renews every 50 ms (a real one every 10 s of a 40 s lease), never refused.
    const renewals: number[] = [];
    const refusedRenewals: string[] = [];
    const renewer = (async () => {
      while (storming) {
        const current = await call(NODE, 'GET', LEASE);
        const lease = current.body;
        if (current.status === 200) {
          lease.spec.renewTime = new Date().toISOString().replace('Z', '000Z');
          const put = await call(NODE, 'PUT', LEASE, lease);
          if (put.status === 200) renewals.push(Date.now());
          else refusedRenewals.push(`PUT ${put.status} ${put.text.slice(0, 100)}`);
        } else refusedRenewals.push(`GET ${current.status} ${current.text.slice(0, 100)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    const readiness: number[] = [];
    const prober = (async () => {
      while (storming) {
        readiness.push((await request(server.url, 'GET', '/readyz')).status);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    // The storm: 40 clients, 25 requests each, half LISTs, half creates, no backoff.
    const codes = new Map<number, number>();
    const badRetryAfter: string[] = [];
    const clients = Array.from({ length: 40 }, async (_, c) => {
      for (let i = 0; i < 25; i++) {
        const res = i % 2 === 0 ? await call(ALICE, 'GET', CM) : await call(ALICE, 'POST', CM, configMap(`c${c}-${i}`, { v: 'x'.repeat(200) }));
        codes.set(res.status, (codes.get(res.status) ?? 0) + 1);
        if (res.status === 429 && (res.headers['retry-after'] !== '1' || res.body?.reason !== 'TooManyRequests')) badRetryAfter.push(JSON.stringify(res.headers));
      }
    });
    await Promise.all(clients);
    storming = false;
    await Promise.all([renewer, prober]);
    const after = process.memoryUsage();

    const gaps = renewals.slice(1).map((at, i) => at - renewals[i]!);
    t.diagnostic(
      `answers ${JSON.stringify(Object.fromEntries(codes))}; ${renewals.length} lease renewals, longest gap ${Math.max(...gaps)} ms; ` +
        `heap ${Math.round((after.heapUsed - before.heapUsed) / 1048576)} MiB, RSS ${Math.round((after.rss - before.rss) / 1048576)} MiB more`,
    );
    const ok = (codes.get(200) ?? 0) + (codes.get(201) ?? 0);
    const refused = codes.get(429) ?? 0;
    assert.equal(ok + refused, 1000, `only successes and 429s: ${JSON.stringify([...codes])}`);
    assert.ok(refused > 0, 'the storm was refused in part');
    assert.ok(ok > 0, 'and served in part');
    assert.deepEqual(badRetryAfter, [], 'every 429 says Retry-After: 1');
    assert.deepEqual(refusedRenewals, [], 'no lease renewal was refused');
    assert.ok(renewals.length >= 2, `the lease renewed ${renewals.length} times`);
    assert.ok(Math.max(...gaps) < 10_000, `renewals stay within the 10 s lease: longest gap ${Math.max(...gaps)} ms`);
    assert.ok(readiness.length > 0 && readiness.every((s) => s === 200), `/readyz answered ${JSON.stringify(readiness)}`);
    // Rough bound: the storm's 1000 requests must not leave hundreds of MB behind.
    assert.ok(after.heapUsed - before.heapUsed < 256 * 1024 * 1024, `heap grew by ${Math.round((after.heapUsed - before.heapUsed) / 1048576)} MiB`);
    assert.ok(after.rss - before.rss < 512 * 1024 * 1024, `RSS grew by ${Math.round((after.rss - before.rss) / 1048576)} MiB`);

    // Afterwards: every seat is free and requests are served normally.
    await until(() => {
      const u = server.limits.usage();
      return u.readOnly === 0 && u.mutating === 0 && u.lease === 0;
    }, 5000, 'seats released');
    slow.delayMs = 0;
    assert.equal((await call(ALICE, 'GET', CM)).status, 200);
    const metrics = (await request(server.url, 'GET', '/metrics')).text;
    assert.match(metrics, /apiserver_request_terminations_total\{verb="(list|create)",group="",version="v1",resource="configmaps",subresource="",code="429"\} [1-9]/);
  } finally {
    await server.stop();
  }
});
