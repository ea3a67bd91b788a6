/**
 * `setpoint up`: the whole control plane in one process, on the embedded store. Today that is the
 * API server; the controller-manager, scheduler and node agent join here as their issues land.
 */
import type { Command } from 'commander';
import { createLogger } from '../logging.js';
import { addServerFlags, startServer, untilSignal, type ServerFlags } from './server.js';

export function registerUp(program: Command): void {
  addServerFlags(program.command('up').description('run the control plane on this machine')).action(async (flags: ServerFlags) => {
    const logger = createLogger(flags.logLevel);
    const running = await startServer(flags, logger);
    console.log(`setpoint: API server ready at ${running.server.url} (store: ${running.store.backend})`);
    console.log(`setpoint: export KUBECONFIG=${running.kubeconfigPath}`);
    console.log('setpoint: runs the API server only so far; controllers, scheduler and node agent come with later releases.');
    console.log('setpoint: press Ctrl-C to stop.');
    await untilSignal();
    await running.stop();
    console.log('setpoint: stopped.');
  });
}
