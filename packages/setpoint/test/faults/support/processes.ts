/**
 * Setpoint's commands as real processes for the fault tests: started through the CLI (sources run
 * by tsx, as the other process tests do), each the leader of its own process group, so that the test
 * can SIGKILL, SIGSTOP and SIGCONT it — and whatever it started — by pid.
 *
 * Guarantees: every process started here is killed (SIGCONT, then SIGKILL to its group) by
 * `stopAll()`, and — if the test process dies first — by an exit hook, so no fault test leaves a
 * server, controller or agent behind. Output is kept (the last 256 KiB) for failure messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const cliMain = join(dirname(fileURLToPath(import.meta.url)), '../../../src/cli-main.ts');

const OUTPUT_LIMIT = 256 * 1024;
const live = new Set<Proc>();
let hooked = false;

/** A started process. */
export class Proc {
  readonly child: ChildProcess;
  readonly name: string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  #output = '';
  #listeners = new Set<() => void>();

  constructor(name: string, command: string, args: readonly string[], env?: NodeJS.ProcessEnv) {
    this.name = name;
    this.child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: env ?? process.env });
    const onData = (chunk: Buffer) => {
      this.#output += chunk.toString();
      if (this.#output.length > OUTPUT_LIMIT) this.#output = this.#output.slice(-OUTPUT_LIMIT / 2);
      for (const l of this.#listeners) l();
    };
    this.child.stdout!.on('data', onData);
    this.child.stderr!.on('data', onData);
    this.exited = new Promise((resolve) =>
      this.child.once('exit', (code, signal) => {
        live.delete(this);
        for (const l of this.#listeners) l();
        resolve({ code, signal });
      }),
    );
    live.add(this);
    installExitHook();
  }

  get pid(): number {
    return this.child.pid!;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** What it printed so far (the tail). */
  get output(): string {
    return this.#output;
  }

  /** Resolves with the first match of `pattern` in its output; rejects when it exits first or after `ms`. */
  waitForOutput(pattern: RegExp, ms = 30_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = pattern.exec(this.#output);
        if (m) return done(() => resolve(m));
        if (!this.running) return done(() => reject(new Error(`${this.name} exited (${this.child.exitCode ?? this.child.signalCode}) before printing ${pattern}:\n${this.tail()}`)));
      };
      const timer = setTimeout(() => done(() => reject(new Error(`${this.name} did not print ${pattern} within ${ms} ms:\n${this.tail()}`))), ms);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        settle();
      };
      this.#listeners.add(check);
      check();
    });
  }

  /** Sends `signal` to its whole process group. */
  signal(signal: NodeJS.Signals): void {
    if (!this.running) return;
    try {
      process.kill(-this.pid, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  /** kill -9 of its process group; resolves once it is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.signal('SIGKILL');
    await this.exited;
  }

  /** SIGTERM (after SIGCONT, in case it is stopped); SIGKILL when it has not exited within `ms`. */
  async stop(ms = 10_000): Promise<void> {
    if (!this.running) return;
    this.signal('SIGCONT');
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), ms);
    await this.exited;
    clearTimeout(timer);
  }

  /** The last lines of its output. */
  tail(lines = 40): string {
    return this.#output.split('\n').slice(-lines).join('\n');
  }
}

/**
 * Starts `setpoint ARGS…` (through tsx, from the sources). `wrap` goes before node — e.g.
 * ['ip', 'netns', 'exec', NS], which execs node in place, so the pid is node's.
 */
export function setpoint(name: string, args: readonly string[], options: { wrap?: readonly string[]; env?: NodeJS.ProcessEnv } = {}): Proc {
  const node = [process.execPath, '--conditions=setpoint-src', '--import', 'tsx', cliMain, ...args];
  const [command, ...rest] = [...(options.wrap ?? []), ...node];
  return new Proc(name, command!, rest, options.env);
}

/** Kills every process started here (stopped ones too) and waits until they are gone. */
export async function stopAll(): Promise<void> {
  await Promise.all([...live].map((p) => p.kill()));
}

function installExitHook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', () => {
    for (const p of live) {
      try {
        process.kill(-p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

/** A new temporary directory, and its removal. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `setpoint-fault-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** A running `setpoint server`. */
export interface ServerProc {
  readonly proc: Proc;
  /** Its URL, e.g. https://127.0.0.1:40123. */
  readonly url: string;
  readonly port: number;
}

/**
 * Starts `setpoint server --data-dir DIR --port PORT` (0: a free one) with `extra` flags and resolves
 * once it serves (it prints its URL after /readyz would answer 200).
 */
export async function startServer(dataDir: string, port: number, extra: readonly string[] = [], name = 'server'): Promise<ServerProc> {
  const proc = setpoint(name, ['server', '--data-dir', dataDir, '--port', String(port), '--log-level', 'warn', ...extra]);
  try {
    const m = await proc.waitForOutput(/API server at (https?:\/\/[^;\s]+)/, 60_000);
    const url = m[1]!;
    return { proc, url, port: Number(new URL(url).port) };
  } catch (err) {
    await proc.kill();
    throw err;
  }
}

/** The admin credentials a server wrote into its data dir. */
export async function adminCredentials(dataDir: string): Promise<{ ca: string; token: string }> {
  return {
    ca: await readFile(join(dataDir, 'ca.crt'), 'utf8'),
    token: (await readFile(join(dataDir, 'admin.token'), 'utf8')).trim(),
  };
}

/** Starts `setpoint controller-manager` or `scheduler` and resolves with its health and metrics URL. */
export async function startComponent(name: string, command: 'controller-manager' | 'scheduler', kubeconfig: string, extra: readonly string[] = []): Promise<{ proc: Proc; url: string }> {
  const proc = setpoint(name, [command, '--kubeconfig', kubeconfig, '--port', '0', '--log-level', 'warn', ...extra]);
  try {
    const m = await proc.waitForOutput(/health and metrics on (http:\/\/[^\s]+)/, 60_000);
    return { proc, url: m[1]! };
  } catch (err) {
    await proc.kill();
    throw err;
  }
}
