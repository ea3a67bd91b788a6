/**
 * `setpoint up`: the whole control plane in one process, on the embedded store: the API server,
 * the built-in controllers and the scheduler. The node agent joins here when it lands.
 */
import type { Command } from 'commander';
import { Client, Manager } from '@setpoint/client';
import { registerBuiltinControllers, registerScheduler } from '@setpoint/controllers';
import { createLogger } from '../logging.js';
import { addServerFlags, startServer, untilSignal, type ServerFlags } from './server.js';

export function registerUp(program: Command): void {
  addServerFlags(program.command('up').description('run the control plane on this machine')).action(async (flags: ServerFlags) => {
    const logger = createLogger(flags.logLevel);
    const running = await startServer(flags, logger);
    // The controllers and the scheduler talk to the API server like any client, in this process.
    const client = new Client(running.connection, { qps: 500, burst: 1000 });
    const manager = new Manager({ client, logger });
    const controllers = registerBuiltinControllers(manager);
    registerScheduler(manager);
    const stop = new AbortController();
    const managed = manager.start(stop.signal);
    console.log(`setpoint: API server ready at ${running.server.url} (store: ${running.store.backend})`);
    console.log(`setpoint: controllers (${controllers.join(', ')}) and scheduler running`);
    console.log(`setpoint: export KUBECONFIG=${running.kubeconfigPath}`);
    console.log('setpoint: no node agent yet: pods stay Pending until one runs. Press Ctrl-C to stop.');
    await untilSignal();
    stop.abort();
    await managed;
    client.close();
    await running.stop();
    console.log('setpoint: stopped.');
  });
}
