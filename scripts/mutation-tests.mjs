#!/usr/bin/env node
// Runs the given test files with node:test in ONE process (Node 20's `node --test` starts a process
// per file, about 4x slower here), for the mutation runs of scripts/mutation.mjs. Start it with
// `node --conditions=setpoint-src --import tsx scripts/mutation-tests.mjs FILE...`; the exit code
// is non-zero when a test fails (node:test sets it), which is what tells Stryker a mutant is killed.
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: mutation-tests.mjs TEST_FILE...');
  process.exit(2);
}
for (const file of files) await import(pathToFileURL(resolve(file)).href);
