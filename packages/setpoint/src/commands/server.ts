/**
 * `setpoint server`: the API server on its own. Also the building block `setpoint up` starts.
 *
 * At first start it creates, in the data directory: the SQLite store (state.db), a cluster CA and a
 * serving certificate (ca.crt, server.crt and their keys, mode 0600), an admin token (admin.token)
 * and kubeconfig.yaml for the admin. Later starts reuse them.
 */
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Logger } from '@setpoint/api';
import { ApiServer, TokenAuthenticator, ensureAdminToken, ensureServingCertificates, renderKubeconfig, writeKubeconfig } from '@setpoint/apiserver';
import { MemoryStore, SqliteStore, type Store } from '@setpoint/store';
import { isLoopbackHost, parseChoice, parseDuration, parsePort } from '../flags.js';
import { createLogger } from '../logging.js';
import { VERSION } from '../version.js';

export interface ServerFlags {
  dataDir: string;
  port: string;
  host: string;
  store: string;
  insecureHttp?: boolean;
  advertiseAddress?: string[];
  compactionInterval: string;
  logLevel: string;
}

/** A running API server and the store under it. */
export interface RunningServer {
  readonly server: ApiServer;
  readonly store: Store;
  readonly kubeconfigPath: string;
  /** How an in-process client reaches the server: URL, CA (PEM, absent for plain HTTP), admin token. */
  readonly connection: { readonly server: string; readonly ca?: string; readonly token: string };
  stop(): Promise<void>;
}

export function addServerFlags(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'where Setpoint keeps its data', join(homedir(), '.setpoint'))
    .option('--port <n>', 'port to serve the API on', '6443')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--store <backend>', 'store backend: sqlite or memory', 'sqlite')
    .option('--insecure-http', 'serve plain HTTP instead of HTTPS (loopback only)')
    .option('--advertise-address <address...>', 'extra host names or IPs for the serving certificate')
    .option('--compaction-interval <duration>', 'how often to compact the store', '5m')
    .option('--log-level <level>', 'debug, info, warn or error', 'info');
}

export function registerServer(program: Command): void {
  addServerFlags(program.command('server').description('run the API server')).action(async (flags: ServerFlags) => {
    const logger = createLogger(flags.logLevel);
    const running = await startServer(flags, logger);
    console.log(`setpoint: API server at ${running.server.url}; kubeconfig: ${running.kubeconfigPath}`);
    await untilSignal();
    await running.stop();
  });
}

/** Starts the store and the API server as the flags say, and writes the kubeconfig. */
export async function startServer(flags: ServerFlags, logger: Logger): Promise<RunningServer> {
  const dataDir = resolve(flags.dataDir);
  const port = parsePort(flags.port);
  const backend = parseChoice(flags.store, ['sqlite', 'memory'] as const, '--store');
  const compactionMs = parseDuration(flags.compactionInterval, '--compaction-interval');
  if (flags.insecureHttp && !isLoopbackHost(flags.host)) throw new Error(`--insecure-http is allowed on loopback only, not on --host ${flags.host}`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store: Store = backend === 'sqlite' ? await SqliteStore.open({ path: join(dataDir, 'state.db') }) : new MemoryStore();
  try {
    const token = await ensureAdminToken(dataDir, logger);
    const certs = flags.insecureHttp ? undefined : await ensureServingCertificates({ dataDir, hosts: flags.advertiseAddress ?? [], logger });
    const server = await ApiServer.start({
      store,
      host: flags.host,
      port,
      ...(certs ? { tls: { cert: certs.cert, key: certs.key } } : {}),
      authenticator: new TokenAuthenticator({ adminToken: token }),
      compaction: { intervalMs: compactionMs },
      setpointVersion: VERSION,
      logger,
    });
    const kubeconfigPath = join(dataDir, 'kubeconfig.yaml');
    await writeKubeconfig(kubeconfigPath, renderKubeconfig({ server: server.url, caCert: certs?.caCert ?? '', token }));
    let stopped = false;
    return {
      server,
      store,
      kubeconfigPath,
      connection: { server: server.url, token, ...(certs ? { ca: certs.caCert } : {}) },
      async stop() {
        if (stopped) return;
        stopped = true;
        await server.stop();
        await store.close();
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** Resolves at the first SIGINT or SIGTERM. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((done) => {
    const keepAlive = setInterval(() => {}, 1 << 30);
    const stop = (signal: NodeJS.Signals) => {
      clearInterval(keepAlive);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      done(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
