/**
 * A real etcd for tests: `startEtcd()` runs Debian's etcd (/usr/bin/etcd, or $SETPOINT_ETCD) as a
 * one-member cluster on free loopback ports with its data in a new temporary directory, and resolves
 * once it answers /health. `EtcdServerPool` keeps one more started in the background, so suites that
 * want a fresh etcd per test do not wait for each start. `startEtcdCluster()` runs three members (or
 * `size`) as one cluster, each killable and restartable, and finds their leader through etcd's
 * maintenance status (its JSON gateway): for tests of what clients see when members die.
 *
 * Guarantees: the processes are killed and their directories removed by `stop()`, by `await
 * using`, and — if a test run dies first — when this process exits. Every wait has a deadline; a
 * start that fails says why, with the tail of etcd's log.
 * Assumes: etcd 3.4 or later. A one-member server runs with small raft timeouts (one member on
 * loopback needs no more); a cluster's members with etcd's defaults (heartbeat 100 ms, election
 * 1 s) unless told otherwise, so failovers take as long as in production. Every member sends
 * progress notifications every 100 ms (see etcd/watch.ts: etcd before 3.4.31 and 3.5.13 sends
 * ordered progress only on that timer) and accepts requests of 2 MiB (so values of the Store
 * contract's 1.5 MiB fit in one transaction).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
  return memberArgs({ name, dir, clientPort, peerPort, initialCluster: `${name}=http://127.0.0.1:${peerPort}`, heartbeatMs: 10, electionTimeoutMs: 50 }, options);
}

/** Where one member of a loopback cluster lives and how it finds the others. */
interface MemberSpec {
  readonly name: string;
  /** Its directory: data in `data/`, log in `etcd.log`. */
  readonly dir: string;
  readonly clientPort: number;
  readonly peerPort: number;
  /** etcd's --initial-cluster: name=peerURL for every member. */
  readonly initialCluster: string;
  /** --initial-cluster-token; none for a cluster of one. */
  readonly token?: string;
  readonly heartbeatMs: number;
  readonly electionTimeoutMs: number;
}

/** The flags of one member on loopback. */
function memberArgs(member: MemberSpec, options: EtcdServerOptions): string[] {
  const peer = `http://127.0.0.1:${member.peerPort}`;
  const client = `http://127.0.0.1:${member.clientPort}`;
  return [
    `--name=${member.name}`,
    `--data-dir=${join(member.dir, 'data')}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=${member.initialCluster}`,
    '--initial-cluster-state=new',
    ...(member.token === undefined ? [] : [`--initial-cluster-token=${member.token}`]),
    `--heartbeat-interval=${member.heartbeatMs}`,
    `--election-timeout=${member.electionTimeoutMs}`,
    `--experimental-watch-progress-notify-interval=${options.progressNotifyIntervalMs ?? 100}ms`,
    `--max-request-bytes=${options.maxRequestBytes ?? 2 * 1024 * 1024}`,
    '--logger=zap',
    '--log-level=error',
    `--log-outputs=${join(member.dir, 'etcd.log')}`,
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
    const next = this.spares.shift() ?? startEtcd(this.options);
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
    while (this.spares.length < this.spare && !this.closed) {
      const started = startEtcd(this.options);
      started.catch(() => undefined); // a failed start is reported to the test that takes it
      this.spares.push(started);
    }
  }
}

export interface EtcdClusterOptions extends EtcdServerOptions {
  /** Members. Default 3. */
  readonly size?: number;
  /** etcd's --heartbeat-interval in ms. Default 100 (etcd's default). */
  readonly heartbeatMs?: number;
  /** etcd's --election-timeout in ms. Default 1000 (etcd's default): failovers take as long as in production. */
  readonly electionTimeoutMs?: number;
}

/** One member of an EtcdCluster. */
export interface EtcdMember {
  /** Its etcd name, e1, e2, … */
  readonly name: string;
  /** Its client URL. */
  readonly endpoint: string;
  /** Its directory (data and log). */
  readonly dir: string;
  /** Whether its process runs: false after `kill()` until `restart()`. */
  readonly running: boolean;
  /** Kills it (SIGKILL) and keeps its data. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data; resolves once it answers /health (it has a leader). */
  restart(): Promise<void>;
}

/** What one running member says about itself (etcd's maintenance status). */
export interface EtcdMemberStatus {
  readonly member: EtcdMember;
  /** Its etcd member id. */
  readonly id: string;
  /** The id of the member it follows as leader; '0' when it knows none. */
  readonly leader: string;
  /** Its current revision (applied). */
  readonly revision: number;
  readonly raftTerm: number;
}

/** A cluster of etcd members on loopback, started by a test. */
export interface EtcdCluster extends AsyncDisposable {
  readonly members: readonly EtcdMember[];
  /** Every member's client URL, as EtcdStore's `endpoints` option wants them. */
  readonly endpoints: readonly string[];
  /** The temporary directory holding every member's. */
  readonly dir: string;
  /** The running members' status; members that do not answer within 1 s are left out. */
  status(): Promise<EtcdMemberStatus[]>;
  /**
   * The leader every running member names, once they agree and it is itself running; waits up to
   * `timeoutMs` (default 20 s), then throws.
   */
  leader(timeoutMs?: number): Promise<EtcdMember>;
  /**
   * Waits up to `timeoutMs` (default 20 s) until every member runs, agrees on one leader and has
   * applied the same revision; throws otherwise.
   */
  waitConverged(timeoutMs?: number): Promise<EtcdMemberStatus[]>;
  /** Kills every member and removes the directory. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts a cluster of `size` (default 3) etcd members on free loopback ports, each in its own
 * directory under a new temporary one, with a fresh --initial-cluster-token; resolves once every
 * member answers /health. Members are killed and their directories removed by `stop()`, by
 * `await using`, or when this process exits.
 */
export async function startEtcdCluster(options: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  const binary = options.binary ?? etcdBinary();
  if (!existsSync(binary)) {
    throw new Error(`etcd is not installed at ${binary}: install Debian's etcd-server (.ci/run does) or set SETPOINT_ETCD`);
  }
  const size = options.size ?? 3;
  if (!Number.isInteger(size) || size < 1) throw new Error(`a cluster needs at least one member, not ${size}`);
  installExitHook();
  const dir = mkdtempSync(join(tmpdir(), 'setpoint-etcd-cluster-'));
  const root = { child: undefined, dir };
  live.add(root);
  const entries = Array.from({ length: size }, (_, i) => ({ child: undefined as ChildProcess | undefined, dir: join(dir, `e${i + 1}`) }));
  for (const entry of entries) {
    mkdirSync(entry.dir);
    live.add(entry);
  }
  const timeoutMs = options.startTimeoutMs ?? 20_000;
  const heartbeatMs = options.heartbeatMs ?? 100;
  const electionTimeoutMs = options.electionTimeoutMs ?? 1000;
  let specs: MemberSpec[] = [];
  const launch = async (i: number, deadline: number): Promise<void> => {
    const spec = specs[i]!;
    const entry = entries[i]!;
    const child = spawn(binary, memberArgs(spec, options), { stdio: 'ignore' });
    child.unref();
    entry.child = child;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await waitHealthy(`http://127.0.0.1:${spec.clientPort}`, exited, deadline, () => logTail(spec.dir));
  };
  const stopAll = async (): Promise<void> => {
    await Promise.all(entries.map((e) => killChild(e)));
  };

  // A port found free can be taken before etcd binds it: start over with new ports and a new token.
  for (let attempt = 1; ; attempt++) {
    const ports = await freePorts(2 * size);
    const token = `setpoint-${process.pid}-${Date.now()}-${attempt}`;
    const names = entries.map((_, i) => `e${i + 1}`);
    const initialCluster = names.map((name, i) => `${name}=http://127.0.0.1:${ports[2 * i + 1]!}`).join(',');
    specs = entries.map((entry, i) => ({
      name: names[i]!,
      dir: entry.dir,
      clientPort: ports[2 * i]!,
      peerPort: ports[2 * i + 1]!,
      initialCluster,
      token,
      heartbeatMs,
      electionTimeoutMs,
    }));
    const deadline = Date.now() + timeoutMs;
    const started = await Promise.allSettled(entries.map((_, i) => launch(i, deadline)));
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed === undefined) break;
    await stopAll();
    if (attempt >= 3) {
      for (const entry of [...entries, root]) live.delete(entry);
      rmSync(dir, { recursive: true, force: true });
      throw failed.reason;
    }
    for (const entry of entries) rmSync(join(entry.dir, 'data'), { recursive: true, force: true });
  }

  let stopped = false;
  const members: EtcdMember[] = entries.map((entry, i) => {
    const spec = specs[i]!;
    return {
      name: spec.name,
      endpoint: `http://127.0.0.1:${spec.clientPort}`,
      dir: entry.dir,
      get running() {
        return entry.child !== undefined;
      },
      kill: () => killChild(entry),
      async restart() {
        if (stopped) throw new Error('this etcd cluster was stopped');
        await killChild(entry);
        await launch(i, Date.now() + timeoutMs);
      },
    };
  });

  const status = async (): Promise<EtcdMemberStatus[]> => {
    const answers = await Promise.all(members.filter((m) => m.running).map((m) => memberStatus(m)));
    return answers.filter((s): s is EtcdMemberStatus => s !== undefined);
  };
  const agreedLeader = (statuses: EtcdMemberStatus[]): EtcdMember | undefined => {
    const running = members.filter((m) => m.running);
    if (statuses.length !== running.length || statuses.length === 0) return undefined;
    const leader = statuses[0]!.leader;
    if (leader === '0' || statuses.some((s) => s.leader !== leader)) return undefined;
    return statuses.find((s) => s.id === leader)?.member;
  };
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await stopAll();
    for (const entry of [...entries, root]) live.delete(entry);
    rmSync(dir, { recursive: true, force: true });
  };
  return {
    members,
    endpoints: members.map((m) => m.endpoint),
    dir,
    status,
    async leader(ms = 20_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const statuses = await status();
        const leader = agreedLeader(statuses);
        if (leader !== undefined) return leader;
        if (Date.now() >= deadline) throw new Error(`the etcd members did not agree on a running leader within ${ms} ms: ${describeStatuses(statuses)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async waitConverged(ms = 20_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const statuses = await status();
        const converged =
          members.every((m) => m.running) &&
          agreedLeader(statuses) !== undefined &&
          statuses.every((s) => s.revision === statuses[0]!.revision);
        if (converged) return statuses;
        if (Date.now() >= deadline) throw new Error(`the etcd cluster did not converge within ${ms} ms: ${describeStatuses(statuses)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** A member's maintenance status through etcd's JSON gateway; undefined when it does not answer. */
async function memberStatus(member: EtcdMember): Promise<EtcdMemberStatus | undefined> {
  try {
    const res = await fetch(`${member.endpoint}/v3/maintenance/status`, { method: 'POST', body: '{}', signal: AbortSignal.timeout(1000) });
    if (!res.ok) return undefined;
    const body = (await res.json()) as { header?: { member_id?: string; revision?: string; raft_term?: string }; leader?: string };
    const id = body.header?.member_id;
    if (id === undefined) return undefined;
    return { member, id, leader: body.leader ?? '0', revision: Number(body.header?.revision ?? 0), raftTerm: Number(body.header?.raft_term ?? 0) };
  } catch {
    return undefined;
  }
}

function describeStatuses(statuses: readonly EtcdMemberStatus[]): string {
  if (statuses.length === 0) return 'no member answered';
  return statuses.map((s) => `${s.member.name} (id ${s.id}) leader ${s.leader} revision ${s.revision} term ${s.raftTerm}`).join('; ');
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
