/**
 * Helpers for the agent's tests: waiting for a condition with a deadline (never a fixed sleep),
 * temporary data dirs, pods bound to a node, and an agent on the process runtime that a test stops
 * and cleans up (every process it started killed).
 */
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Container, Pod } from '@setpoint/api';
import type { Client } from '@setpoint/client';
import { runAgent, type AgentOptions } from '../agent.js';
import { ProcessRuntime, type ProcessRuntimeOptions } from '../runtime/process.js';

/** Polls `check` every 20 ms until it returns something other than undefined or false; throws after `ms`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`, { cause: last });
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A temporary directory, removed on dispose (retrying while a pod just killed still writes into it:
 * ENOTEMPTY); with `mode` (0o777: where a test's pods leave files,
 * since they run as users of their own when the tests run as root), chmod-ed to it.
 */
export async function tempDir(prefix = 'setpoint-agent-', mode?: number): Promise<{ readonly path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), prefix));
  if (mode !== undefined) await chmod(path, mode);
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) };
}

/** A container running `node -e script` (the test's own node binary). */
export function nodeContainer(name: string, script: string, extra: Partial<Container> = {}): Container {
  return { name, image: 'setpoint.dev/node:recorded-not-pulled', command: [process.execPath, '-e', script], ...extra };
}

/** A pod bound to `nodeName` at creation. */
export function boundPod(namespace: string, name: string, nodeName: string, containers: Container[], spec: Partial<NonNullable<Pod['spec']>> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace }, spec: { nodeName, containers, ...spec } };
}

/** Whether a process with `pid` exists (and is not a zombie). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/\) [ZX] /.test(stat);
  } catch {
    return true;
  }
}

export interface TestAgent extends AsyncDisposable {
  readonly runtime: ProcessRuntime;
  /** Stops the agent, then kills every pod process it holds. */
  stop(): Promise<void>;
}

/** Runs an agent on a process runtime of its own (so the test can kill its processes at the end). */
export function startProcessAgent(
  client: Client,
  options: { nodeName: string; dataDir: string } & Partial<Omit<ProcessRuntimeOptions, 'client' | 'dataDir'>> & Partial<Omit<AgentOptions, 'client' | 'runtime' | 'signal'>>,
): TestAgent {
  // Pods that run as users of their own (tests run as root) keep their files in one shared test directory.
  const runtime = new ProcessRuntime({ client, podsRoot: join(tmpdir(), 'setpoint-test-pods'), ...options });
  const abort = new AbortController();
  const done = runAgent({ ...options, client, runtime, signal: abort.signal });
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      abort.abort();
      await done;
      await runtime.killAll(0);
    })());
  return { runtime, stop, [Symbol.asyncDispose]: stop };
}
