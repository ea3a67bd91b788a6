/**
 * `setpoint server`: the API server on its own. Also the building block `setpoint up` starts.
 *
 * At first start it creates, in the data directory: the SQLite store (state.db), a cluster CA and a
 * serving certificate (ca.crt, server.crt and their keys, mode 0600), an admin token (admin.token)
 * and kubeconfig.yaml for the admin; and the credentials it shows node agents when it proxies
 * pods/log: a client certificate of the CA (apiserver-kubelet-client.crt/.key), or, with
 * --insecure-http, a shared token (kubelet-client.token, for `setpoint agent --kubelet-token-file`);
 * the ServiceAccount token signing key pair (sa.key, sa.pub); and, with HTTPS, client certificates
 * and kubeconfigs for the controller-manager and the scheduler (components/). Later starts reuse
 * them. The data directory is the server's alone (0700, every file 0600; looser modes are
 * tightened at start, with a warning). Requests authenticate with the admin token, a token of --token-auth-file, a ServiceAccount
 * token, or a client certificate of the cluster CA.
 *
 * With --store etcd the objects live in etcd (--etcd-endpoints), not in state.db, and several
 * servers may share one cluster: each keeps its own data directory, holding copies of the first
 * one's CA, admin token and ServiceAccount keys (docs/etcd.md); one of them at a time compacts.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Logger } from '@setpoint/api';
import {
  ApiServer,
  CONTROLLER_MANAGER_IDENTITY,
  ClientCertificateAuthenticator,
  SCHEDULER_IDENTITY,
  TokenAuthenticator,
  UnionAuthenticator,
  ensureAdminToken,
  parseAuthorizationModes,
  ensureComponentCredentials,
  ensureServiceAccountKeys,
  loadTokenFile,
  ensureKubeletClientCertificate,
  ensureKubeletToken,
  ensureServingCertificates,
  kubeletCredentialFiles,
  renderKubeconfig,
  writeKubeconfig,
  type ComponentCredential,
  type KubeletClientOptions,
} from '@setpoint/apiserver';
import { EtcdStore, MemoryStore, SqliteStore, isCorruptDatabase, type Store } from '@setpoint/store';
import { checkEtcdFlags, openEtcdStore, type EtcdFlags } from '../etcd.js';
import { isLoopbackHost, parseChoice, parseDuration, parsePort } from '../flags.js';
import { serveSnapshots } from '../snapshot/socket.js';
import { createLogger } from '../logging.js';
import { addPodSecurityFlags, podSecurityOptions, type PodSecurityFlags } from './podsecurityflags.js';
import { reportTightened, tightenDataDir } from '../datadir.js';
import { addRequestFlags, requestOptions, type RequestFlags } from './requestflags.js';
import { VERSION } from '../version.js';
import { dashboardDir, parseComponentMetrics } from './dashboard.js';

export interface ServerFlags extends EtcdFlags, RequestFlags, PodSecurityFlags {
  dataDir: string;
  port: string;
  host: string;
  store: string;
  insecureHttp?: boolean;
  advertiseAddress?: string[];
  compactionInterval: string;
  tokenAuthFile?: string;
  /** --authorization-mode; default Node,RBAC. */
  authorizationMode?: string;
  /** --component-metrics NAME=URL…: components whose metrics the server serves to the dashboard. */
  componentMetrics?: string[];
  logLevel: string;
}

/** A running API server and the store under it. */
export interface RunningServer {
  readonly server: ApiServer;
  readonly store: Store;
  readonly kubeconfigPath: string;
  /** How an in-process client reaches the server: URL, CA (PEM, absent for plain HTTP), admin token. */
  readonly connection: { readonly server: string; readonly ca?: string; readonly token: string };
  /**
   * What a node agent needs to accept this server's log requests: the cluster CA to verify its
   * client certificate with (HTTPS), or the shared token (--insecure-http).
   */
  readonly kubelet: { readonly ca?: string; readonly token?: string };
  /**
   * The client certificates of the controller-manager (CN system:kube-controller-manager) and the
   * scheduler (CN system:kube-scheduler), with kubeconfigs in DATA/components/ (HTTPS only; empty
   * for --insecure-http).
   */
  readonly components: readonly ComponentCredential[];
  stop(): Promise<void>;
}

export function addServerFlags(cmd: Command): Command {
  const withServerFlags = cmd
    .option('--data-dir <dir>', 'where Setpoint keeps its data', join(homedir(), '.setpoint'))
    .option('--port <n>', 'port to serve the API on', '6443')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--store <backend>', 'store backend: sqlite, memory or etcd', 'sqlite')
    .option('--etcd-endpoints <urls>', 'with --store etcd: client URLs of the etcd members, comma-separated')
    .option('--etcd-prefix <prefix>', 'with --store etcd: put before every key in etcd (clusters sharing one etcd)')
    .option('--etcd-cafile <file>', 'with --store etcd over https: the CA of the etcd members (PEM)')
    .option('--etcd-certfile <file>', 'with --store etcd over https: client certificate for etcd (PEM)')
    .option('--etcd-keyfile <file>', 'with --store etcd over https: key of --etcd-certfile (PEM)')
    .option('--insecure-http', 'serve plain HTTP instead of HTTPS (loopback only)')
    .option('--advertise-address <address...>', 'extra host names or IPs for the serving certificate')
    .option('--compaction-interval <duration>', 'how often to compact the store', '5m')
    .option('--token-auth-file <file>', 'also accept the bearer tokens of this CSV file (token,user,uid,"group1,group2"), read at start')
    .option('--authorization-mode <modes>', 'how requests are authorized, in order: Node, RBAC, AlwaysAllow (comma-separated)', 'Node,RBAC')
    .option('--component-metrics <name=url...>', "serve these components' metrics at /metrics/components/NAME (the dashboard's Controllers page), e.g. controller-manager=http://127.0.0.1:10257/metrics")
    .option('--log-level <level>', 'debug, info, warn or error', 'info');
  // Request limits and the audit log (requestflags.ts).
  return addRequestFlags(addPodSecurityFlags(withServerFlags));
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
  const backend = parseChoice(flags.store, ['sqlite', 'memory', 'etcd'] as const, '--store');
  checkEtcdFlags(flags, backend);
  const compactionMs = parseDuration(flags.compactionInterval, '--compaction-interval');
  const authorizationModes = parseAuthorizationModes(flags.authorizationMode ?? 'Node,RBAC');
  const { limits, audit } = await requestOptions(flags);
  const podSecurity = podSecurityOptions(flags);
  const componentMetrics = parseComponentMetrics(flags.componentMetrics ?? []);
  if (flags.insecureHttp && !isLoopbackHost(flags.host)) throw new Error(`--insecure-http is allowed on loopback only, not on --host ${flags.host}`);
  // Private (0700, files 0600): it holds every Secret and the cluster's keys (datadir.ts).
  reportTightened(logger, dataDir, tightenDataDir(dataDir));
  const dbPath = join(dataDir, 'state.db');
  let store: Store;
  try {
    store = backend === 'sqlite' ? await SqliteStore.open({ path: dbPath }) : backend === 'etcd' ? await openEtcdStore(flags, logger) : new MemoryStore();
  } catch (err) {
    throw isCorruptDatabase(err) ? damagedStore(dbPath, sqliteMessage(err), err) : err;
  }
  try {
    const token = await ensureAdminToken(dataDir, logger);
    const fileTokens = flags.tokenAuthFile === undefined ? [] : await loadTokenFile(resolve(flags.tokenAuthFile));
    if (flags.tokenAuthFile !== undefined) logger.info({ path: resolve(flags.tokenAuthFile), users: fileTokens.length }, 'read the static token file');
    const certs = flags.insecureHttp ? undefined : await ensureServingCertificates({ dataDir, hosts: flags.advertiseAddress ?? [], logger });
    // pods/log goes to node agents: with a client certificate of the cluster CA, or (plain HTTP) a shared token.
    const kubeletClient: KubeletClientOptions = certs
      ? { clientCertificate: await ensureKubeletClientCertificate({ dataDir, logger }) }
      : { scheme: 'http', token: await ensureKubeletToken(join(dataDir, kubeletCredentialFiles.token), { create: true, logger }) };
    const server = await ApiServer.start({
      store,
      host: flags.host,
      port,
      ...(certs ? { tls: { cert: certs.cert, key: certs.key, clientCA: certs.caCert } } : {}),
      authenticator: new UnionAuthenticator([
        new ClientCertificateAuthenticator(),
        new TokenAuthenticator({ adminToken: token, tokens: fileTokens.map((e) => [e.token, e.user] as const) }),
      ]),
      serviceAccountTokens: { keys: await ensureServiceAccountKeys({ dataDir, logger }) },
      // On etcd, the API servers of the cluster elect the one that compacts (an etcd lease).
      compaction: { intervalMs: compactionMs, ...(store instanceof EtcdStore ? { leadership: store.election('compactor') } : {}) },
      kubeletClient,
      authorization: { modes: authorizationModes },
      limits,
      ...(audit ? { audit } : {}),
      podSecurity,
      setpointVersion: VERSION,
      // The web UI at /ui/ (docs/dashboard.md); its files are public, every API call it makes is authenticated.
      dashboard: { dir: dashboardDir() },
      logger,
    });
    for (const [name, source] of componentMetrics) server.serveComponentMetrics(name, source);
    const kubeconfigPath = join(dataDir, 'kubeconfig.yaml');
    await writeKubeconfig(kubeconfigPath, renderKubeconfig({ server: server.url, caCert: certs?.caCert ?? '', token }));
    // Identities for the controller-manager and scheduler run as separate processes (DATA/components/*.kubeconfig).
    const components = certs ? await ensureComponentCredentials({ dataDir, server: server.url, identities: [CONTROLLER_MANAGER_IDENTITY, SCHEDULER_IDENTITY], logger }) : [];
    // `setpoint snapshot save` asks for consistent copies of the store here (see snapshot/socket.ts).
    const snapshots = store instanceof SqliteStore ? await serveSnapshots({ store, dataDir, logger }) : undefined;
    let stopped = false;
    return {
      server,
      store,
      kubeconfigPath,
      connection: { server: server.url, token, ...(certs ? { ca: certs.caCert } : {}) },
      kubelet: certs ? { ca: certs.caCert } : { ...(kubeletClient.token === undefined ? {} : { token: kubeletClient.token }) },
      components,
      async stop() {
        if (stopped) return;
        stopped = true;
        await snapshots?.close();
        await server.stop();
        await store.close();
      },
    };
  } catch (err) {
    const damaged = store instanceof SqliteStore ? store.damaged : undefined;
    await store.close().catch((closing: unknown) => {
      if (damaged === undefined) throw closing;
    });
    throw damaged !== undefined ? damagedStore(dbPath, damaged, err) : err;
  }
}

/** The error for a store file SQLite found damaged (`why`: SQLite's words): which file, and how to get back to a working one. */
function damagedStore(path: string, why: string, err: unknown): Error {
  return new Error(
    `the store ${path} is damaged: ${why}. Restore the latest snapshot into a new data directory — setpoint snapshot restore SNAPSHOT_FILE --data-dir NEW_DIR — and start with --data-dir NEW_DIR (docs/operating.md, "A damaged store")`,
    { cause: err },
  );
}

/** The message of the innermost error with an SQLite code ("database disk image is malformed"). */
function sqliteMessage(err: unknown): string {
  let why = err instanceof Error ? err.message : String(err);
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (String((e as { code?: unknown }).code).startsWith('SQLITE_')) why = e.message;
  }
  return why;
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
