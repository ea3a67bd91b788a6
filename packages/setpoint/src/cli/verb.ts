/**
 * The frame every client verb runs in: connect, run, close the client, and turn any failure into
 * one `error: …` line on stderr and a non-zero exit code (never a stack trace).
 */
import { connect, type Connection, type ConnectionFlags } from './connect.js';
import { failureLine, type FailureContext } from './errors.js';
import { CliError, type CliIO } from './io.js';

/** Writes `error: line` and marks the run failed (the verb goes on with its other objects). */
export function reportFailure(io: CliIO, line: string): void {
  io.stderr.write(`error: ${line}\n`);
  if (io.exitCode === 0) io.exitCode = 1;
}

/**
 * Runs `action` with a connection made from `flags`; closes it afterwards. A thrown error is
 * reported as one line (naming the server for connection failures) and sets the exit code.
 */
export async function runClientVerb(io: CliIO, flags: ConnectionFlags, action: (connection: Connection) => Promise<void>): Promise<void> {
  const context: { server?: string } = {};
  await runVerb(io, context, async () => {
    const connection = await connect(flags, io);
    context.server = connection.server;
    try {
      await action(connection);
    } finally {
      connection.client.close();
    }
  });
}

/** Runs `action`, reporting what it throws as one line with `context`. */
export async function runVerb(io: CliIO, context: FailureContext, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (err) {
    // Interrupted (Ctrl-C) while a request was under way: no error line, the shell's 130.
    if (io.signal.aborted && err === io.signal.reason) {
      io.exitCode = 130;
      return;
    }
    reportFailure(io, failureLine(err, context));
    io.exitCode = err instanceof CliError ? err.exitCode : 1;
  }
}

/** The value of a flag that must be a whole number; throws CliError naming the flag. */
export function wholeNumber(text: string, flag: string): number {
  if (!/^-?\d+$/.test(text)) throw new CliError(`${flag} must be a whole number, not "${text}"`);
  return Number(text);
}
