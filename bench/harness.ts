/**
 * Real processes for the benchmarks: `setpoint server` (and the other `setpoint` commands) run
 * from the sources through tsx, each in its own process, so its CPU and memory are its own; a
 * small keep-alive HTTPS client; and the API server's /metrics read as numbers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'packages/setpoint/src/cli-main.ts');

const stderrTails = new WeakMap<ChildProcess, string>();
const live = new Set<ChildProcess>();
let exitHook = false;

/** Kills every child still running when this process exits (run.ts turns SIGINT/SIGTERM into an exit). */
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
}

/**
 * A `setpoint …` process from the sources, stdout piped. Its stderr is shown, or with `quiet` only
 * kept (the last 4 KB), to explain an early exit.
 */
export function setpointProcess(args: readonly string[], options: { nodeOptions?: readonly string[]; quiet?: boolean } = {}): ChildProcess {
  // BENCH_PROCESS_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles every process a benchmark starts.
  const extra = (process.env.BENCH_PROCESS_NODE_OPTIONS ?? '').split(' ').filter((o) => o !== '');
  const child = spawn(process.execPath, [...extra, ...(options.nodeOptions ?? []), '--conditions=setpoint-src', '--import', 'tsx', cli, ...args], {
    stdio: ['ignore', 'pipe', options.quiet === true ? 'pipe' : 'inherit'],
  });
  child.stderr?.on('data', (chunk: Buffer) => stderrTails.set(child, ((stderrTails.get(child) ?? '') + chunk.toString()).slice(-4096)));
  track(child);
  return child;
}

/** Resolves with the first match of `pattern` on the child's stdout; rejects if it exits first or `timeoutMs` passes. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} on stdout within ${timeoutMs} ms: ${out.slice(-500)}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume(); // keep draining, so a chatty child never blocks on a full pipe
        resolve(m);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`process exited (${code ?? signal}) before printing ${pattern}: ${out.slice(-500)} ${stderrTails.get(child) ?? ''}`));
    });
  });
}

/** Sends `signal` and waits for the process to exit (SIGKILL after `graceMs`). */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export interface ServerProcess {
  readonly url: string;
  readonly ca: string;
  readonly token: string;
  readonly pid: number;
  readonly dataDir: string;
  /** The admin kubeconfig the server wrote. */
  readonly kubeconfig: string;
  readonly child: ChildProcess;
  /** SIGTERM, wait, remove the data directory. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  /** Default sqlite. */
  readonly store?: 'sqlite' | 'etcd' | 'memory';
  readonly etcdEndpoint?: string;
  /** Further `setpoint server` flags. */
  readonly args?: readonly string[];
  /** Node flags (--max-old-space-size=…). */
  readonly nodeOptions?: readonly string[];
}

/** Starts `setpoint server` on a free port with its data in a new temporary directory. */
export async function startServer(options: ServerOptions = {}): Promise<ServerProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'setpoint-bench-server-'));
  const store = options.store ?? 'sqlite';
  const args = ['server', '--data-dir', dataDir, '--port', '0', '--log-level', 'warn', '--store', store];
  if (store === 'etcd') args.push('--etcd-endpoints', options.etcdEndpoint ?? '');
  const child = setpointProcess([...args, ...(options.args ?? [])], options.nodeOptions ? { nodeOptions: options.nodeOptions } : {});
  let url: string;
  try {
    url = (await waitForOutput(child, /API server at (https?:\/\/[^;\s]+)/))[1]!;
  } catch (err) {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    url,
    ca: url.startsWith('https:') ? readFileSync(join(dataDir, 'ca.crt'), 'utf8') : '',
    token: readFileSync(join(dataDir, 'admin.token'), 'utf8').trim(),
    pid: child.pid!,
    dataDir,
    kubeconfig: join(dataDir, 'kubeconfig.yaml'),
    child,
    async stop() {
      await stopProcess(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Response {
  readonly status: number;
  readonly text: string;
}

/** A keep-alive HTTPS client of one server with the admin token, at most `sockets` connections. */
export class ApiClient {
  readonly agent: https.Agent;
  private readonly base: URL;

  constructor(
    private readonly server: Pick<ServerProcess, 'url' | 'ca' | 'token'>,
    sockets: number,
  ) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca: server.ca });
    this.base = new URL(server.url);
  }

  call(method: string, path: string, body?: unknown): Promise<Response> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = https.request(
        {
          host: this.base.hostname,
          port: this.base.port,
          path,
          method,
          agent: this.agent,
          headers: { authorization: `Bearer ${this.server.token}`, 'content-type': 'application/json', accept: 'application/json' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** Throws unless the status is `expected`. */
  async expect(expected: number, method: string, path: string, body?: unknown): Promise<Response> {
    const res = await this.call(method, path, body);
    if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
    return res;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** One sample of a Prometheus text exposition: name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** Parses Prometheus text format (the subset prom-client writes). */
export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[4]) });
  }
  return out;
}

/** GET /metrics of the API server. */
export async function scrape(client: ApiClient): Promise<Sample[]> {
  return parseMetrics((await client.expect(200, 'GET', '/metrics')).text);
}

/** The sum of the samples named `name` whose labels include `match`. */
export function metricSum(samples: readonly Sample[], name: string, match: Readonly<Record<string, string>> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(match).every(([k, v]) => s.labels[k] === v)).reduce((a, s) => a + s.value, 0);
}

/**
 * The q-quantile (0–1) of a histogram from cumulative buckets (summed over the label sets that
 * match, optionally as the difference between two scrapes), interpolated linearly inside the
 * bucket as Prometheus' histogram_quantile does. NaN without observations.
 */
export function histogramQuantile(q: number, samples: readonly Sample[], name: string, match: Readonly<Record<string, string>> = {}, before: readonly Sample[] = []): number {
  const buckets = (list: readonly Sample[]) => {
    const byLe = new Map<number, number>();
    for (const s of list) {
      if (s.name !== `${name}_bucket` || !Object.entries(match).every(([k, v]) => s.labels[k] === v)) continue;
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      byLe.set(le, (byLe.get(le) ?? 0) + s.value);
    }
    return byLe;
  };
  const now = buckets(samples);
  const then = buckets(before);
  const les = [...now.keys()].sort((a, b) => a - b);
  const counts = les.map((le) => (now.get(le) ?? 0) - (then.get(le) ?? 0));
  const total = counts[counts.length - 1] ?? 0;
  if (total <= 0) return NaN;
  const rank = q * total;
  for (let i = 0; i < les.length; i++) {
    if (counts[i]! >= rank) {
      const hi = les[i]!;
      const lo = i === 0 ? 0 : les[i - 1]!;
      if (hi === Infinity) return lo;
      const below = i === 0 ? 0 : counts[i - 1]!;
      const inBucket = counts[i]! - below;
      return inBucket <= 0 ? hi : lo + ((hi - lo) * (rank - below)) / inBucket;
    }
  }
  return NaN;
}
