/**
 * Client certificates at the TLS layer: the server asks every client for one (without requiring
 * it) and lets Node verify it against the cluster CA; a request then carries the certificate's
 * identity only when that verification succeeded. As kube-apiserver's x509 authenticator: the
 * chain must lead to the CA and every certificate be within its validity period (Node checks
 * both), and the certificate must allow client authentication (extKeyUsage clientAuth, or any, or
 * no extKeyUsage at all). Revocation is not checked (Kubernetes does not either: keep client
 * certificates short-lived).
 */
import { TLSSocket } from 'node:tls';
import type { ClientCertificateIdentity } from './authenticator.js';

/** id-kp-clientAuth and anyExtendedKeyUsage. */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const ANY_EXTENDED_KEY_USAGE = '2.5.29.37.0';

/** The TLS server options that ask for client certificates of `ca` (PEM) and leave the decision to the request. */
export function clientCertificateTlsOptions(ca: string): { ca: string; requestCert: true; rejectUnauthorized: false } {
  return { ca, requestCert: true, rejectUnauthorized: false };
}

function values(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * The identity of the client certificate the TLS layer verified on `socket` (CN = user, O =
 * groups), or undefined: not TLS, no certificate, verification failed (another CA, expired, not
 * yet valid), a certificate that is not for client authentication, or no CN. Never throws.
 */
export function verifiedClientCertificate(socket: unknown): ClientCertificateIdentity | undefined {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined;
  let cert;
  try {
    cert = socket.getPeerCertificate();
  } catch {
    return undefined;
  }
  if (cert === null || typeof cert !== 'object' || cert.subject === undefined) return undefined;
  const usages = cert.ext_key_usage;
  if (usages !== undefined && usages.length > 0 && !usages.includes(CLIENT_AUTH) && !usages.includes(ANY_EXTENDED_KEY_USAGE)) return undefined;
  const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
  const commonName = values(subject['CN']).at(-1);
  if (commonName === undefined || commonName === '') return undefined;
  return { commonName, organizations: values(subject['O']) };
}
