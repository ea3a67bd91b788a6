/**
 * `setpoint up`: the whole control plane in one process. Today only the store exists, so `up`
 * opens the embedded store in the data directory, keeps it compacted, and says what it runs.
 * The API server, controllers, scheduler and agent join here as their issues land.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { Compactor, MemoryStore, SqliteStore, type Store } from '@setpoint/store';

interface UpOptions {
  dataDir: string;
  store: 'sqlite' | 'memory';
}

export function registerUp(program: Command): void {
  program
    .command('up')
    .description('run the control plane on this machine')
    .option('--data-dir <dir>', 'where Setpoint keeps its data', join(homedir(), '.setpoint'))
    .option('--store <backend>', 'store backend: sqlite or memory', 'sqlite')
    .action(async (options: UpOptions) => {
      await up(options);
    });
}

async function up(options: UpOptions): Promise<void> {
  if (options.store !== 'sqlite' && options.store !== 'memory') {
    throw new Error(`--store must be sqlite or memory, not "${String(options.store)}"`);
  }
  const dataDir = resolve(options.dataDir);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store: Store = options.store === 'sqlite' ? await SqliteStore.open({ path: join(dataDir, 'state.db') }) : new MemoryStore();
  const compactor = new Compactor(store);
  await compactor.start();
  const revision = await store.currentRevision();
  console.log(`setpoint: store (${store.backend}) open in ${dataDir} at revision ${revision}`);
  console.log('setpoint: only the store runs so far; the API server, controllers, scheduler and agent are not built yet.');
  console.log('setpoint: press Ctrl-C to stop.');
  await new Promise<void>((done) => {
    // Nothing else holds the event loop open yet: keep the process alive until a signal.
    const keepAlive = setInterval(() => {}, 1 << 30);
    const stop = () => {
      clearInterval(keepAlive);
      done();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await compactor.stop();
  await store.close();
  console.log('setpoint: stopped.');
}
