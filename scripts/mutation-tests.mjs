#!/usr/bin/env node
// Runs the given test files with node:test in ONE process (Node 20's `node --test` starts a process
// per file, about 4x slower here), for the mutation runs of scripts/mutation.mjs. Start it with
// `node --test-force-exit --conditions=setpoint-src --import tsx scripts/mutation-tests.mjs FILE...`;
// the exit code is non-zero when a test fails (node:test sets it), which is what tells Stryker a
// mutant is killed. --test-force-exit ends the process once the tests have, whatever a mutant left
// running (a timer, a busy promise loop), so a test failing on its own deadline is a kill, not a hang.
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: mutation-tests.mjs TEST_FILE...');
  process.exit(2);
}
// Tests start as soon as a file has registered them; with --test-force-exit the process would end
// when the first file's tests are done, before the next file is loaded. This first test holds the
// run open until every file is loaded (and fails, failing the run, if one cannot be).
let loaded;
const loading = new Promise((resolve_, reject) => {
  loaded = { resolve: resolve_, reject };
});
test('mutation-tests: load the test files', () => loading);
try {
  for (const file of files) await import(pathToFileURL(resolve(file)).href);
  loaded.resolve();
} catch (err) {
  loaded.reject(err);
}
