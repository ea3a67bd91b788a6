/**
 * inClusterConfig: the configuration of a process running in a pod, from the service account
 * Kubernetes mounts into every pod and the KUBERNETES_SERVICE_HOST/PORT the kubelet sets — as
 * client-go's rest.InClusterConfig reads them.
 *
 * Kubernetes mounts the service account at a fixed path in the container's file system
 * (SERVICE_ACCOUNT_DIR). Setpoint's agent runs pods as plain processes sharing the host's file
 * system, so it cannot put files there; it writes them into the pod's own directory and names it in
 * SETPOINT_SERVICE_ACCOUNT_DIR, which this reader follows (clients that do not know the variable,
 * such as client-go, keep looking at the fixed path).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClientConfig } from '../types.js';
import { ConfigError } from './errors.js';

/** Where a pod's service account credentials are mounted. */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The environment variable naming the directory of the service account files (token, ca.crt,
 * namespace) when it is not SERVICE_ACCOUNT_DIR: Setpoint's agent sets it in every pod it gives an
 * identity to.
 */
export const SERVICE_ACCOUNT_DIR_ENV = 'SETPOINT_SERVICE_ACCOUNT_DIR';

export interface InClusterOptions {
  /** Default `<dir>/token`, where dir is $SETPOINT_SERVICE_ACCOUNT_DIR when set, else SERVICE_ACCOUNT_DIR. */
  readonly tokenPath?: string;
  /** Default `<dir>/ca.crt`. */
  readonly caPath?: string;
  /** Default `<dir>/namespace`. */
  readonly namespacePath?: string;
  /** Where KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT and SETPOINT_SERVICE_ACCOUNT_DIR are read. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`cannot read: ${(err as Error).message}`, { file: path, cause: err });
  }
}

/**
 * The in-cluster ClientConfig: server `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`
 * (an IPv6 host bracketed), the service account CA, the token as `tokenFile` (re-read by the
 * client when the kubelet rotates it), and the pod's namespace when the namespace file exists.
 *
 * Throws ConfigError when KUBERNETES_SERVICE_HOST or KUBERNETES_SERVICE_PORT is unset (not in a
 * pod), or the token or CA file is missing, empty or unreadable.
 */
export async function inClusterConfig(options: InClusterOptions = {}): Promise<ClientConfig> {
  const env = options.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (host === undefined || host === '' || port === undefined || port === '') {
    throw new ConfigError('not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set', {
      field: host === undefined || host === '' ? 'KUBERNETES_SERVICE_HOST' : 'KUBERNETES_SERVICE_PORT',
    });
  }
  const dir = env[SERVICE_ACCOUNT_DIR_ENV] || SERVICE_ACCOUNT_DIR;
  const tokenPath = options.tokenPath ?? join(dir, 'token');
  const caPath = options.caPath ?? join(dir, 'ca.crt');
  const namespacePath = options.namespacePath ?? join(dir, 'namespace');
  const token = (await readOptional(tokenPath))?.trim();
  if (token === undefined || token === '') throw new ConfigError('the service account token is missing or empty', { file: tokenPath });
  const ca = await readOptional(caPath);
  if (ca === undefined || !ca.includes('-----BEGIN ')) throw new ConfigError('the service account CA is missing or not PEM', { file: caPath });
  const namespace = (await readOptional(namespacePath))?.trim();
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    server: `https://${hostPart}:${port}`,
    ca,
    token,
    tokenFile: tokenPath,
    ...(namespace === undefined || namespace === '' ? {} : { namespace }),
  };
}
