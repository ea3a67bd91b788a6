/**
 * How a client verb finds its API server: --kubeconfig, else KUBECONFIG, else the kubeconfig that
 * `setpoint up` wrote (~/.setpoint/kubeconfig.yaml) when it exists, else
 * ~/.kube/config — and the namespace it works in: -n, else the context's, else "default".
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { Client } from '@setpoint/client';
import type { CliIO } from './io.js';

/** The connection flags every client verb takes. */
export interface ConnectionFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
  readonly namespace?: string;
}

/** A connected client and the namespace the verb works in. */
export interface Connection {
  readonly client: Client;
  /** -n, else the context's namespace, else "default". */
  readonly namespace: string;
  /** Whether -n was given (apply refuses objects of another namespace then). */
  readonly namespaceFlag: boolean;
  readonly server: string;
}

/** Adds --kubeconfig, --context and (unless `namespaced` is false) -n/--namespace. */
export function addConnectionFlags(cmd: Command, namespaced = true): Command {
  cmd
    .option('--kubeconfig <file>', 'kubeconfig to use (default: KUBECONFIG, else ~/.setpoint/kubeconfig.yaml, else ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context to use (default: its current context)');
  if (namespaced) cmd.option('-n, --namespace <ns>', "namespace to work in (default: the context's, else default)");
  return cmd;
}

/** The default data directory of `setpoint up`: ~/.setpoint (HOME from `env`). */
export function defaultDataDir(env: CliIO['env']): string {
  return join(env.HOME ?? homedir(), '.setpoint');
}

/** The kubeconfig file the flags and environment point at (undefined: let the client search KUBECONFIG). */
export function kubeconfigPath(flags: ConnectionFlags, env: CliIO['env']): string | undefined {
  if (flags.kubeconfig !== undefined) return flags.kubeconfig;
  if (env.KUBECONFIG !== undefined && env.KUBECONFIG.trim() !== '') return undefined;
  const setpoint = join(defaultDataDir(env), 'kubeconfig.yaml');
  if (existsSync(setpoint)) return setpoint;
  return undefined;
}

/**
 * A client for the flags' kubeconfig and context. Throws ConfigError (one line naming the file and
 * field) when the kubeconfig is missing or unusable. CLI calls fail fast: two retries at most.
 */
export async function connect(flags: ConnectionFlags, io: CliIO): Promise<Connection> {
  const path = kubeconfigPath(flags, io.env);
  const client = await Client.fromKubeconfig({
    ...(path === undefined ? {} : { path }),
    ...(flags.context === undefined ? {} : { context: flags.context }),
    env: io.env,
    qps: 50,
    burst: 300,
    maxRetries: 2,
    retryBackoff: { initialMs: 100, maxMs: 1000 },
  });
  return {
    client,
    namespace: flags.namespace ?? client.namespace,
    namespaceFlag: flags.namespace !== undefined,
    server: client.config.server,
  };
}
