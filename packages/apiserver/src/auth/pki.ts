/**
 * The certificate mechanics under certs.ts: key pairs, PEM, host names as subject alternative
 * names, and signing a certificate with a CA. Internal to auth/; certs.ts is the public face.
 *
 * Keys we generate are ECDSA P-256 (milliseconds to make; Go's TLS, hence kubectl, and Node
 * accept them). Keys we load may also be ECDSA P-384/P-521 or RSA, so an operator can put a CA
 * of their own in the data dir.
 */
// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API
// installed before it loads: this import must stay above the next one.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { createPrivateKey, randomBytes, webcrypto, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import { CredentialsError } from './errors.js';

const subtle = webcrypto.subtle;

/** A certificate and its private key, both PEM (key as PKCS#8 when we made it). */
export interface CertificateAndKey {
  readonly cert: string;
  readonly key: string;
}

export const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * How far notBefore lies in the past, so that a machine whose clock is a little behind ours
 * accepts a certificate issued this second (kubeadm backdates by the same amount).
 */
export const BACKDATE_MS = 5 * 60 * 1000;

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** A private key ready to sign with, and the algorithm (with hash) that signs with it. */
interface SigningKey {
  readonly key: webcrypto.CryptoKey;
  readonly algorithm: { name: string; hash: string };
}

/** Web Crypto parameters per OpenSSL curve name, with the hash Go pairs with each curve. */
const curves: Record<string, { namedCurve: string; hash: string }> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
  secp521r1: { namedCurve: 'P-521', hash: 'SHA-512' },
};

/** Parses a PEM private key (PKCS#8, SEC1 or PKCS#1). Throws CredentialsError (Malformed). */
export function parsePrivateKey(pem: string, path?: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch (err) {
    throw new CredentialsError('Malformed', `${path ?? 'private key'}: not a PEM private key`, { path, cause: err });
  }
}

/** Parses a PEM certificate. Throws CredentialsError (Malformed). */
export function parseCertificate(pem: string, path?: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (err) {
    throw new CredentialsError('Malformed', `${path ?? 'certificate'}: not a PEM certificate`, { path, cause: err });
  }
}

/** The certificate's validity period as dates (Node 20's X509Certificate gives only strings). */
export function validity(cert: X509Certificate): { notBefore: Date; notAfter: Date } {
  const parsed = new x509.X509Certificate(cert.raw);
  return { notBefore: parsed.notBefore, notAfter: parsed.notAfter };
}

/** Imports a loaded private key for signing. Throws CredentialsError (Unsupported) for other key types. */
async function signingKeyOf(key: KeyObject, path?: string): Promise<SigningKey> {
  const pkcs8 = key.export({ type: 'pkcs8', format: 'der' });
  if (key.asymmetricKeyType === 'ec') {
    const curve = curves[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (curve !== undefined) {
      const imported = await subtle.importKey('pkcs8', pkcs8, { name: 'ECDSA', namedCurve: curve.namedCurve }, false, ['sign']);
      return { key: imported, algorithm: { name: 'ECDSA', hash: curve.hash } };
    }
  } else if (key.asymmetricKeyType === 'rsa') {
    const algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
    return { key: await subtle.importKey('pkcs8', pkcs8, algorithm, false, ['sign']), algorithm };
  }
  const what = `${key.asymmetricKeyType ?? 'unknown'} ${key.asymmetricKeyDetails?.namedCurve ?? ''}`.trim();
  throw new CredentialsError('Unsupported', `${path ?? 'private key'}: cannot sign with a ${what} key (ECDSA P-256/384/521 or RSA only)`, { path });
}

/** A fresh ECDSA P-256 key pair, the private half exportable. */
export async function generateKeyPair(): Promise<webcrypto.CryptoKeyPair> {
  return subtle.generateKey(P256, true, ['sign', 'verify']);
}

/** The private key as PKCS#8 PEM. */
export async function privateKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** A random positive 128-bit serial number in hex (RFC 5280: positive, at most 20 octets). */
function serialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x01; // positive, and no leading zero octet to strip
  return bytes.toString('hex');
}

/** Hosts split by kind, each list deduplicated, DNS names lower-cased. */
export interface SubjectAltNames {
  readonly dnsNames: readonly string[];
  readonly ips: readonly string[];
}

const dnsLabel = /^(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)$/;

/** Whether `name` is a DNS name a certificate may carry (optionally a leading `*.` wildcard). */
export function isDnsName(name: string): boolean {
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  if (labels[0] === '*' && labels.length > 1) labels.shift();
  return labels.every((label) => dnsLabel.test(label));
}

/**
 * Sorts hosts into DNS names and IP addresses. Accepts IPv6 in brackets (`[::1]`) and DNS names
 * with a trailing dot. Throws CredentialsError (InvalidHost) for anything else.
 */
export function subjectAltNames(hosts: Iterable<string>): SubjectAltNames {
  const dnsNames = new Set<string>();
  const ips = new Set<string>();
  for (const raw of hosts) {
    let host = raw.trim();
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
    if (isIP(host) !== 0) {
      ips.add(host.toLowerCase());
      continue;
    }
    host = host.toLowerCase().replace(/\.$/, '');
    if (!isDnsName(host)) throw new CredentialsError('InvalidHost', `"${raw}" is neither an IP address nor a DNS name`);
    dnsNames.add(host);
  }
  return { dnsNames: [...dnsNames], ips: [...ips] };
}

/** The hosts of `names` the certificate does not cover with a subject alternative name. */
export function uncoveredHosts(cert: X509Certificate, names: SubjectAltNames): string[] {
  return [
    ...names.dnsNames.filter((name) => cert.checkHost(name, { subject: 'never', wildcards: false }) === undefined),
    ...names.ips.filter((ip) => cert.checkIP(ip) === undefined),
  ];
}

/** What a certificate is for; decides its extensions. */
export type CertificateProfile =
  | { readonly kind: 'ca' }
  | { readonly kind: 'server'; readonly names: SubjectAltNames }
  | { readonly kind: 'client' };

/** The subject as a list of RDNs, each with one attribute (as Go writes pkix.Name). */
export type Subject = readonly { readonly [attribute: string]: string[] }[];

export interface IssueOptions {
  readonly subject: Subject;
  readonly profile: CertificateProfile;
  /** The signer; undefined for a self-signed certificate (a new CA). */
  readonly ca: CertificateAndKey | undefined;
  /** Issue time, epoch ms. notBefore is BACKDATE_MS earlier. */
  readonly now: number;
  /** Lifetime from `now`, in days; cut to the CA's own notAfter when that comes first. */
  readonly days: number;
}

/**
 * Makes a key pair and a certificate for it, signed by `ca` (or by itself when `ca` is
 * undefined). Throws CredentialsError when the CA's certificate or key is unusable, RangeError
 * for a lifetime that is not a positive number of days.
 */
export async function issueCertificate(options: IssueOptions): Promise<CertificateAndKey> {
  const { subject, profile, ca, now, days } = options;
  if (!(days > 0) || !Number.isFinite(days)) throw new RangeError(`certificate lifetime must be a positive number of days, got ${days}`);
  const keys = await generateKeyPair();
  let notAfter = now + days * DAY_MS;
  let signer: SigningKey;
  let issuer: x509.X509Certificate | undefined;
  if (ca === undefined) {
    signer = { key: keys.privateKey, algorithm: { name: 'ECDSA', hash: 'SHA-256' } };
  } else {
    issuer = new x509.X509Certificate(parseCertificate(ca.cert).raw);
    signer = await signingKeyOf(parsePrivateKey(ca.key));
    notAfter = Math.min(notAfter, issuer.notAfter.getTime());
  }

  const extensions: x509.Extension[] = [await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, webcrypto)];
  if (issuer !== undefined) {
    extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuer.publicKey, false, webcrypto));
  }
  const flags = x509.KeyUsageFlags;
  switch (profile.kind) {
    case 'ca':
      extensions.push(
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(flags.keyCertSign | flags.cRLSign | flags.digitalSignature, true),
      );
      break;
    case 'server':
      extensions.push(
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(flags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          ...profile.names.dnsNames.map((value) => ({ type: 'dns' as const, value })),
          ...profile.names.ips.map((value) => ({ type: 'ip' as const, value })),
        ]),
      );
      break;
    case 'client':
      extensions.push(
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(flags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      );
      break;
  }

  const name = subject.map((rdn) => ({ ...rdn }));
  const common = {
    serialNumber: serialNumber(),
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(notAfter),
    extensions,
    signingAlgorithm: signer.algorithm,
  };
  const cert =
    issuer === undefined
      ? await x509.X509CertificateGenerator.createSelfSigned({ ...common, name, keys }, webcrypto)
      : await x509.X509CertificateGenerator.create(
          { ...common, subject: name, issuer: issuer.subjectName, publicKey: keys.publicKey, signingKey: signer.key },
          webcrypto,
        );
  return { cert: cert.toString('pem') + '\n', key: await privateKeyPem(keys.privateKey) + '\n' };
}
