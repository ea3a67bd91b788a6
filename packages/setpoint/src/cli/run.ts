/**
 * Running the `setpoint` command with given arguments and streams, in this process: what tests
 * use to run verbs without spawning a process, and what main() runs with the process's streams.
 */
import { CommanderError } from 'commander';
import { buildProgram } from '../cli.js';
import type { CliIO } from './io.js';

/**
 * Parses `args` (without the node and script paths) and runs the command. Resolves with the exit
 * code: the verb's, commander's for usage errors (after it printed them to io.stderr), or 1 when a
 * command threw (the message printed as `setpoint: message`).
 */
export async function runCli(args: readonly string[], io: CliIO): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...args], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    io.stderr.write(`setpoint: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  return io.exitCode;
}
