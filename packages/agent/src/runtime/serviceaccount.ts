/**
 * PodIdentities: each pod's ServiceAccount identity, as the kubelet projects it (the
 * kube-api-access volume): a token bound to the pod, requested through the TokenRequest
 * subresource, with the cluster CA and the pod's namespace beside it, refreshed before it expires.
 *
 * Kubernetes mounts these files at /var/run/secrets/kubernetes.io/serviceaccount inside the
 * container. The process runtime runs pods as plain processes on the host's file system, where
 * that path cannot be each pod's own; so the files go into the pod's directory
 * (`<podDir>/serviceaccount/{token,ca.crt,namespace}`) and the environment names it
 * (SETPOINT_SERVICE_ACCOUNT_DIR, which @setpoint/client's in-cluster config reads), beside
 * KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT (the API server as the agent reaches it).
 *
 * Expected flow: `mount(pod, podDir)` before a container starts → the environment to add. The
 * first call for a pod (concurrent calls share it) reads the ServiceAccount when the pod does not
 * say whether to mount (spec.automountServiceAccountToken unset: the account's own field decides,
 * default yes), requests a token of `expirationSeconds` bound to the pod, and writes the files;
 * later calls answer at once. The token is requested again at 80% of its lifetime (the kubelet's
 * rule) and replaced atomically (write, then rename); a failed refresh is retried with backoff
 * (10 s doubling to 5 min) while the old token lasts. `forget(uid)` stops a pod's refreshes.
 *
 * Errors: `mount` throws ContainerConfigError (the container waits in CreateContainerConfigError
 * and is retried) when the ServiceAccount is missing or the token request fails, with Kubernetes'
 * wording (`failed to fetch token: serviceaccounts "x" not found`).
 */
import { randomBytes } from 'node:crypto';
import { chmod, chown, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isApiError, realClock, silentLogger, type Clock, type Logger, type Pod, type ServiceAccount, type Timer } from '@setpoint/api';
import { SERVICE_ACCOUNT_DIR_ENV, type Client, type DeepReadonly } from '@setpoint/client';
import { exponentialBackoff } from '@setpoint/workqueue';
import { ContainerConfigError } from './env.js';
import type { ProcessUser } from './users.js';

/**
 * Who a pod's identity files belong to: `user` (the pod's), and whether other uids of the pod
 * must read them too (`shared`: containers of one pod run as different users). Private: the
 * directory 0700 and the files 0600, the user's; shared: 0750 and 0640, readable by the user's
 * group too (containers of other uids read them when they share that gid, as with fsGroup).
 */
export interface IdentityOwner {
  readonly user: ProcessUser;
  readonly shared: boolean;
}

/** The directory under a pod's directory that holds its identity. */
export const SERVICE_ACCOUNT_SUBDIR = 'serviceaccount';

export interface PodIdentitiesOptions {
  /** Reads ServiceAccounts and requests tokens (POST serviceaccounts/NAME/token). */
  readonly client: Pick<Client, 'serviceAccounts'>;
  /** The API server's URL as pods reach it (https://host:port). */
  readonly server: string;
  /** The cluster CA (PEM), written as ca.crt. */
  readonly ca: string;
  /** Lifetime asked of each token. Default 3600 s (the API server's minimum is 600). */
  readonly expirationSeconds?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

interface Mounted {
  readonly uid: string;
  readonly dir: string;
  readonly namespace: string;
  readonly podName: string;
  readonly serviceAccount: string;
  readonly owner: IdentityOwner | undefined;
  issuedAt: number;
  expiresAt: number;
  failures: number;
  timer?: Timer;
  closed: boolean;
}

/** A first mount under way; `forget` cancels it (it then keeps nothing). */
interface Pending {
  cancelled: boolean;
  done?: Promise<Mounted | undefined>;
}

/** The ServiceAccount a pod runs as: serviceAccountName, else the deprecated serviceAccount, else "default". */
export function podServiceAccount(pod: DeepReadonly<Pod>): string {
  return pod.spec?.serviceAccountName || pod.spec?.serviceAccount || 'default';
}

/** Writes `data` to `path` whole or not at all (a temporary file beside it, then rename), owned by `owner` when given. */
async function writeAtomic(path: string, data: string, mode: number, owner?: ProcessUser): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, data, { mode });
    await chmod(temp, mode);
    if (owner !== undefined) await chown(temp, owner.uid, owner.gid);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/** The identities of the pods of one agent (see the file comment). */
export class PodIdentities {
  readonly #o: PodIdentitiesOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #env: Readonly<Record<string, string>>;
  readonly #mounted = new Map<string, Mounted>();
  readonly #pending = new Map<string, Pending>();
  /** Pods whose ServiceAccount says not to mount a token. */
  readonly #declined = new Set<string>();
  #closed = false;

  /** Throws TypeError when `server` is not an https URL. */
  constructor(options: PodIdentitiesOptions) {
    const url = new URL(options.server);
    if (url.protocol !== 'https:') throw new TypeError(`pod identities need an https API server, not ${options.server}`);
    this.#o = options;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#env = { KUBERNETES_SERVICE_HOST: url.hostname.replace(/^\[(.*)\]$/, '$1'), KUBERNETES_SERVICE_PORT: url.port === '' ? '443' : url.port };
  }

  /** Whether `uid`'s identity is settled: mounted (and kept fresh), or declined by its ServiceAccount. */
  has(uid: string): boolean {
    return this.#mounted.has(uid) || this.#declined.has(uid);
  }

  /**
   * The environment a container of `pod` gets: KUBERNETES_SERVICE_HOST and _PORT always, and
   * SETPOINT_SERVICE_ACCOUNT_DIR when the identity is mounted (mounting it first if need be), its
   * files given to `owner` when given (the first mount decides). Throws ContainerConfigError (see
   * the file comment).
   */
  async mount(pod: DeepReadonly<Pod>, podDir: string, owner?: IdentityOwner): Promise<Record<string, string>> {
    const uid = pod.metadata.uid ?? '';
    let mounted = this.#mounted.get(uid);
    if (mounted === undefined && pod.spec?.automountServiceAccountToken !== false && !this.#declined.has(uid) && !this.#closed) {
      let pending = this.#pending.get(uid);
      if (pending === undefined) {
        const entry: Pending = { cancelled: false };
        entry.done = this.#first(pod, podDir, entry, owner).finally(() => {
          if (this.#pending.get(uid) === entry) this.#pending.delete(uid);
        });
        this.#pending.set(uid, entry);
        pending = entry;
      }
      mounted = await pending.done;
    }
    return mounted === undefined ? { ...this.#env } : { ...this.#env, [SERVICE_ACCOUNT_DIR_ENV]: mounted.dir };
  }

  /** Stops refreshing `uid`'s token (the pod is gone; its directory goes with it). */
  forget(uid: string): void {
    const pending = this.#pending.get(uid);
    if (pending !== undefined) pending.cancelled = true;
    this.#pending.delete(uid);
    this.#declined.delete(uid);
    const mounted = this.#mounted.get(uid);
    if (mounted === undefined) return;
    mounted.closed = true;
    mounted.timer?.cancel();
    this.#mounted.delete(uid);
  }

  /** Stops every refresh (the agent stops; the files stay for the processes that keep running). */
  close(): void {
    this.#closed = true;
    for (const uid of [...this.#mounted.keys(), ...this.#pending.keys(), ...this.#declined]) this.forget(uid);
  }

  async #first(pod: DeepReadonly<Pod>, podDir: string, pending: Pending, owner: IdentityOwner | undefined): Promise<Mounted | undefined> {
    const namespace = pod.metadata.namespace ?? 'default';
    const name = podServiceAccount(pod);
    if (pod.spec?.automountServiceAccountToken === undefined) {
      let sa: ServiceAccount;
      try {
        sa = await this.#o.client.serviceAccounts().get(name, { namespace });
      } catch (err) {
        throw new ContainerConfigError(`failed to fetch token: ${(err as Error).message}`, { cause: err });
      }
      if (sa.automountServiceAccountToken === false) {
        if (!pending.cancelled) this.#declined.add(pod.metadata.uid ?? '');
        return undefined;
      }
    }
    const mounted: Mounted = {
      uid: pod.metadata.uid ?? '',
      dir: join(podDir, SERVICE_ACCOUNT_SUBDIR),
      namespace,
      podName: pod.metadata.name ?? '',
      serviceAccount: name,
      owner,
      issuedAt: 0,
      expiresAt: 0,
      failures: 0,
      closed: false,
    };
    const token = await this.#request(mounted).catch((err: unknown) => {
      throw new ContainerConfigError(`failed to fetch token: ${(err as Error).message}`, { cause: err });
    });
    if (pending.cancelled || this.#closed) return undefined;
    const shared = owner?.shared === true;
    await mkdir(mounted.dir, { recursive: true, mode: 0o700 });
    await chmod(mounted.dir, shared ? 0o750 : 0o700);
    if (owner !== undefined) await chown(mounted.dir, owner.user.uid, owner.user.gid);
    await writeAtomic(join(mounted.dir, 'ca.crt'), this.#o.ca, shared ? 0o640 : 0o600, owner?.user);
    await writeAtomic(join(mounted.dir, 'namespace'), namespace, shared ? 0o640 : 0o600, owner?.user);
    await writeAtomic(join(mounted.dir, 'token'), token, shared ? 0o640 : 0o600, owner?.user);
    if (pending.cancelled || this.#closed) return undefined;
    this.#mounted.set(mounted.uid, mounted);
    this.#logger.info({ pod: `${namespace}/${mounted.podName}`, serviceAccount: name, expiresAt: new Date(mounted.expiresAt).toISOString() }, 'mounted the pod\'s ServiceAccount token');
    this.#schedule(mounted, mounted.issuedAt + 0.8 * (mounted.expiresAt - mounted.issuedAt) - this.#clock.now());
    return mounted;
  }

  /** Requests a token for `m` and records when it was issued and expires; returns it. */
  async #request(m: Mounted): Promise<string> {
    const issuedAt = this.#clock.now();
    const body = {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: this.#o.expirationSeconds ?? 3600, boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: m.podName, uid: m.uid } },
    };
    const res = await this.#o.client.serviceAccounts().createSubresource<{ status?: { token?: string; expirationTimestamp?: string } }>(m.serviceAccount, 'token', body, { namespace: m.namespace });
    const token = res.status?.token;
    const expiresAt = Date.parse(res.status?.expirationTimestamp ?? '');
    if (token === undefined || token === '' || Number.isNaN(expiresAt)) throw new Error('the TokenRequest answer holds no token');
    m.issuedAt = issuedAt;
    m.expiresAt = expiresAt;
    return token;
  }

  #schedule(m: Mounted, delayMs: number): void {
    if (m.closed) return;
    m.timer = this.#clock.setTimeout(() => void this.#refresh(m), Math.max(0, delayMs));
  }

  async #refresh(m: Mounted): Promise<void> {
    if (m.closed) return;
    try {
      const token = await this.#request(m);
      if (m.closed) return;
      await writeAtomic(join(m.dir, 'token'), token, m.owner?.shared === true ? 0o640 : 0o600, m.owner?.user);
      m.failures = 0;
      this.#logger.debug({ pod: `${m.namespace}/${m.podName}`, expiresAt: new Date(m.expiresAt).toISOString() }, 'refreshed the pod\'s ServiceAccount token');
      this.#schedule(m, m.issuedAt + 0.8 * (m.expiresAt - m.issuedAt) - this.#clock.now());
    } catch (err) {
      if (m.closed) return;
      m.failures++;
      const delay = exponentialBackoff(m.failures - 1, 10_000, 300_000);
      const gone = isApiError(err, 'NotFound');
      this.#logger.warn({ err, pod: `${m.namespace}/${m.podName}`, retryInMs: delay, gone }, 'cannot refresh the pod\'s ServiceAccount token; retrying');
      this.#schedule(m, delay);
    }
  }
}
