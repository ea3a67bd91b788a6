/**
 * Kubeconfigs: the admin kubeconfig `setpoint up` writes to DATA/kubeconfig.yaml so that kubectl
 * and client libraries reach the server over TLS, trusting the cluster CA, with the admin token;
 * and kubeconfigs of users and components with a client certificate of the cluster CA.
 */
import { stringify } from 'yaml';
import { writeFileAtomic } from './files.js';
import type { CertificateAndKey } from './pki.js';

export interface KubeconfigOptions {
  /** The API server's URL, e.g. `https://127.0.0.1:6443`. */
  readonly server: string;
  /** The cluster CA certificate, PEM; embedded base64-encoded as certificate-authority-data. */
  readonly caCert: string;
  /** The bearer token of the user. Give this or clientCertificate. */
  readonly token?: string;
  /** The user's client certificate and key (PEM), embedded as client-certificate-data and client-key-data. */
  readonly clientCertificate?: CertificateAndKey;
  /** Default 'setpoint'. */
  readonly clusterName?: string;
  /** Default 'admin'. */
  readonly userName?: string;
  /** Default 'setpoint'; also the current-context. */
  readonly contextName?: string;
  /** The context's default namespace. Default none (clients then use "default"). */
  readonly namespace?: string;
}

const base64 = (pem: string) => Buffer.from(pem, 'utf8').toString('base64');

/**
 * The kubeconfig YAML (apiVersion v1, kind Config) with one cluster, one user (token or client
 * certificate), one context, made current. Throws TypeError when `server` is not an http(s) URL,
 * RangeError for an empty token, for both or neither of token and clientCertificate, for a client
 * certificate or key that is not PEM, or (for https) a caCert that is not PEM. An http:// server
 * (--insecure-http) needs no CA.
 */
export function renderKubeconfig(options: KubeconfigOptions): string {
  const { server, caCert, token, clientCertificate, clusterName = 'setpoint', userName = 'admin', contextName = 'setpoint', namespace } = options;
  const url = new URL(server);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`server must be an http(s) URL, got ${server}`);
  if (token === '') throw new RangeError('kubeconfig token must not be empty');
  if ((token === undefined) === (clientCertificate === undefined)) throw new RangeError('a kubeconfig user needs a token or a client certificate (one of them)');
  if (clientCertificate !== undefined && (!clientCertificate.cert.includes('-----BEGIN CERTIFICATE-----') || !clientCertificate.key.includes('PRIVATE KEY-----'))) {
    throw new RangeError('the client certificate and key must be PEM');
  }
  const plain = url.protocol === 'http:';
  if (!plain && !caCert.includes('-----BEGIN CERTIFICATE-----')) throw new RangeError('caCert must be a PEM certificate');
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    preferences: {},
    clusters: [
      {
        name: clusterName,
        cluster: plain ? { server } : { server, 'certificate-authority-data': base64(caCert) },
      },
    ],
    users: [
      {
        name: userName,
        user: clientCertificate === undefined ? { token } : { 'client-certificate-data': base64(clientCertificate.cert), 'client-key-data': base64(clientCertificate.key) },
      },
    ],
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
