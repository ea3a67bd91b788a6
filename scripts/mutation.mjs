#!/usr/bin/env node
// Mutation testing of the core modules with StrykerJS (command runner): every mutant of a module's
// source is run against that module's own tests, all in one node process
// (scripts/mutation-tests.mjs). See docs/mutation.md.
//
// Usage: node scripts/mutation.mjs [MODULE...] [--mutate FILE[:LINES][,...]] [--concurrency N]
//          [--timeout-ms N] [--break SCORE] [--list]
//   (no MODULE: every module, one after the other — long; a module made of parts, such as
//   store-conformance, runs each part). Reports go to .mutation/MODULE/
//   (mutation.html, mutation.json; gitignored), a summary line per module to stdout.
import { existsSync, readdirSync, mkdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const outDir = '.mutation';

/** Test files of `dir` whose name matches `re` (the module's own tests), sorted. */
function tests(dir, re = /\.test\.ts$/) {
  return readdirSync(join(root, dir))
    .filter((name) => re.test(name) && name.endsWith('.test.ts'))
    .sort()
    .map((name) => `${dir}/${name}`);
}

/** A module: the files Stryker mutates and the test files that must notice. */
const modules = {
  workqueue: {
    what: 'the work queue, delaying and rate-limiting queues, rate limiters, Fifo, backoff, KeyedLoop',
    mutate: ['queue', 'delaying', 'ratelimiting', 'limiters', 'fifo', 'backoff', 'loop'].map((f) => `packages/workqueue/src/${f}.ts`),
    tests: () => tests('packages/workqueue/src'),
  },
  watcher: {
    what: "the informer's list-and-watch loop",
    mutate: ['packages/client/src/informer/watcher.ts'],
    tests: () => tests('packages/client/src/informer', /^watcher/),
  },
  informer: {
    what: 'the shared informer, its cache and the informer factory',
    mutate: ['informer', 'store', 'factory', 'handlers'].map((f) => `packages/client/src/informer/${f}.ts`),
    tests: () => tests('packages/client/src/informer', /^(informer|store|factory)\.test\.ts$/),
  },
  controller: {
    what: 'the controller loop (workers, requeue, reconcile results)',
    mutate: ['packages/client/src/runtime/controller.ts'],
    tests: () => tests('packages/client/src/runtime', /^controller\.test\.ts$/),
  },
  leaderelection: {
    what: 'leader election over a Lease',
    mutate: ['leaderelector', 'leaselock'].map((f) => `packages/client/src/runtime/leaderelection/${f}.ts`),
    tests: () => tests('packages/client/src/runtime/leaderelection', /^leaderelector\.test\.ts$/),
  },
  'strategic-merge': {
    what: 'strategic merge patch',
    mutate: ['packages/api/src/patch/strategic-merge.ts'],
    tests: () => tests('packages/api/src/patch', /^strategic/),
  },
  apply: {
    what: "server-side apply's field sets and managed fields",
    mutate: ['fieldset', 'managed', 'fieldmanager', 'typed', 'updater', 'conflict', 'elements'].map(
      (f) => `packages/api/src/apply/${f}.ts`,
    ),
    tests: () => tests('packages/api/src/apply'),
  },
  selectors: {
    what: 'label and field selectors',
    mutate: ['labels', 'fields'].map((f) => `packages/api/src/selectors/${f}.ts`),
    tests: () => tests('packages/api/src/selectors'),
  },
  // Each backend's source against its own tests only (the memory tests cannot see a mutant of
  // sqlite.ts, and the SQLite tests take several times longer); store-conformance runs both. The
  // revision log both backends share (revision-log.ts) is mutated in each.
  'store-memory': {
    what: "the memory store against the store's conformance suite",
    mutate: ['packages/store/src/memory/memory.ts', 'packages/store/src/revision-log.ts'],
    tests: () => tests('packages/store/src/memory'),
  },
  'store-sqlite': {
    what: 'the SQLite store against the conformance suite and its own tests',
    mutate: ['packages/store/src/sqlite/sqlite.ts', 'packages/store/src/revision-log.ts'],
    tests: () => tests('packages/store/src/sqlite'),
    // The tests' databases on tmpfs: with synchronous=FULL every commit is an fsync, and on the
    // test machines' virtual disks those took 4/5 of a run (41 s → 8 s for the same tests). The
    // store issues the same fsyncs; only the file system answers them at once.
    env: existsSync('/dev/shm') ? { TMPDIR: '/dev/shm' } : {},
  },
  'store-conformance': {
    what: 'store-memory, then store-sqlite',
    parts: ['store-memory', 'store-sqlite'],
  },
  'guaranteed-update': {
    what: "the API server's one read-change-write loop (guaranteedUpdate)",
    mutate: ['packages/apiserver/src/storage/guaranteed.ts'],
    tests: () => tests('packages/apiserver/src/storage', /^guaranteed\.test\.ts$/),
  },
  watchcache: {
    what: "the API server's watch cache",
    mutate: ['cache', 'filter', 'queue'].map((f) => `packages/apiserver/src/watchcache/${f}.ts`),
    tests: () => tests('packages/apiserver/src/watchcache'),
  },
};

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    mutate: { type: 'string' },
    concurrency: { type: 'string', default: '1' },
    'timeout-ms': { type: 'string', default: '45000' },
    break: { type: 'string' },
    list: { type: 'boolean', default: false },
  },
});

if (values.list) {
  for (const [name, m] of Object.entries(modules)) console.log(`${name.padEnd(18)} ${m.what}`);
  process.exit(0);
}
const requested = positionals.length > 0 ? positionals : Object.keys(modules).filter((name) => modules[name].parts === undefined);
for (const name of requested) {
  if (!(name in modules)) {
    console.error(`unknown module ${JSON.stringify(name)}; known: ${Object.keys(modules).join(', ')}`);
    process.exit(2);
  }
}
if (values.mutate !== undefined && requested.length !== 1) {
  console.error('--mutate needs exactly one MODULE (its tests are the ones run)');
  process.exit(2);
}
/** The modules to run (a module made of parts runs each part) and what each one mutates. */
const runs = [];
for (const name of requested) {
  const parts = modules[name].parts ?? [name];
  for (const part of parts) {
    let mutate = modules[part].mutate;
    if (values.mutate !== undefined) {
      // With parts, each --mutate entry goes to the part that mutates its file.
      const specs = values.mutate.split(',');
      mutate = parts.length === 1 ? specs : specs.filter((spec) => modules[part].mutate.includes(spec.replace(/:\d.*$/, '')));
      if (mutate.length === 0) continue;
    }
    if (!runs.some((r) => r.name === part)) runs.push({ name: part, mutate });
  }
}
if (values.mutate !== undefined && modules[requested[0]].parts !== undefined) {
  const known = modules[requested[0]].parts.flatMap((part) => modules[part].mutate);
  const unknown = values.mutate.split(',').filter((spec) => !known.includes(spec.replace(/:\d.*$/, '')));
  if (unknown.length > 0) {
    console.error(`--mutate ${unknown.join(',')}: not a file of ${requested[0]} (${known.join(', ')})`);
    process.exit(2);
  }
}

const { Stryker } = await import('@stryker-mutator/core');

/** Counts by status, the score (timeouts count as detected) and the killed-only score. */
function summarise(results) {
  const count = (status) => results.filter((r) => r.status === status).length;
  const killed = count('Killed');
  const survived = count('Survived');
  const timedOut = count('Timeout');
  const noCoverage = count('NoCoverage');
  const valid = killed + survived + timedOut + noCoverage;
  const pct = (n) => (valid === 0 ? 'n/a' : `${((100 * n) / valid).toFixed(1)}%`);
  return {
    valid,
    killed,
    survived,
    timedOut,
    errors: count('RuntimeError') + count('CompileError'),
    ignored: count('Ignored'),
    score: pct(killed + timedOut),
    killedOnly: pct(killed),
    scoreValue: valid === 0 ? 100 : (100 * (killed + timedOut)) / valid,
  };
}

let failed = false;
for (const { name, mutate } of runs) {
  const m = modules[name];
  const testFiles = m.tests();
  const report = join(outDir, name);
  mkdirSync(join(root, report), { recursive: true });
  const tmp = join(outDir, 'tmp', name);
  rmSync(join(root, tmp), { recursive: true, force: true });
  console.log(`== mutation testing ${name}: ${m.what}\n   tests: ${testFiles.join(' ')}`);
  // The module's environment for its test runs (Stryker's command runner passes on its own).
  for (const [k, v] of Object.entries(m.env ?? {})) process.env[k] = v;
  const stryker = new Stryker({
    // Stryker resolves paths against the working directory.
    mutate,
    testRunner: 'command',
    commandRunner: {
      // --test-force-exit: once every test has finished (or failed on its own deadline), exit even if
      // a mutant left timers or a busy loop behind, so that a deadline counts as a kill, not a hang.
      command: `node --test-force-exit --test-reporter=./scripts/mutation-bail.mjs --test-reporter-destination=stdout --conditions=setpoint-src --import tsx scripts/mutation-tests.mjs ${testFiles.join(' ')}`,
    },
    // The command runner cannot tell which test covers which mutant: every mutant runs every test.
    coverageAnalysis: 'off',
    concurrency: Number(values.concurrency),
    // Generous: the machines this runs on are shared and busy; a slow run is not a kill.
    timeoutMS: Number(values['timeout-ms']),
    timeoutFactor: 2,
    tempDirName: tmp,
    // The sandbox needs the sources, configs and scripts, not the build output or old reports.
    ignorePatterns: ['dist', '*.tsbuildinfo', outDir, 'bench/results', 'packages/dashboard', 'coverage'],
    reporters: ['clear-text', 'progress', 'html', 'json'],
    clearTextReporter: { reportTests: false, logTests: false, allowColor: process.stdout.isTTY === true },
    htmlReporter: { fileName: join(report, 'mutation.html') },
    jsonReporter: { fileName: join(report, 'mutation.json') },
    thresholds: { high: 90, low: 80, break: values.break !== undefined ? Number(values.break) : null },
    plugins: [],
    logLevel: 'info',
  });
  process.chdir(root);
  const results = await stryker.runMutationTest();
  const s = summarise(results);
  console.log(
    `== ${name}: ${s.valid} mutants, ${s.killed} killed, ${s.survived} survived, ${s.timedOut} timed out, ` +
      `score ${s.score}, killed only ${s.killedOnly}` +
      (s.ignored > 0 ? `, ${s.ignored} ignored (marked equivalent)` : '') +
      (s.errors > 0 ? `, ${s.errors} errors` : '') +
      `\n   report: ${relative(root, join(root, report, 'mutation.html'))}`,
  );
  if (values.break !== undefined && s.scoreValue < Number(values.break)) failed = true;
}
process.exit(failed ? 1 : 0);
