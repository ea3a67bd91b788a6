/**
 * The admin kubeconfig: what `setpoint up` writes to DATA/kubeconfig.yaml so that kubectl and
 * client libraries reach the server over TLS, trusting the cluster CA, with the admin token.
 */
import { stringify } from 'yaml';
import { writeFileAtomic } from './files.js';

export interface KubeconfigOptions {
  /** The API server's URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;
  /** The cluster CA certificate, PEM; embedded base64-encoded as certificate-authority-data. */
  readonly caCert: string;
  /** The bearer token of the user. */
  readonly token: string;
  /** Default 'setpoint'. */
  readonly clusterName?: string;
  /** Default 'admin'. */
  readonly userName?: string;
  /** Default 'setpoint'; also the current-context. */
  readonly contextName?: string;
  /** The context's default namespace. Default none (clients then use "default"). */
  readonly namespace?: string;
}

/**
 * The kubeconfig YAML (apiVersion v1, kind Config) with one cluster, one user (token), one context,
 * made current. Throws TypeError when `server` is not an http(s) URL, RangeError for an empty
 * token or (for https) a caCert that is not PEM. An http:// server (--insecure-http) needs no CA.
 */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const { server, caCert, token, clusterName = 'setpoint', userName = 'admin', contextName = 'setpoint', namespace } = options;
  const url = new URL(server);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`server must be an http(s) URL, got ${server}`);
  if (token === '') throw new RangeError('kubeconfig token must not be empty');
  const plain = url.protocol === 'http:';
  if (!plain && !caCert.includes('-----BEGIN CERTIFICATE-----')) throw new RangeError('caCert must be a PEM certificate');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [
      {
        name: clusterName,
        cluster: plain ? { server } : { server, 'certificate-authority-data': Buffer.from(caCert, 'utf8').toString('base64') },
      },
    ],
    users: [{ name: userName, user: { token } }],
    contexts: [
      {
        name: contextName,
        context: { cluster: clusterName, user: userName, ...(namespace === undefined ? {} : { namespace }) },
      },
    ],
    'current-context': contextName,
  };
  // lineWidth 0: never fold the long base64 line.
  return stringify(config, { lineWidth: 0 });
}

/** Writes a kubeconfig atomically with mode 0600 (it holds a credential), creating its directory (0700) when missing. */
export async function writeKubeconfig(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text);
}
