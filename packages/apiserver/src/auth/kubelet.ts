/**
 * Credentials between the API server and node agents (the kubelet's port, for pods/log), as
 * Kubernetes has them:
 *
 * - the API server's client certificate (kube-apiserver's --kubelet-client-certificate), signed by
 *   the cluster CA, CN `kube-apiserver-kubelet-client`: agents verify it against the CA in their
 *   kubeconfig and accept that identity only. Kept as DATA/apiserver-kubelet-client.{crt,key}.
 * - an agent's serving certificate, self-signed (as the kubelet makes one when given none): the API
 *   server does not verify agents' serving certificates by default, as kube-apiserver without
 *   --kubelet-certificate-authority. Kept in the agent's data dir as kubelet.{crt,key}.
 * - for plain-HTTP setups without a CA (--insecure-http), a shared bearer token instead, kept as
 *   DATA/kubelet-client.token and given to agents with --kubelet-token-file.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { realClock, silentLogger, type Clock, type Logger } from '@setpoint/api';
import { certificateFiles, RENEW_BEFORE_DAYS, SERVING_DAYS } from './certs.js';
import { CredentialsError } from './errors.js';
import { createFileExclusive, readFileIfExists, readSecretFile, writeFileAtomic } from './files.js';
import { DAY_MS, isDnsName, issueCertificate, parseCertificate, parsePrivateKey, subjectAltNames, uncoveredHosts, validity, type CertificateAndKey } from './pki.js';

/** The subject CN of the API server's client certificate for node agents (kubeadm's name). */
export const KUBELET_CLIENT_COMMON_NAME = 'kube-apiserver-kubelet-client';

/** File names in the data dir. */
export const kubeletCredentialFiles = {
  clientCert: 'apiserver-kubelet-client.crt',
  clientKey: 'apiserver-kubelet-client.key',
  token: 'kubelet-client.token',
  /** In an agent's data dir. */
  servingCert: 'kubelet.crt',
  servingKey: 'kubelet.key',
} as const;

/** Whether `pair` can be kept: it parses, matches its key, is valid now and beyond the renewal window, and verifies against `issuer` (itself when undefined). */
function usable(pair: { cert: string | undefined; key: string | undefined }, issuer: string | undefined, now: number): pair is CertificateAndKey {
  if (pair.cert === undefined || pair.key === undefined) return false;
  try {
    const cert = parseCertificate(pair.cert);
    if (!cert.checkPrivateKey(parsePrivateKey(pair.key))) return false;
    const signer = parseCertificate(issuer ?? pair.cert);
    if (!cert.checkIssued(signer) || !cert.verify(signer.publicKey)) return false;
    const { notBefore, notAfter } = validity(cert);
    return now >= notBefore.getTime() && notAfter.getTime() - now > RENEW_BEFORE_DAYS * DAY_MS;
  } catch {
    return false;
  }
}

export interface EnsureKubeletClientCertificateOptions {
  /** The API server's data dir, holding ca.crt and ca.key (ensureServingCertificates made them). */
  readonly dataDir: string;
  readonly clock?: Pick<Clock, 'now'>;
  readonly logger?: Logger;
}

/**
 * The API server's client certificate for node agents: reused from the data dir while it is
 * signed by the current CA, matches its key and is valid for more than RENEW_BEFORE_DAYS;
 * otherwise issued anew (ECDSA P-256, clientAuth, 1 year, CN KUBELET_CLIENT_COMMON_NAME) and
 * written (key mode 0600). Throws CredentialsError when the CA files are missing or unusable.
 */
export async function ensureKubeletClientCertificate(options: EnsureKubeletClientCertificateOptions): Promise<CertificateAndKey> {
  const { dataDir } = options;
  const logger = options.logger ?? silentLogger;
  const now = (options.clock ?? realClock).now();
  const caPath = join(dataDir, certificateFiles.caCert);
  const caCert = await readFileIfExists(caPath);
  const caKey = await readSecretFile(join(dataDir, certificateFiles.caKey), logger);
  if (caCert === undefined || caKey === undefined) throw new CredentialsError('Malformed', `${caPath} and its key are needed to issue the kubelet client certificate`, { path: caPath });
  const certPath = join(dataDir, kubeletCredentialFiles.clientCert);
  const keyPath = join(dataDir, kubeletCredentialFiles.clientKey);
  const current = { cert: await readFileIfExists(certPath), key: await readSecretFile(keyPath, logger) };
  if (usable(current, caCert, now)) return current;
  const issued = await issueCertificate({ subject: [{ CN: [KUBELET_CLIENT_COMMON_NAME] }], profile: { kind: 'client' }, ca: { cert: caCert, key: caKey }, now, days: SERVING_DAYS });
  await writeFileAtomic(keyPath, issued.key);
  await writeFileAtomic(certPath, issued.cert);
  logger.info({ path: certPath }, 'issued the client certificate for node agents');
  return issued;
}

export interface EnsureAgentServingCertificateOptions {
  /** The agent's data dir. */
  readonly dir: string;
  /** Names and addresses the certificate covers besides localhost, 127.0.0.1, ::1 and the host name. */
  readonly hosts?: readonly string[];
  readonly clock?: Pick<Clock, 'now'>;
  readonly logger?: Logger;
}

/**
 * A node agent's self-signed serving certificate (as the kubelet generates when given none):
 * reused from DIR/kubelet.{crt,key} while valid beyond RENEW_BEFORE_DAYS and covering the hosts,
 * else made anew (ECDSA P-256, serverAuth, 1 year) and written (key mode 0600). Throws
 * CredentialsError (InvalidHost) for a host that is neither an IP address nor a DNS name.
 */
export async function ensureAgentServingCertificate(options: EnsureAgentServingCertificateOptions): Promise<CertificateAndKey> {
  const logger = options.logger ?? silentLogger;
  const now = (options.clock ?? realClock).now();
  const own = hostname().toLowerCase().replace(/\.$/, '');
  const names = subjectAltNames(['localhost', '127.0.0.1', '::1', ...(isDnsName(own) ? [own] : []), ...(options.hosts ?? [])]);
  const certPath = join(options.dir, kubeletCredentialFiles.servingCert);
  const keyPath = join(options.dir, kubeletCredentialFiles.servingKey);
  const current = { cert: await readFileIfExists(certPath), key: await readSecretFile(keyPath, logger) };
  if (usable(current, undefined, now) && uncoveredHosts(parseCertificate(current.cert), names).length === 0) return current;
  const issued = await issueCertificate({ subject: [{ CN: [`${own || 'setpoint-agent'}@${Math.floor(now / 1000)}`] }], profile: { kind: 'server', names }, ca: undefined, now, days: SERVING_DAYS });
  await writeFileAtomic(keyPath, issued.key);
  await writeFileAtomic(certPath, issued.cert);
  logger.info({ path: certPath }, 'made a self-signed serving certificate for the agent endpoint');
  return issued;
}

const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The token the API server shows node agents where there is no CA (plain HTTP): read from `path`,
 * or, when `create` and the file is missing, 32 random bytes (base64url) written there (mode 0600;
 * of two processes racing, both get the winner's). Throws CredentialsError (Malformed) when the
 * file holds no bearer token, or is missing and not to be created.
 */
export async function ensureKubeletToken(path: string, options: { readonly create?: boolean; readonly logger?: Logger } = {}): Promise<string> {
  const logger = options.logger ?? silentLogger;
  let text = await readSecretFile(path, logger);
  if (text === undefined && options.create === true) {
    const token = randomBytes(32).toString('base64url');
    if (await createFileExclusive(path, `${token}\n`)) {
      logger.info({ path }, 'generated the token for node agents');
      return token;
    }
    text = await readSecretFile(path, logger);
  }
  const token = (text ?? '').trim();
  if (!TOKEN.test(token)) throw new CredentialsError('Malformed', `${path} holds no bearer token (RFC 6750 characters, no spaces)`, { path });
  return token;
}
