/**
 * `setpoint` commands as real child processes for the process tests (sources run by tsx): started,
 * awaited until their output says they are ready, stopped. Each caller stops what it started.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const cliMain = join(dirname(fileURLToPath(import.meta.url)), '../src/cli-main.ts');

/** A started `setpoint` process. */
export interface SetpointProcess {
  readonly child: ChildProcess;
  /** Its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** Everything it printed so far, stdout and stderr. */
  output(): string;
  /** SIGTERM (unless it already exited), then waits for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts `setpoint ARGS…` and resolves once its output matches `ready`; rejects (after killing it)
 * when it exits first or does not get ready within `startMs` (default 60 s).
 */
export async function startSetpoint(args: readonly string[], ready: RegExp, options: { env?: NodeJS.ProcessEnv; startMs?: number } = {}): Promise<SetpointProcess> {
  const child = spawn(process.execPath, ['--conditions=setpoint-src', '--import', 'tsx', cliMain, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let output = '';
  const proc: SetpointProcess = {
    child,
    exited,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  const startMs = options.startMs ?? 60_000;
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`setpoint ${args[0]} did not start within ${startMs / 1000} s:\n${output}`)), startMs);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (ready.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`setpoint ${args[0]} exited with ${code}:\n${output}`));
      });
    });
  } catch (err) {
    await proc.stop();
    throw err;
  }
  return proc;
}

/** `setpoint up --port 0 ARGS…` with HOME set to `home`, ready once it says how to stop it. */
export function startUp(home: string, args: readonly string[] = []): Promise<SetpointProcess> {
  return startSetpoint(['up', '--port', '0', ...args], /press Ctrl-C/, { env: { ...process.env, HOME: home } });
}
