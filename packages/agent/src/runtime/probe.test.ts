import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { FakeClock } from '@setpoint/api';
import { ProbeWorker, runProbe, type ProbeOutcome, type ProbeTarget } from './probe.js';

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/**
 * A probe's own deadline (timeoutSeconds, 1 s by default) is wall-clock time: on a loaded machine
 * starting `node` for an exec probe can take longer, so probes whose answer is the point get room.
 */
const SLOW_MACHINE = 60;

describe('runProbe', () => {
  it('checks httpGet (200-399), tcpSocket and exec, and resolves named ports', async () => {
    const server = createServer((req, res) => res.writeHead(req.url === '/ok' ? 204 : 503).end());
    const port = await listen(server);
    try {
      const target: ProbeTarget = { host: '127.0.0.1', cwd: process.cwd(), env: { PATH: process.env['PATH'] ?? '' }, ports: [{ name: 'http', containerPort: port }] };
      assert.deepEqual(await runProbe({ httpGet: { path: '/ok', port: 'http' }, timeoutSeconds: SLOW_MACHINE }, target), { ok: true });
      assert.deepEqual(await runProbe({ httpGet: { path: '/bad', port }, timeoutSeconds: SLOW_MACHINE }, target), { ok: false, message: 'HTTP probe failed with statuscode: 503' });
      assert.equal((await runProbe({ tcpSocket: { port }, timeoutSeconds: SLOW_MACHINE }, target)).ok, true);
      assert.equal((await runProbe({ httpGet: { port: 'nope' } }, target)).message, 'unknown port nope');
      assert.equal((await runProbe({ exec: { command: [process.execPath, '-e', 'process.exit(0)'] }, timeoutSeconds: SLOW_MACHINE }, target)).ok, true);
      const failed = await runProbe({ exec: { command: [process.execPath, '-e', 'console.log("not yet"); process.exit(1)'] }, timeoutSeconds: SLOW_MACHINE }, target);
      assert.deepEqual(failed, { ok: false, message: 'not yet' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const closed: ProbeTarget = { host: '127.0.0.1', cwd: process.cwd(), env: {}, ports: [] };
    assert.equal((await runProbe({ tcpSocket: { port } }, closed)).ok, false, 'nothing listens any more');
  });
});

describe('ProbeWorker', () => {
  it('waits initialDelaySeconds, probes every periodSeconds, and flips only after the thresholds', async () => {
    const clock = new FakeClock(0);
    const answers = [false, true, true, false, false, false, true];
    const attempts: number[] = [];
    const flips: Array<[number, boolean]> = [];
    const worker = new ProbeWorker({
      kind: 'readiness',
      clock,
      probe: { initialDelaySeconds: 5, periodSeconds: 2, successThreshold: 2, failureThreshold: 3 },
      check: async (): Promise<ProbeOutcome> => {
        attempts.push(clock.now());
        return { ok: answers.shift() ?? true };
      },
      onResult: (ok) => flips.push([clock.now(), ok]),
    });
    assert.equal(worker.result, false, 'readiness starts false');
    worker.start();
    await clock.advance(20_000);
    worker.stop();
    assert.deepEqual(attempts.slice(0, 7), [5000, 7000, 9000, 11000, 13000, 15000, 17000]);
    assert.deepEqual(flips, [
      [9000, true],
      [15000, false],
      [19000, true],
    ]);
  });

  it('reports a startup probe failure at failureThreshold, and skips attempts while inactive', async () => {
    const clock = new FakeClock(0);
    const failures: number[] = [];
    let active = false;
    let attempts = 0;
    const worker = new ProbeWorker({
      kind: 'startup',
      clock,
      probe: { periodSeconds: 1, failureThreshold: 2 },
      check: async () => {
        attempts++;
        return { ok: false };
      },
      onResult: (ok) => !ok && failures.push(clock.now()),
      active: () => active,
    });
    worker.start();
    await clock.advance(3_000);
    assert.equal(attempts, 0);
    active = true;
    await clock.advance(3_000);
    worker.stop();
    assert.deepEqual(failures, [5000, 6000]);
  });
});
