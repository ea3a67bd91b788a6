/**
 * `setpoint scheduler --kubeconfig F [--leader-elect]`: assigns pods to nodes, with /healthz,
 * /readyz and /metrics. With --leader-elect, replicas share the Lease kube-system/setpoint-scheduler.
 */
import type { Command } from 'commander';
import { registerScheduler } from '@setpoint/controllers';
import { componentCommand } from './controller-manager.js';

export function registerSchedulerCommand(program: Command): void {
  componentCommand(program, {
    command: 'scheduler',
    description: 'run the scheduler against an API server',
    lease: 'setpoint-scheduler',
    port: '10259',
    register: (manager) => registerScheduler(manager),
  });
}
