/**
 * The `setpoint` command: wires Setpoint's packages into processes.
 * Every command is in commands/; this file only registers them.
 */
import { Command, CommanderError } from 'commander';
import { processIO, type CliIO } from './cli/io.js';
import { registerClientVerbs } from './cli/verbs.js';
import { registerAgent } from './commands/agent.js';
import { registerControllerManager } from './commands/controller-manager.js';
import { registerDashboard } from './commands/dashboard.js';
import { registerKubeconfig } from './commands/kubeconfig.js';
import { registerSchedulerCommand } from './commands/scheduler.js';
import { registerServer } from './commands/server.js';
import { registerUp } from './commands/up.js';
import { VERSION } from './version.js';

/** Builds the command tree (exported for tests and shell completion); client verbs use `io`. */
export function buildProgram(io: CliIO = processIO()): Command {
  const program = new Command('setpoint')
    .description('A declarative control plane that speaks the Kubernetes API.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })
    .exitOverride();
  registerUp(program);
  registerServer(program);
  registerControllerManager(program);
  registerSchedulerCommand(program);
  registerAgent(program);
  registerKubeconfig(program, io);
  registerDashboard(program, io);
  registerClientVerbs(program, io);
  return program;
}

/** Runs the CLI with `argv` (process.argv shape). Exits non-zero with a one-line message on failure. */
export async function main(argv: readonly string[]): Promise<void> {
  const io = processIO();
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv]);
    if (io.exitCode !== 0) process.exitCode = io.exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      process.exitCode = err.exitCode;
      return;
    }
    console.error(`setpoint: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
