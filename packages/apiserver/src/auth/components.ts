/**
 * The identities of Setpoint's own components, as kubeadm gives them to Kubernetes' components:
 * client certificates of the cluster CA with
 *
 *   controller-manager   CN=system:kube-controller-manager
 *   scheduler            CN=system:kube-scheduler
 *   the agent of node N  CN=system:node:N, O=system:nodes
 *
 * kept in the data dir as DATA/components/<name>.crt and .key (key mode 0600), with a kubeconfig
 * beside them (DATA/components/<name>.kubeconfig, mode 0600) for a component run as a separate
 * process (`setpoint controller-manager --kubeconfig DATA/components/controller-manager.kubeconfig`).
 * Authorization of these users (their RBAC roles) is the authorizer's business, not this file's.
 */
import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { realClock, silentLogger, type Clock, type Logger } from '@setpoint/api';
import { certificateFiles, issueClientCertificate, RENEW_BEFORE_DAYS, SERVING_DAYS } from './certs.js';
import { CredentialsError } from './errors.js';
import { readFileIfExists, readSecretFile, writeFileAtomic } from './files.js';
import { renderKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { DAY_MS, parsePrivateKey, validity, type CertificateAndKey } from './pki.js';

/** The group of every node agent. */
export const NODES_GROUP = 'system:nodes';
/** The directory of the components' credentials in the data dir. */
export const COMPONENTS_DIR = 'components';

/** The user name of the agent of `nodeName`: `system:node:<nodeName>`. */
export function nodeUsername(nodeName: string): string {
  return `system:node:${nodeName}`;
}

/** A component's identity: the file name it is kept under and the user and groups it is. */
export interface ComponentIdentity {
  /** File name stem under DATA/components/: `controller-manager`, `scheduler`, `agent-<node>`. */
  readonly name: string;
  readonly user: string;
  readonly groups: readonly string[];
}

/** The controller-manager's identity. */
export const CONTROLLER_MANAGER_IDENTITY: ComponentIdentity = Object.freeze({ name: 'controller-manager', user: 'system:kube-controller-manager', groups: Object.freeze([]) });
/** The scheduler's identity. */
export const SCHEDULER_IDENTITY: ComponentIdentity = Object.freeze({ name: 'scheduler', user: 'system:kube-scheduler', groups: Object.freeze([]) });

/**
 * The identity of a process running simulated nodes (`--simulate-nodes`, `setpoint agent --simulate`):
 * one client acts for many nodes, so it cannot be one node's; RBAC binds it to system:node's rules.
 */
export const SIMULATED_NODES_IDENTITY: ComponentIdentity = Object.freeze({ name: 'simulated-nodes', user: 'setpoint:simulated-nodes', groups: Object.freeze([]) });

/** The identity of the agent of `nodeName`. */
export function agentIdentity(nodeName: string): ComponentIdentity {
  return { name: `agent-${nodeName}`, user: nodeUsername(nodeName), groups: [NODES_GROUP] };
}

/** What a component needs to reach the API server as itself (fits @setpoint/client's ClientConfig). */
export interface ComponentCredential {
  readonly identity: ComponentIdentity;
  /** The API server's URL, the CA to trust, and the client certificate and key (PEM). */
  readonly config: { readonly server: string; readonly ca: string; readonly cert: string; readonly key: string };
  /** DATA/components/<name>.kubeconfig. */
  readonly kubeconfigPath: string;
}

export interface EnsureComponentCredentialsOptions {
  /** The API server's data dir, with ca.crt and ca.key. */
  readonly dataDir: string;
  /** The API server's URL, written into the kubeconfigs. */
  readonly server: string;
  readonly identities: readonly ComponentIdentity[];
  readonly clock?: Pick<Clock, 'now'>;
  readonly logger?: Logger;
}

/** Subject attribute values of a certificate (Node prints the subject one `KEY=value` a line). */
function subjectValues(cert: X509Certificate, key: string): string[] {
  return cert.subject
    .split('\n')
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));
}

/** Whether `pair` is a certificate of `ca` for `identity`, matching its key, valid now and beyond the renewal window. */
function usable(pair: { cert: string | undefined; key: string | undefined }, ca: X509Certificate, identity: ComponentIdentity, now: number): pair is CertificateAndKey {
  if (pair.cert === undefined || pair.key === undefined) return false;
  try {
    const cert = new X509Certificate(pair.cert);
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey) || !cert.checkPrivateKey(parsePrivateKey(pair.key))) return false;
    if (subjectValues(cert, 'CN').join('\n') !== identity.user) return false;
    if (subjectValues(cert, 'O').sort().join('\n') !== [...identity.groups].sort().join('\n')) return false;
    const { notBefore, notAfter } = validity(cert);
    return now >= notBefore.getTime() && notAfter.getTime() - now > RENEW_BEFORE_DAYS * DAY_MS;
  } catch {
    return false;
  }
}

/**
 * The credentials of `identities` (see the file comment): each certificate reused while it is the
 * CA's, for that identity, and valid beyond RENEW_BEFORE_DAYS; otherwise issued anew (ECDSA P-256,
 * clientAuth, 1 year) and written. Every kubeconfig is rewritten (the server's URL may have
 * changed since the last start). Throws CredentialsError when ca.crt or ca.key is missing or
 * unusable (--insecure-http servers have no CA: they have no component certificates).
 */
export async function ensureComponentCredentials(options: EnsureComponentCredentialsOptions): Promise<ComponentCredential[]> {
  const { dataDir, server } = options;
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? realClock;
  const caPath = join(dataDir, certificateFiles.caCert);
  const caCert = await readFileIfExists(caPath);
  const caKey = await readSecretFile(join(dataDir, certificateFiles.caKey), logger);
  if (caCert === undefined || caKey === undefined) throw new CredentialsError('Malformed', `${caPath} and its key are needed to issue component certificates`, { path: caPath });
  const ca = new X509Certificate(caCert);
  const dir = join(dataDir, COMPONENTS_DIR);
  const out: ComponentCredential[] = [];
  for (const identity of options.identities) {
    const certPath = join(dir, `${identity.name}.crt`);
    const keyPath = join(dir, `${identity.name}.key`);
    let pair: CertificateAndKey;
    const current = { cert: await readFileIfExists(certPath), key: await readSecretFile(keyPath, logger) };
    if (usable(current, ca, identity, clock.now())) {
      pair = current;
    } else {
      pair = await issueClientCertificate({ ca: { cert: caCert, key: caKey }, commonName: identity.user, organizations: identity.groups, days: SERVING_DAYS, clock });
      await writeFileAtomic(keyPath, pair.key);
      await writeFileAtomic(certPath, pair.cert);
      logger.info({ path: certPath, user: identity.user, groups: identity.groups }, 'issued a component client certificate');
    }
    const kubeconfigPath = join(dir, `${identity.name}.kubeconfig`);
    await writeKubeconfig(kubeconfigPath, renderKubeconfig({ server, caCert, clientCertificate: pair, userName: identity.user }));
    out.push({ identity, config: { server, ca: caCert, cert: pair.cert, key: pair.key }, kubeconfigPath });
  }
  return out;
}
