/**
 * A load generator, run as its own process (so that the test process's event loop stays free for
 * the probes it times): `node --import tsx load.ts '<json options>'` prints one JSON line of
 * results and exits.
 *
 * - closed: `concurrency` clients each send the next request when the last one is answered, for
 *   `seconds` — the rate the server sustains.
 * - open: requests are sent at `rate` per second whatever the answers (as users arrive), for
 *   `seconds`; at most `maxOutstanding` wait for an answer (beyond that, sends are counted as
 *   skipped, so the generator's memory stays bounded too).
 *
 * Every request is a GET of `path` with the bearer token. Results: answers by status, how many
 * 429s lacked Retry-After, transport errors, and the rates achieved.
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { performance } from 'node:perf_hooks';

export interface LoadOptions {
  readonly url: string;
  readonly caFile: string;
  readonly token: string;
  readonly path: string;
  readonly mode: 'closed' | 'open';
  readonly seconds: number;
  readonly concurrency?: number;
  readonly rate?: number;
  readonly maxOutstanding?: number;
}

export interface LoadResult {
  readonly sent: number;
  readonly skipped: number;
  readonly statuses: Record<string, number>;
  readonly missingRetryAfter: number;
  readonly errors: number;
  readonly seconds: number;
  /** Answers with 200 per second. */
  readonly okRate: number;
  /** Requests sent per second. */
  readonly sentRate: number;
}

async function main(options: LoadOptions): Promise<LoadResult> {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 512, ca: readFileSync(options.caFile, 'utf8') });
  const target = new URL(options.path, options.url);
  const statuses: Record<string, number> = {};
  let sent = 0;
  let skipped = 0;
  let missingRetryAfter = 0;
  let errors = 0;
  let outstanding = 0;
  const one = () =>
    new Promise<void>((resolve) => {
      sent++;
      outstanding++;
      const req = https.request(target, { agent, headers: { authorization: `Bearer ${options.token}`, accept: 'application/json' } }, (res) => {
        const status = res.statusCode ?? 0;
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 429 && res.headers['retry-after'] === undefined) missingRetryAfter++;
        res.resume();
        res.on('end', done);
        res.on('error', done);
      });
      const done = () => {
        outstanding--;
        resolve();
      };
      req.on('error', () => {
        errors++;
        done();
      });
      req.end();
    });

  const start = performance.now();
  const end = start + options.seconds * 1000;
  if (options.mode === 'closed') {
    await Promise.all(
      Array.from({ length: options.concurrency ?? 8 }, async () => {
        while (performance.now() < end) await one();
      }),
    );
  } else {
    const rate = options.rate ?? 100;
    const max = options.maxOutstanding ?? 4000;
    let due = 0;
    await new Promise<void>((resolve) => {
      const tick = () => {
        const now = performance.now();
        if (now >= end) return resolve();
        const target = Math.floor(((now - start) / 1000) * rate);
        for (; due < target; due++) {
          if (outstanding >= max) skipped++;
          else void one();
        }
        setTimeout(tick, 2);
      };
      tick();
    });
    // Let the last answers come (bounded).
    const deadline = performance.now() + 30_000;
    while (outstanding > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  return { sent, skipped, statuses, missingRetryAfter, errors, seconds, okRate: (statuses['200'] ?? 0) / seconds, sentRate: sent / options.seconds };
}

// Run as a script only (tests import its types alone, which are erased).
main(JSON.parse(process.argv[2] ?? '{}') as LoadOptions).then(
  (result) => {
    console.log(JSON.stringify(result));
    process.exit(0);
  },
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
