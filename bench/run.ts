/**
 * `npm run bench -- [NAME…] [--smoke]`: runs the benchmarks bench/NAME.bench.ts (all of them
 * without NAME), one after the other. Each prints its tables and writes bench/results/NAME.json
 * and NAME.svg (with --smoke: tiny sizes, results under bench/results/smoke/, git-ignored). After
 * a run, bench/results/README.md (smoke/README.md) is regenerated from every result present;
 * `npm run bench -- --report` only regenerates it. Benchmarks measure; they never assert a time.
 */
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beginRun, resultsDir, smoke } from './lib.js';
import { writeReadme } from './report.js';

// An interrupted run still stops the servers it started (their exit hooks run on process exit).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));

const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
// Flags with a value (--nodes 1000) are the benchmark's own; skip their values.
const args = process.argv.slice(2);
const names = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && /^--(nodes|pods|minutes|rounds|watchers|objects|updates)$/.test(args[i - 1]!)));
const reportOnly = args.includes('--report');
const chosen = names.length === 0 ? (reportOnly ? [] : available) : names;
for (const name of chosen) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${available.join(', ')}`);
    process.exit(2);
  }
}
const failed: string[] = [];
for (const name of chosen) {
  const mod = (await import(`./${name}.bench.ts`)) as { run: () => Promise<void> };
  console.log(`\n# ${name}${smoke ? ' (smoke)' : ''}`);
  beginRun();
  try {
    await mod.run();
  } catch (err) {
    // One broken benchmark does not cost the others' results; the exit code still says so.
    console.error(`benchmark ${name} failed:`, err);
    failed.push(name);
  }
}
// Smoke runs sum up their own results in bench/results/smoke/README.md (git-ignored).
if (reportOnly || chosen.length > 0) console.log(`\nsummary: ${writeReadme(resultsDir())}`);
if (failed.length > 0) {
  console.error(`failed: ${failed.join(', ')}`);
  process.exitCode = 1;
}
// A benchmark that left a handle open (a socket, a timer) must not keep the run from ending.
process.exit(process.exitCode ?? 0);
