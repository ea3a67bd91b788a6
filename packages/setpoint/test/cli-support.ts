/**
 * Test support for the client verbs: run `setpoint VERB …` in this process against an in-process
 * control plane, with captured stdout and stderr, a given stdin, and an AbortController standing in
 * for Ctrl-C.
 */
import { Readable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import type { CliIO } from '../src/cli/io.js';
import { runCli } from '../src/cli/run.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface RunOptions {
  readonly stdin?: string;
  readonly env?: Record<string, string | undefined>;
  /** Aborting it ends streaming verbs (get -w, logs -f). */
  readonly signal?: AbortSignal;
  readonly tty?: boolean;
  /** Called with each chunk written to stdout. */
  readonly onStdout?: (all: string) => void;
}

/** Captured streams for one run. */
export function captureIO(options: RunOptions = {}): CliIO & { out: () => string; err: () => string } {
  let stdout = '';
  let stderr = '';
  return {
    stdout: {
      write: (text: string) => {
        stdout += text;
        options.onStdout?.(stdout);
        return true;
      },
    },
    stderr: { write: (text: string) => ((stderr += text), true) },
    stdin: Readable.from([Buffer.from(options.stdin ?? '')]),
    env: options.env ?? { HOME: '/nonexistent-home' },
    stderrIsTTY: options.tty === true,
    signal: options.signal ?? new AbortController().signal,
    exitCode: 0,
    out: () => stdout,
    err: () => stderr,
  };
}

/** Runs the CLI with `args` and captured streams. */
export async function runSetpoint(args: readonly string[], options: RunOptions = {}): Promise<CliResult> {
  const io = captureIO(options);
  const code = await runCli(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

/** A control plane, a kubeconfig for it, and `setpoint` bound to that kubeconfig. */
export interface CliFixture extends AsyncDisposable {
  readonly cp: ControlPlane;
  readonly kubeconfig: string;
  /** A scratch directory, removed at the end. */
  readonly dir: string;
  run(args: readonly string[], options?: RunOptions): Promise<CliResult>;
}

export async function startCliFixture(): Promise<CliFixture> {
  const cp = await startControlPlane();
  const kubeconfig = await cp.kubeconfig();
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-cli-'));
  const dispose = async () => {
    await cp.stop();
    await rm(dir, { recursive: true, force: true });
  };
  return {
    cp,
    kubeconfig,
    dir,
    run: (args, options) => runSetpoint([...args, '--kubeconfig', kubeconfig], options),
    [Symbol.asyncDispose]: dispose,
  };
}

/** Waits for `check` to return a value, polling every 20 ms, failing after `ms`. */
export async function eventually<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
