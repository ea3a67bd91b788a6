/**
 * `setpoint up`: the whole control plane in one process, on the embedded store: the API server,
 * the built-in controllers, the scheduler, and a node agent for this machine that runs pods as
 * local processes (`--agents 0` runs none; `--simulate-nodes K` adds K simulated nodes). The
 * agent serves its containers' logs to the API server (`kubectl logs`) on a free port of the
 * --host address, authenticated as the cluster's agents are (see commands/agent.ts).
 */
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { runAgent, runSimulatedNodes, type KubeletServerOptions } from '@setpoint/agent';
import { ADMIN_USER, CONTROLLER_MANAGER_IDENTITY, SCHEDULER_IDENTITY, SIMULATED_NODES_IDENTITY, agentIdentity, ensureAgentServingCertificate, ensureComponentCredentials, type ComponentCredential } from '@setpoint/apiserver';
import { Client, Manager } from '@setpoint/client';
import { registerBuiltinControllers, registerScheduler } from '@setpoint/controllers';
import { isLoopbackHost } from '../flags.js';
import { createPrivateFile, reportTightened, tightenDataDir } from '../datadir.js';
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
      // The data dir is private (datadir.ts), the log in it too: made so before the log is opened.
      const tightened = tightenDataDir(resolve(flags.dataDir));
      createPrivateFile(logFile);
      const logger = createLogger(flags.logLevel, logFile);
      reportTightened(logger, resolve(flags.dataDir), tightened);
      const running = await startServer(flags, logger);
      const nodeName = hostname().toLowerCase();
      const agentDir = join(resolve(flags.dataDir), 'agent', nodeName);
      // The agent's endpoint listens where the API server does (loopback by default) and is reported there.
      const host = isLoopbackHost(flags.host) ? '127.0.0.1' : flags.host;
      let kubeletServer: KubeletServerOptions | undefined;
      let agentCredential: ComponentCredential | undefined;
      let simulatedCredential: ComponentCredential | undefined;
      try {
        if (agents > 0 && running.kubelet.ca !== undefined) {
          kubeletServer = { port: 0, host, tls: await ensureAgentServingCertificate({ dir: agentDir, logger }), clientCA: running.kubelet.ca };
        } else if (agents > 0 && running.kubelet.token !== undefined) {
          kubeletServer = { port: 0, host, token: running.kubelet.token };
        }
        // This node's agent identity (CN system:node:<node>, O system:nodes), for an agent run on its own.
        if (running.kubelet.ca !== undefined) {
          [agentCredential] = await ensureComponentCredentials({ dataDir: resolve(flags.dataDir), server: running.server.url, identities: [agentIdentity(nodeName)], logger });
          // Simulated nodes: one identity for all of them, bound to system:node's rules.
          if (simulated > 0) {
            [simulatedCredential] = await ensureComponentCredentials({ dataDir: resolve(flags.dataDir), server: running.server.url, identities: [SIMULATED_NODES_IDENTITY], logger });
          }
        }
      } catch (err) {
        await running.stop();
        throw err;
      }
      // The controllers, the scheduler and the agent talk to the API server like any client, in this
      // process, each as itself (client certificates of the cluster CA; RBAC and the node
      // authorizer give each only what it needs). Without TLS (--insecure-http) there are no such
      // certificates and they use the admin token. Simulated nodes share one identity
      // (setpoint:simulated-nodes, bound to system:node's rules: one client acts for many nodes).
      const client = new Client(running.connection, { qps: 500, burst: 1000 });
      const identity = (credential: ComponentCredential | undefined) => (credential === undefined ? client : new Client(credential.config, { qps: 500, burst: 1000 }));
      const cmClient = identity(running.components.find((c) => c.identity.name === CONTROLLER_MANAGER_IDENTITY.name));
      const schedulerClient = identity(running.components.find((c) => c.identity.name === SCHEDULER_IDENTITY.name));
      const agentClient = identity(agentCredential);
      const manager = new Manager({ client: cmClient, logger });
      const controllers = registerBuiltinControllers(manager);
      const schedulerManager = new Manager({ client: schedulerClient, logger });
      registerScheduler(schedulerManager);
      // All in one process: the API server serves the components' metrics to authorized users
      // (the dashboard's Controllers page) at /metrics/components/NAME, read from their registries.
      running.server.serveComponentMetrics('controller-manager', () => manager.metrics.registry.metrics());
      running.server.serveComponentMetrics('scheduler', () => schedulerManager.metrics.registry.metrics());
      const stop = new AbortController();
      const managed = Promise.all([manager.start(stop.signal), schedulerManager.start(stop.signal)]);
      const workers: Promise<void>[] = [];
      if (agents > 0) {
        workers.push(runAgent({ client: agentClient, nodeName, dataDir: agentDir, runtime: 'process', ...(kubeletServer === undefined ? {} : { kubeletServer }), logger, signal: stop.signal }));
      }
      if (simulated > 0) workers.push(runSimulatedNodes({ client: identity(simulatedCredential), count: simulated, namePrefix: 'sim-', logger, signal: stop.signal }));
      console.log(`setpoint: API server ready at ${running.server.url} (store: ${running.store.backend})`);
      console.log(`setpoint: controllers (${controllers.join(', ')}) and scheduler running`);
      console.log(`setpoint: export KUBECONFIG=${running.kubeconfigPath}`);
      console.log(`setpoint: logs in ${logFile}`);
      const link = running.server.dashboardLink(ADMIN_USER);
      console.log(`setpoint: dashboard: ${running.server.url}${link.path}`);
      console.log('setpoint:   (a one-time sign-in link, valid 5 minutes; `setpoint dashboard` prints a new one)');
      if (agents > 0) console.log(`setpoint: node agent for ${nodeName} running pods as local processes`);
      if (simulated > 0) console.log(`setpoint: ${simulated} simulated nodes (sim-0 … sim-${simulated - 1})`);
      console.log('setpoint: press Ctrl-C to stop (pods keep running; the next up adopts them).');
      await untilSignal();
      stop.abort();
      await Promise.all([managed, ...workers]);
      for (const c of new Set([client, cmClient, schedulerClient, agentClient])) c.close();
      await running.stop();
      console.log('setpoint: stopped.');
    });
}
