/**
 * `setpoint agent --kubeconfig F --node-name N [--data-dir D] [--simulate [--nodes K] [--name-prefix P]]`:
 * the node agent. It registers the Node N, renews its Lease in kube-node-lease, and runs the pods
 * bound to it as local processes (records, logs and working directories under the data dir). With
 * --simulate it starts nothing and reports pods Running and Ready after --ready-delay, as KWOK does;
 * with --nodes K, K simulated nodes run in this one process. Stops on SIGINT/SIGTERM; pods keep
 * running, and the next agent on the same data dir adopts them.
 */
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { runAgent, runSimulatedNodes } from '@setpoint/agent';
import { Client, signalOnTermination } from '@setpoint/client';
import { parseDuration } from '../flags.js';
import { createLogger } from '../logging.js';

export interface AgentFlags {
  kubeconfig?: string;
  nodeName?: string;
  dataDir?: string;
  simulate?: boolean;
  nodes?: string;
  namePrefix?: string;
  readyDelay: string;
  logLevel: string;
}

/** A positive integer flag value. */
function parseCount(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1) throw new Error(`${flag} must be a positive whole number, not "${text}"`);
  return n;
}

export function registerAgent(program: Command): void {
  program
    .command('agent')
    .description('run a node agent: register a Node, renew its Lease and run the pods bound to it')
    .option('--kubeconfig <file>', 'kubeconfig of the API server (default: KUBECONFIG or ~/.kube/config)')
    .option('--node-name <name>', 'the Node to register (default: this host name)')
    .option('--data-dir <dir>', "where pods' records, logs and working directories live (default: ~/.setpoint/agent/<node-name>)")
    .option('--simulate', 'start nothing: report pods Running and Ready after --ready-delay, as KWOK does')
    .option('--nodes <k>', 'with --simulate: run K simulated nodes in this process')
    .option('--name-prefix <prefix>', 'with --nodes: node i is named <prefix><i> (default: <node-name>-)')
    .option('--ready-delay <duration>', 'with --simulate: how long a pod stays Pending', '1s')
    .option('--log-level <level>', 'debug, info, warn or error', 'info')
    .action(async (flags: AgentFlags) => {
      await runAgentCommand(flags);
    });
}

/** Runs the agent (or the simulated nodes) the flags ask for, until SIGINT/SIGTERM. */
export async function runAgentCommand(flags: AgentFlags): Promise<void> {
  if (flags.nodes !== undefined && !flags.simulate) throw new Error('--nodes needs --simulate');
  if (flags.namePrefix !== undefined && flags.nodes === undefined) throw new Error('--name-prefix needs --nodes');
  const nodeName = (flags.nodeName ?? hostname()).toLowerCase();
  const readyDelayMs = parseDuration(flags.readyDelay, '--ready-delay');
  const count = flags.nodes === undefined ? undefined : parseCount(flags.nodes, '--nodes');
  const logger = createLogger(flags.logLevel);
  // The kubelet's client limits (50 qps, burst 100); a fleet needs one lease update per node per 10 s on top.
  const qps = Math.max(50, count ?? 0);
  const client = await Client.fromKubeconfig({ ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}), qps, burst: 2 * qps });
  const signal = signalOnTermination();
  try {
    if (count !== undefined) {
      const namePrefix = flags.namePrefix ?? `${nodeName}-`;
      console.log(`setpoint: ${count} simulated nodes running (${namePrefix}0 … ${namePrefix}${count - 1})`);
      await runSimulatedNodes({ client, count, namePrefix, readyDelayMs, logger, signal });
    } else {
      const dataDir = resolve(flags.dataDir ?? join(homedir(), '.setpoint', 'agent', nodeName));
      console.log(`setpoint: agent for node ${nodeName} running (${flags.simulate ? 'simulated pods' : `pods as processes, data in ${dataDir}`})`);
      await runAgent({ client, nodeName, dataDir, runtime: flags.simulate ? 'simulated' : 'process', readyDelayMs, logger, signal });
    }
  } finally {
    client.close();
  }
}
