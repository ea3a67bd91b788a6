#!/usr/bin/env node
// Runs every test file (*.test.ts under packages/*/src and packages/*/test, and examples/)
// with node:test through tsx, resolving workspace packages to their sources.
// Usage: node scripts/run-tests.mjs [path-substring ...]   (filters the files by substring)
// No run can hang CI: a test without a deadline of its own fails after 10 minutes, and a file
// whose tests are done exits even when something it started (a leaked handle) is still open.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { availableParallelism } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const roots = ['packages', 'examples'];
const skip = new Set(['node_modules', 'dist', '.git']);

function walk(dir, out) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (skip.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

const filters = process.argv.slice(2);
const files = roots
  .flatMap((r) => walk(join(root, r), []))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = Math.max(2, availableParallelism());
const child = spawn(
  process.execPath,
  ['--conditions=setpoint-src', '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-timeout=600000', '--test-force-exit', ...files],
  { cwd: root, stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
