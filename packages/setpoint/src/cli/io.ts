/**
 * What a client verb (get, apply, delete, ...) reads and writes: its standard streams, the
 * environment, a signal that ends long operations, and the exit code it ends with. The process
 * passes its own (processIO); tests pass captured streams and run verbs in-process.
 */
import { signalOnTermination } from '@setpoint/client';

/** Where text goes: a stream (process.stdout) or a test's buffer. */
export interface TextOutput {
  write(text: string): unknown;
}

export interface CliIO {
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  /** Read by `apply -f -` and `delete -f -`. */
  readonly stdin: NodeJS.ReadableStream;
  /** HOME and KUBECONFIG are read from here. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stderr is a terminal: progress lines are drawn only then. */
  readonly stderrIsTTY: boolean;
  /** Ends streaming verbs (get -w, logs -f) and waits: Ctrl-C for the process, the test's controller in tests. */
  readonly signal: AbortSignal;
  /** 0 until a verb fails; the process exits with it. */
  exitCode: number;
}

/** The process's streams; the signal (SIGINT/SIGTERM handlers) is made on first use only. */
export function processIO(): CliIO {
  let signal: AbortSignal | undefined;
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    stderrIsTTY: process.stderr.isTTY === true,
    get signal() {
      signal ??= signalOnTermination();
      return signal;
    },
    exitCode: 0,
  };
}

/**
 * A failure a verb reports as one line (`error: <message>`) and a non-zero exit. `message` is
 * already worded for people: it names the file and the object when there are some.
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message.replace(/\s*\n\s*/g, ' '), options.cause === undefined ? undefined : { cause: options.cause });
    this.exitCode = options.exitCode ?? 1;
  }
}
