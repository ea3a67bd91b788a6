#!/usr/bin/env node
// The `setpoint` command. Runs the built CLI (dist/, made by `npm install` through the root's
// `prepare` script); in a checkout that was never built it runs the TypeScript sources through tsx.
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const built = new URL('../dist/cli.js', import.meta.url);
if (existsSync(fileURLToPath(built))) {
  const { main } = await import(built.href);
  await main(process.argv);
} else {
  const src = fileURLToPath(new URL('../src/cli-main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', src, ...process.argv.slice(2)], { stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}
