/**
 * `setpoint agent --kubeconfig F --node-name N [--data-dir D] [--simulate [--nodes K] [--name-prefix P]]`:
 * the node agent. It registers the Node N, renews its Lease in kube-node-lease, and runs the pods
 * bound to it as local processes (records, logs and working directories under the data dir). With
 * --simulate it starts nothing and reports pods Running and Ready after --ready-delay, as KWOK does;
 * with --nodes K, K simulated nodes run in this one process. Stops on SIGINT/SIGTERM; pods keep
 * running, and the next agent on the same data dir adopts them.
 *
 * Container logs (`kubectl logs`): the agent serves them to the API server on --kubelet-port
 * (default 10250, as the kubelet; 0 picks a free one), reported on its Node. When the kubeconfig
 * trusts a CA (certificate-authority-data), it serves HTTPS with a self-signed certificate
 * (DATA/kubelet.crt) and accepts only client certificates of that CA with the API server's
 * identity (CN kube-apiserver-kubelet-client); with --kubelet-token-file (for API servers on
 * plain HTTP), requests bearing that token. With neither, it serves no logs (and says so).
 */
import { homedir, hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { Logger } from '@setpoint/api';
import { runAgent, runSimulatedNodes, type KubeletServerOptions } from '@setpoint/agent';
import { ensureAgentServingCertificate, ensureKubeletToken } from '@setpoint/apiserver';
import { Client, signalOnTermination } from '@setpoint/client';
import { parseDuration, parsePort } from '../flags.js';
import { reportTightened, tightenDataDir } from '../datadir.js';
import { createLogger } from '../logging.js';

export interface AgentFlags {
  kubeconfig?: string;
  nodeName?: string;
  dataDir?: string;
  simulate?: boolean;
  nodes?: string;
  namePrefix?: string;
  readyDelay: string;
  kubeletPort: string;
  kubeletAddress: string;
  kubeletTokenFile?: string;
  nodeLeaseDurationSeconds: string;
  nodeStatusUpdateFrequency: string;
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
    .option('--kubelet-port <n>', "port of the agent's endpoint (container logs for the API server); 0 picks a free one", '10250')
    .option('--kubelet-address <ip>', "address the agent's endpoint listens on (a specific one is reported as the node's InternalIP)", '0.0.0.0')
    .option('--kubelet-token-file <file>', 'accept log requests bearing this token (API servers on plain HTTP: their DATA/kubelet-client.token)')
    .option('--node-lease-duration-seconds <n>', "the node Lease's duration; the agent renews it every quarter of it, as the kubelet", '40')
    .option('--node-status-update-frequency <duration>', "how often the node's status is computed and posted when it changed", '10s')
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
  const leaseDurationSeconds = parseCount(flags.nodeLeaseDurationSeconds ?? '40', '--node-lease-duration-seconds');
  const heartbeat = {
    leaseDurationSeconds,
    leaseRenewIntervalMs: leaseDurationSeconds * 250,
    statusCheckIntervalMs: parseDuration(flags.nodeStatusUpdateFrequency ?? '10s', '--node-status-update-frequency'),
  };
  const logger = createLogger(flags.logLevel);
  // The kubelet's client limits (50 qps, burst 100); a fleet needs one lease update per node per 10 s on top.
  const qps = Math.max(50, count ?? 0);
  const client = await Client.fromKubeconfig({ ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}), qps, burst: 2 * qps });
  const signal = signalOnTermination();
  try {
    if (count !== undefined) {
      const namePrefix = flags.namePrefix ?? `${nodeName}-`;
      console.log(`setpoint: ${count} simulated nodes running (${namePrefix}0 … ${namePrefix}${count - 1})`);
      await runSimulatedNodes({
        client,
        count,
        namePrefix,
        readyDelayMs,
        leaseDurationSeconds,
        heartbeatIntervalMs: heartbeat.leaseRenewIntervalMs,
        statusCheckIntervalMs: heartbeat.statusCheckIntervalMs,
        logger,
        signal,
      });
    } else {
      const dataDir = resolve(flags.dataDir ?? join(homedir(), '.setpoint', 'agent', nodeName));
      // Private: pod records and logs, the agent's key (datadir.ts). Pods' own directories are left alone.
      reportTightened(logger, dataDir, tightenDataDir(dataDir));
      const kubeletServer = flags.simulate ? undefined : await kubeletServerOptions(flags, client.config.ca, dataDir, logger);
      console.log(`setpoint: agent for node ${nodeName} running (${flags.simulate ? 'simulated pods' : `pods as processes, data in ${dataDir}`})`);
      if (!flags.simulate && kubeletServer === undefined) {
        console.log('setpoint: container logs are not served: the kubeconfig has no CA to verify the API server with; give --kubelet-token-file');
      }
      await runAgent({ client, nodeName, dataDir, runtime: flags.simulate ? 'simulated' : 'process', readyDelayMs, ...heartbeat, ...(kubeletServer === undefined ? {} : { kubeletServer }), logger, signal });
    }
  } finally {
    client.close();
  }
}

/**
 * The agent endpoint the flags and the kubeconfig allow (see the file comment): HTTPS with client
 * certificates of `ca` when there is one, the token of --kubelet-token-file when given, or none.
 */
async function kubeletServerOptions(flags: AgentFlags, ca: string | undefined, dataDir: string, logger: Logger): Promise<KubeletServerOptions | undefined> {
  const port = parsePort(flags.kubeletPort, '--kubelet-port');
  const host = flags.kubeletAddress;
  const token = flags.kubeletTokenFile === undefined ? undefined : await ensureKubeletToken(resolve(flags.kubeletTokenFile), { logger });
  if (ca === undefined && token === undefined) return undefined;
  const hosts = host === '0.0.0.0' || host === '::' ? [] : [host];
  return {
    port,
    host,
    ...(ca === undefined ? {} : { tls: await ensureAgentServingCertificate({ dir: dataDir, hosts, logger }), clientCA: ca }),
    ...(token === undefined ? {} : { token }),
  };
}
