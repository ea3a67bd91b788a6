/**
 * The API server's certificates: a cluster CA and a serving certificate signed by it, kept as PEM
 * files in the data dir and made at first start; client certificates issued by the same CA.
 *
 * Files (keys mode 0600, every file replaced atomically):
 *   DATA/ca.crt, DATA/ca.key          the cluster CA: self-signed, CA:true, 10 years
 *   DATA/server.crt, DATA/server.key  the serving certificate: 1 year, serverAuth, SANs below
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import { realClock, silentLogger, type Clock, type Logger } from '@setpoint/api';
import { CredentialsError } from './errors.js';
import { readFileIfExists, readSecretFile, writeFileAtomic } from './files.js';
import {
  DAY_MS,
  isDnsName,
  issueCertificate,
  parseCertificate,
  parsePrivateKey,
  subjectAltNames,
  uncoveredHosts,
  validity,
  type CertificateAndKey,
  type SubjectAltNames,
} from './pki.js';

export type { CertificateAndKey } from './pki.js';

/** File names of the credentials in the data dir. */
export const certificateFiles = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  serverCert: 'server.crt',
  serverKey: 'server.key',
} as const;

/** Lifetime of a new cluster CA. */
export const CA_DAYS = 3650;
/** Lifetime of a new serving certificate. */
export const SERVING_DAYS = 365;
/** A certificate that expires sooner than this is renewed at start. */
export const RENEW_BEFORE_DAYS = 30;

/** Common name of the CA (suffixed with its creation time, so successive CAs differ by name too). */
const CA_COMMON_NAME = 'setpoint-ca';
/** Common name of the serving certificate. */
const SERVER_COMMON_NAME = 'setpoint-apiserver';

/** The hosts every serving certificate covers: loopback by name and address. */
export const DEFAULT_SERVING_HOSTS: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '::1']);

export interface EnsureServingCertificatesOptions {
  /** Directory of the files; created (mode 0700) when missing. */
  readonly dataDir: string;
  /**
   * Extra names and addresses the serving certificate must cover (an --advertise-address, a DNS
   * name clients use), besides DEFAULT_SERVING_HOSTS and the machine's hostname. IPv6 may come in
   * brackets. Default none.
   */
  readonly hosts?: readonly string[];
  /** Time source (only `now()` is read). Default the real clock. */
  readonly clock?: Pick<Clock, 'now'>;
  /** Where generation and renewal are reported. Default silent. */
  readonly logger?: Logger;
}

/** The PEM texts an HTTPS server needs, and the CA that clients must trust. */
export interface ServingCertificates {
  /** The cluster CA certificate (PEM): what a kubeconfig's certificate-authority-data holds. */
  readonly caCert: string;
  /** The serving certificate (PEM). */
  readonly cert: string;
  /** The serving certificate's private key (PEM). */
  readonly key: string;
}

/**
 * Makes sure the data dir holds a usable cluster CA and serving certificate, and returns them.
 *
 * Guarantees:
 * - no ca.crt: a new CA (ECDSA P-256, 10 years, keyCertSign/cRLSign) and serving certificate are
 *   generated (a ca.key without its certificate is replaced);
 * - a serving certificate is reused, byte for byte, while it is signed by the CA, matches
 *   server.key, is already valid, expires in more than RENEW_BEFORE_DAYS (or, failing that, no
 *   later than the CA itself) and covers every requested host; otherwise a new one is issued by
 *   the same CA (1 year, never beyond the CA; ECDSA P-256; serverAuth; SANs: localhost,
 *   127.0.0.1, ::1, the hostname, `hosts`);
 * - files are written atomically, keys with mode 0600; a key file readable by others is narrowed
 *   to 0600 with a warning.
 *
 * Throws CredentialsError when the CA cannot be used as it is and replacing it would lose what
 * the operator put there: ca.crt or ca.key malformed, ca.key missing or not ca.crt's key, the CA
 * expired or not yet valid, or not a CA. Then the operator fixes or deletes the files. Throws it
 * too (InvalidHost) for a requested host that is neither an IP address nor a DNS name. A CA that
 * expires within RENEW_BEFORE_DAYS is used, with a warning.
 */
export async function ensureServingCertificates(options: EnsureServingCertificatesOptions): Promise<ServingCertificates> {
  const { dataDir } = options;
  const clock = options.clock ?? realClock;
  const logger = options.logger ?? silentLogger;
  const names = servingNames(options.hosts ?? []);
  const now = clock.now();

  const ca = await ensureCertificateAuthority(dataDir, now, logger);
  const serverCertPath = join(dataDir, certificateFiles.serverCert);
  const serverKeyPath = join(dataDir, certificateFiles.serverKey);
  const current = {
    cert: await readFileIfExists(serverCertPath),
    key: await readSecretFile(serverKeyPath, logger),
  };
  const reason = renewalReason(current, ca, names, now);
  if (reason === undefined) {
    return { caCert: ca.cert, cert: current.cert as string, key: current.key as string };
  }
  const issued = await issueCertificate({
    subject: [{ CN: [SERVER_COMMON_NAME] }],
    profile: { kind: 'server', names },
    ca,
    now,
    days: SERVING_DAYS,
  });
  await writeFileAtomic(serverKeyPath, issued.key);
  await writeFileAtomic(serverCertPath, issued.cert);
  logger.info(
    { path: serverCertPath, reason, dnsNames: names.dnsNames, ips: names.ips, notAfter: validity(parseCertificate(issued.cert)).notAfter },
    'issued serving certificate',
  );
  return { caCert: ca.cert, cert: issued.cert, key: issued.key };
}

/** The requested hosts plus the defaults and the machine's hostname (when it is a valid DNS name). */
function servingNames(hosts: readonly string[]): SubjectAltNames {
  const own = hostname().toLowerCase().replace(/\.$/, '');
  return subjectAltNames([...DEFAULT_SERVING_HOSTS, ...(isDnsName(own) ? [own] : []), ...hosts]);
}

/** Loads the CA, or creates it when ca.crt is absent. See ensureServingCertificates for the rules. */
async function ensureCertificateAuthority(dataDir: string, now: number, logger: Logger): Promise<CertificateAndKey> {
  const certPath = join(dataDir, certificateFiles.caCert);
  const keyPath = join(dataDir, certificateFiles.caKey);
  const certPem = await readFileIfExists(certPath);
  if (certPem === undefined) {
    const ca = await issueCertificate({
      subject: [{ CN: [`${CA_COMMON_NAME}@${Math.floor(now / 1000)}`] }],
      profile: { kind: 'ca' },
      ca: undefined,
      now,
      days: CA_DAYS,
    });
    // Key first: a crash between the two leaves no ca.crt, so the next start begins again.
    await writeFileAtomic(keyPath, ca.key);
    await writeFileAtomic(certPath, ca.cert);
    logger.info({ path: certPath, notAfter: validity(parseCertificate(ca.cert)).notAfter }, 'generated cluster CA');
    return ca;
  }

  const keyPem = await readSecretFile(keyPath, logger);
  if (keyPem === undefined) {
    throw new CredentialsError('Malformed', `${keyPath} is missing while ${certPath} exists; restore the key or delete both to generate a new CA`, {
      path: keyPath,
    });
  }
  const cert = parseCertificate(certPem, certPath);
  const key = parsePrivateKey(keyPem, keyPath);
  if (!cert.ca) throw new CredentialsError('Malformed', `${certPath} is not a CA certificate (basicConstraints CA:false)`, { path: certPath });
  if (!cert.checkPrivateKey(key)) {
    throw new CredentialsError('KeyMismatch', `${keyPath} is not the key of ${certPath}`, { path: keyPath });
  }
  const { notBefore, notAfter } = validity(cert);
  if (now < notBefore.getTime() || now >= notAfter.getTime()) {
    throw new CredentialsError(
      'Expired',
      `the cluster CA ${certPath} is valid from ${notBefore.toISOString()} to ${notAfter.toISOString()}, not now (${new Date(now).toISOString()}); ` +
        'delete ca.crt and ca.key to generate a new CA (clients must then be given the new CA)',
      { path: certPath },
    );
  }
  if (notAfter.getTime() - now < RENEW_BEFORE_DAYS * DAY_MS) {
    logger.warn({ path: certPath, notAfter }, 'the cluster CA expires soon; replace ca.crt and ca.key before it does');
  }
  return { cert: certPem, key: keyPem };
}

/**
 * Why the serving certificate must be (re)issued, or undefined when `current` can be kept. Never
 * throws: an unusable serving certificate is simply replaced.
 */
function renewalReason(
  current: { cert: string | undefined; key: string | undefined },
  ca: CertificateAndKey,
  names: SubjectAltNames,
  now: number,
): string | undefined {
  if (current.cert === undefined || current.key === undefined) return 'absent';
  let cert;
  let caCert;
  try {
    cert = parseCertificate(current.cert);
    caCert = parseCertificate(ca.cert);
    if (!cert.checkPrivateKey(parsePrivateKey(current.key))) return 'key mismatch';
  } catch (err) {
    return `unreadable (${err instanceof Error ? err.message : String(err)})`;
  }
  if (!cert.checkIssued(caCert) || !cert.verify(caCert.publicKey)) return 'not signed by the cluster CA';
  const { notBefore, notAfter } = validity(cert);
  if (now < notBefore.getTime()) return 'not yet valid';
  const expires = notAfter.getTime();
  if (now >= expires) return 'expired';
  // Renew within the last days, unless the certificate already lasts as long as the CA does: a
  // new one could last no longer.
  if (expires - now < RENEW_BEFORE_DAYS * DAY_MS && expires < validity(caCert).notAfter.getTime()) return 'expiring';
  const missing = uncoveredHosts(cert, names);
  if (missing.length > 0) return `missing hosts ${missing.join(', ')}`;
  return undefined;
}

export interface IssueClientCertificateOptions {
  /** The signing CA: its certificate and private key, PEM (ca.crt and ca.key). */
  readonly ca: CertificateAndKey;
  /** The user name (subject CN). */
  readonly commonName: string;
  /** The user's groups (subject O, one RDN each). Default none. */
  readonly organizations?: readonly string[];
  /** Lifetime in days (never beyond the CA's own expiry). */
  readonly days: number;
  /** Time source (only `now()` is read). Default the real clock. */
  readonly clock?: Pick<Clock, 'now'>;
}

/**
 * Issues a client certificate (CN = user, O = groups, extKeyUsage clientAuth, ECDSA P-256) signed
 * by `ca`, for a kubeconfig's client-certificate-data/client-key-data. Returns PEM cert and key;
 * writes nothing. Throws CredentialsError when the CA certificate or key is unusable, RangeError
 * for an empty common name or a non-positive lifetime.
 */
export async function issueClientCertificate(options: IssueClientCertificateOptions): Promise<CertificateAndKey> {
  const { ca, commonName, organizations = [], days } = options;
  if (commonName === '') throw new RangeError('a client certificate needs a non-empty common name');
  const caCert = parseCertificate(ca.cert);
  if (!caCert.checkPrivateKey(parsePrivateKey(ca.key))) throw new CredentialsError('KeyMismatch', 'the CA key is not the key of the CA certificate');
  return issueCertificate({
    // Go's order: O before CN; one attribute per RDN.
    subject: [...organizations.map((o) => ({ O: [o] })), { CN: [commonName] }],
    profile: { kind: 'client' },
    ca,
    now: (options.clock ?? realClock).now(),
    days,
  });
}
