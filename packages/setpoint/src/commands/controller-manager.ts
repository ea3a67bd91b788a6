/**
 * `setpoint controller-manager --kubeconfig F [--leader-elect]`: the built-in controllers (garbage
 * collector, namespace lifecycle, ReplicaSet, Deployment) in one Manager, with /healthz, /readyz
 * and /metrics. With --leader-elect, replicas share the Lease kube-system/setpoint-controller-manager
 * and exactly one reconciles.
 */
import type { Command } from 'commander';
import type { Logger } from '@setpoint/api';
import { Client, Manager, signalOnTermination } from '@setpoint/client';
import { registerBuiltinControllers } from '@setpoint/controllers';
import { parseDuration, parsePort } from '../flags.js';
import { createLogger } from '../logging.js';

export interface ComponentFlags {
  kubeconfig?: string;
  leaderElect?: boolean;
  leaderElectLeaseDuration: string;
  leaderElectRenewDeadline: string;
  leaderElectRetryPeriod: string;
  port: string;
  host: string;
  logLevel: string;
  /** controller-manager only. */
  nodeMonitorGracePeriod?: string;
}

export function registerControllerManager(program: Command): void {
  componentCommand(program, {
    command: 'controller-manager',
    description: 'run the built-in controllers against an API server',
    lease: 'setpoint-controller-manager',
    port: '10257',
    options: (command) =>
      command.option('--node-monitor-grace-period <duration>', 'how long a node may go without renewing its Lease (or posting its status) before it is marked Unknown', '50s'),
    register: (manager, flags) => {
      const nodeMonitorGracePeriodMs = parseDuration(flags.nodeMonitorGracePeriod ?? '50s', '--node-monitor-grace-period');
      registerBuiltinControllers(manager, { nodeLifecycle: { nodeMonitorGracePeriodMs } });
    },
  });
}

/**
 * A command running one Manager-based component: --kubeconfig, --leader-elect (on the Lease
 * kube-system/`lease`), --port and --host for /healthz /readyz /metrics, --log-level.
 */
export function componentCommand(
  program: Command,
  spec: { command: string; description: string; lease: string; port: string; options?: (command: Command) => Command; register: (manager: Manager, flags: ComponentFlags) => void },
): void {
  const command = program
    .command(spec.command)
    .description(spec.description)
    .option('--kubeconfig <file>', 'kubeconfig of the API server (default: KUBECONFIG or ~/.kube/config)')
    .option('--leader-elect', `campaign for the Lease kube-system/${spec.lease} so that one replica works at a time`)
    .option('--leader-elect-lease-duration <duration>', 'how long followers wait before taking an unrenewed lease', '15s')
    .option('--leader-elect-renew-deadline <duration>', 'how long the leader tries to renew before it stops leading', '10s')
    .option('--leader-elect-retry-period <duration>', 'time between attempts to acquire or renew', '2s')
    .option('--port <n>', 'port for /healthz, /readyz and /metrics (0: any free port)', spec.port)
    .option('--host <address>', 'address for /healthz, /readyz and /metrics', '127.0.0.1')
    .option('--log-level <level>', 'debug, info, warn or error', 'info');
  (spec.options?.(command) ?? command).action(async (flags: ComponentFlags) => {
    await runComponent(spec.lease, flags, createLogger(flags.logLevel), (manager) => spec.register(manager, flags));
  });
}

/** Runs one Manager-based component until SIGINT/SIGTERM. */
export async function runComponent(name: string, flags: ComponentFlags, logger: Logger, register: (manager: Manager) => void): Promise<void> {
  const port = parsePort(flags.port);
  const leaseDurationMs = parseDuration(flags.leaderElectLeaseDuration, '--leader-elect-lease-duration');
  const renewDeadlineMs = parseDuration(flags.leaderElectRenewDeadline, '--leader-elect-renew-deadline');
  const retryPeriodMs = parseDuration(flags.leaderElectRetryPeriod, '--leader-elect-retry-period');
  const client = await Client.fromKubeconfig({ ...(flags.kubeconfig ? { path: flags.kubeconfig } : {}), qps: 200, burst: 400 });
  const manager = new Manager({
    client,
    logger,
    httpAddress: { host: flags.host, port },
    ...(flags.leaderElect ? { leaderElection: { name, namespace: 'kube-system', leaseDurationMs, renewDeadlineMs, retryPeriodMs } } : {}),
  });
  register(manager);
  const signal = signalOnTermination();
  const running = manager.start(signal);
  const started = setInterval(() => {
    if (manager.httpPort !== undefined) {
      clearInterval(started);
      console.log(`setpoint: ${name} running; health and metrics on http://${flags.host}:${manager.httpPort}`);
    }
  }, 20);
  try {
    await running;
  } finally {
    clearInterval(started);
    client.close();
  }
}
