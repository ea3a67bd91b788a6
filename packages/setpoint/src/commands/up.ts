/**
 * `setpoint up`: the whole control plane in one process, on the embedded store: the API server,
 * the built-in controllers, the scheduler, and a node agent for this machine that runs pods as
 * local processes (`--agents 0` runs none; `--simulate-nodes K` adds K simulated nodes).
 */
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { runAgent, runSimulatedNodes } from '@setpoint/agent';
import { Client, Manager } from '@setpoint/client';
import { registerBuiltinControllers, registerScheduler } from '@setpoint/controllers';
import { createLogger } from '../logging.js';
import { addServerFlags, startServer, untilSignal, type ServerFlags } from './server.js';

interface UpFlags extends ServerFlags {
  agents: string;
  simulateNodes: string;
}

function wholeNumber(text: string, flag: string, max = Infinity): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > max) throw new Error(`${flag} must be a whole number${max < Infinity ? ` from 0 to ${max}` : ''}, not "${text}"`);
  return n;
}

export function registerUp(program: Command): void {
  addServerFlags(program.command('up').description('run the control plane on this machine'))
    .option('--agents <n>', 'node agents for this machine that run pods as processes (0 or 1)', '1')
    .option('--simulate-nodes <k>', 'also run K simulated nodes (they report pods Running without starting them)', '0')
    .action(async (flags: UpFlags) => {
      const agents = wholeNumber(flags.agents, '--agents', 1);
      const simulated = wholeNumber(flags.simulateNodes, '--simulate-nodes');
      // The console says what started and where; details go to a log file in the data dir.
      const logFile = join(resolve(flags.dataDir), 'setpoint.log');
      const logger = createLogger(flags.logLevel, logFile);
      const running = await startServer(flags, logger);
      // The controllers and the scheduler talk to the API server like any client, in this process.
      const client = new Client(running.connection, { qps: 500, burst: 1000 });
      const manager = new Manager({ client, logger });
      const controllers = registerBuiltinControllers(manager);
      registerScheduler(manager);
      const stop = new AbortController();
      const managed = manager.start(stop.signal);
      const nodeName = hostname().toLowerCase();
      const workers: Promise<void>[] = [];
      if (agents > 0) {
        const dataDir = join(resolve(flags.dataDir), 'agent', nodeName);
        workers.push(runAgent({ client, nodeName, dataDir, runtime: 'process', logger, signal: stop.signal }));
      }
      if (simulated > 0) workers.push(runSimulatedNodes({ client, count: simulated, namePrefix: 'sim-', logger, signal: stop.signal }));
      console.log(`setpoint: API server ready at ${running.server.url} (store: ${running.store.backend})`);
      console.log(`setpoint: controllers (${controllers.join(', ')}) and scheduler running`);
      console.log(`setpoint: export KUBECONFIG=${running.kubeconfigPath}`);
      console.log(`setpoint: logs in ${logFile}`);
      if (agents > 0) console.log(`setpoint: node agent for ${nodeName} running pods as local processes`);
      if (simulated > 0) console.log(`setpoint: ${simulated} simulated nodes (sim-0 … sim-${simulated - 1})`);
      console.log('setpoint: press Ctrl-C to stop (pods keep running; the next up adopts them).');
      await untilSignal();
      stop.abort();
      await Promise.all([managed, ...workers]);
      client.close();
      await running.stop();
      console.log('setpoint: stopped.');
    });
}
