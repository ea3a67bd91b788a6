/**
 * A real etcd for tests: `startEtcd()` runs Debian's etcd (/usr/bin/etcd, or $SETPOINT_ETCD) as a
 * one-member cluster on free loopback ports with its data in a new temporary directory, and resolves
 * once it answers /health. `EtcdServerPool` keeps one more started in the background, so suites that
 * want a fresh etcd per test do not wait for each start.
 *
 * Guarantees: the process is killed and its directory removed by `stop()`, by `await using`, and —
 * if a test run dies first — when this process exits. Every wait has a deadline; a start that fails
 * says why, with the tail of etcd's log.
 * Assumes: etcd 3.4 or later. The server runs with small raft timeouts (one member on loopback
 * needs no more), progress notifications every 100 ms (see etcd/watch.ts: etcd before 3.4.31 and
 * 3.5.13 sends ordered progress only on that timer), and a request limit of 2 MiB (so values of the
 * Store contract's 1.5 MiB fit in one transaction).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EtcdServerOptions {
  /** The etcd binary. Default $SETPOINT_ETCD, else /usr/bin/etcd. */
  readonly binary?: string;
  /** How long to wait for /health. Default 20 s. */
  readonly startTimeoutMs?: number;
  /** etcd's --experimental-watch-progress-notify-interval in ms. Default 100 (etcd's minimum). */
  readonly progressNotifyIntervalMs?: number;
  /** etcd's --max-request-bytes. Default 2 MiB. */
  readonly maxRequestBytes?: number;
  /** Further etcd flags. */
  readonly extraArgs?: readonly string[];
}

/** One running etcd member (a cluster of one). */
export interface EtcdServer extends AsyncDisposable {
  /** Its client URL, e.g. http://127.0.0.1:40123. */
  readonly endpoint: string;
  /** [endpoint], as EtcdStore's `endpoints` option wants it. */
  readonly endpoints: readonly string[];
  /** The temporary directory holding its data and log. */
  readonly dir: string;
  /** Kills it (SIGKILL) and keeps its data: requests fail until `restart()`. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data after `kill()`. */
  restart(): Promise<void>;
  /** Kills it and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_BINARY = '/usr/bin/etcd';
const live = new Set<{ child: ChildProcess | undefined; dir: string }>();
let exitHookInstalled = false;

/** The etcd binary tests use: $SETPOINT_ETCD, else /usr/bin/etcd. */
export function etcdBinary(): string {
  return process.env.SETPOINT_ETCD ?? DEFAULT_BINARY;
}

/** Starts a one-member etcd on free loopback ports in a new temporary directory. */
export async function startEtcd(options: EtcdServerOptions = {}): Promise<EtcdServer> {
  const binary = options.binary ?? etcdBinary();
  if (!existsSync(binary)) {
    throw new Error(`etcd is not installed at ${binary}: install Debian's etcd-server (.ci/run does) or set SETPOINT_ETCD`);
  }
  installExitHook();
  const dir = mkdtempSync(join(tmpdir(), 'setpoint-etcd-'));
  const entry: { child: ChildProcess | undefined; dir: string } = { child: undefined, dir };
  live.add(entry);
  const deadline = Date.now() + (options.startTimeoutMs ?? 20_000);
  let clientPort = 0;
  let peerPort = 0;
  const launch = async (): Promise<void> => {
    const child = spawn(binary, etcdArgs(dir, clientPort, peerPort, options), { stdio: 'ignore' });
    child.unref();
    entry.child = child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitHealthy(`http://127.0.0.1:${clientPort}`, exited, deadline, () => logTail(dir));
  };

  // A port found free can be taken before etcd binds it: try again with new ports.
  for (let attempt = 1; ; attempt++) {
    const ports = await freePorts(2);
    clientPort = ports[0]!;
    peerPort = ports[1]!;
    try {
      await launch();
      break;
    } catch (err) {
      await killChild(entry);
      if (attempt >= 3 || Date.now() >= deadline) {
        live.delete(entry);
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
      rmSync(join(dir, 'data'), { recursive: true, force: true });
    }
  }

  const endpoint = `http://127.0.0.1:${clientPort}`;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await killChild(entry);
    live.delete(entry);
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    endpoint,
    endpoints: [endpoint],
    dir,
    kill: () => killChild(entry),
    async restart() {
      if (stopped) throw new Error('this etcd was stopped');
      await killChild(entry);
      const child = spawn(binary, etcdArgs(dir, clientPort, peerPort, options), { stdio: 'ignore' });
      child.unref();
      entry.child = child;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await waitHealthy(endpoint, exited, Date.now() + (options.startTimeoutMs ?? 20_000), () => logTail(dir));
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** The flags of a one-member etcd on loopback (--initial-cluster-state is ignored once data exists). */
function etcdArgs(dir: string, clientPort: number, peerPort: number, options: EtcdServerOptions): string[] {
  const name = `setpoint-${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const client = `http://127.0.0.1:${clientPort}`;
  return [
    `--name=${name}`,
    `--data-dir=${join(dir, 'data')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${name}=${peer}`,
    '--initial-cluster-state=new',
    '--heartbeat-interval=10',
    '--election-timeout=50',
    `--experimental-watch-progress-notify-interval=${options.progressNotifyIntervalMs ?? 100}ms`,
    `--max-request-bytes=${options.maxRequestBytes ?? 2 * 1024 * 1024}`,
    '--logger=zap',
    '--log-level=error',
    `--log-outputs=${join(dir, 'etcd.log')}`,
    ...(options.extraArgs ?? []),
  ];
}

/**
 * Hands out fresh etcd servers, keeping `spare` more starting in the background so a suite that
 * uses one per test does not wait for each start. `close()` stops the spares; servers handed out
 * are the taker's to stop.
 */
export class EtcdServerPool {
  private readonly spares: Promise<EtcdServer>[] = [];
  private closed = false;

  constructor(
    private readonly options: EtcdServerOptions = {},
    private readonly spare = 1,
  ) {}

  /** A fresh, healthy etcd; the caller stops it. */
  async take(): Promise<EtcdServer> {
    if (this.closed) throw new Error('the etcd pool is closed');
    this.fill();
    const next = this.spares.shift()!;
    this.fill();
    return next;
  }

  /** Stops the spares. */
  async close(): Promise<void> {
    this.closed = true;
    const spares = this.spares.splice(0);
    await Promise.all(spares.map(async (s) => (await s.catch(() => undefined))?.stop()));
  }

  private fill(): void {
    while (this.spares.length < this.spare + 1 && !this.closed) {
      const started = startEtcd(this.options);
      started.catch(() => undefined); // a failed start is reported to the test that takes it
      this.spares.push(started);
    }
  }
}

async function waitHealthy(endpoint: string, exited: Promise<number | null>, deadline: number, log: () => string): Promise<void> {
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  for (;;) {
    if (exitCode !== undefined) throw new Error(`etcd exited with ${exitCode} before it was healthy:\n${log()}`);
    try {
      const res = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      if (body.health === 'true') return;
    } catch {
      // Not listening yet, or not yet a leader: ask again.
    }
    if (Date.now() >= deadline) throw new Error(`etcd at ${endpoint} was not healthy in time:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function killChild(entry: { child: ChildProcess | undefined }): Promise<void> {
  const child = entry.child;
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) {
    entry.child = undefined;
    return;
  }
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.ref(); // hold the event loop until it is gone
  child.kill('SIGKILL');
  await exited;
  entry.child = undefined;
}

/** `count` distinct ports that were free a moment ago. */
async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from({ length: count }, () => new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve(server));
    })),
  );
  const ports = servers.map((s) => (s.address() as { port: number }).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

function logTail(dir: string): string {
  try {
    return readFileSync(join(dir, 'etcd.log'), 'utf8').split('\n').slice(-15).join('\n');
  } catch {
    return '(no log)';
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const entry of live) {
      entry.child?.kill('SIGKILL');
      rmSync(entry.dir, { recursive: true, force: true });
    }
  });
}
