/**
 * ServiceAccount tokens: JWTs the API server signs (the TokenRequest subresource issues them) and
 * accepts as bearer tokens, with Kubernetes' claims:
 *
 *   { "aud": [...], "exp": …, "iat": …, "iss": "https://kubernetes.default.svc.cluster.local",
 *     "jti": "<uuid>", "nbf": …, "sub": "system:serviceaccount:NS:NAME",
 *     "kubernetes.io": { "namespace": "NS", "serviceaccount": { "name": "NAME", "uid": "…" },
 *                        "pod": { "name": …, "uid": … },        (bound to a pod)
 *                        "secret": { "name": …, "uid": … },     (bound to a secret)
 *                        "node": { "name": …, "uid": … } } }    (the bound pod's node)
 *
 * A token authenticates as `system:serviceaccount:NS:NAME` (uid: the ServiceAccount's), in the
 * groups system:serviceaccounts, system:serviceaccounts:NS and system:authenticated, while: its
 * signature verifies with a key of sa.pub, it has not expired (60 s leeway, as go-jose), its
 * issuer is ours, one of its audiences is the API's, the ServiceAccount exists with the uid in the
 * token, and the pod or secret it is bound to exists with its uid. Deleting any of them revokes the
 * token (an object deleted gracefully stays usable until 60 s after its deletionTimestamp, as in
 * Kubernetes). Objects are read on every request (no cache), so revocation is immediate.
 */
import { randomUUID } from 'node:crypto';
import { realClock, silentLogger, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import { AUTHENTICATED_GROUP, type AuthenticationHeaders, type Authenticator, type UserInfo } from './authenticator.js';
import { checkRegisteredClaims, looksLikeJwt, signJwt, verifyJwt, type JwtClaims } from './jwt.js';
import type { ServiceAccountKeys } from './sakeys.js';
import { parseBearerToken } from './tokens.js';

/** The issuer (`iss`) of our tokens by default: kubeadm's, which in-cluster clients are used to. */
export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
/** The group of every ServiceAccount; each is also in `system:serviceaccounts:NS`. */
export const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
/** How far a token's times may be off, and how long a deleted object's tokens last after its deletionTimestamp. */
export const TOKEN_LEEWAY_SECONDS = 60;

/** The user name of a ServiceAccount: `system:serviceaccount:NS:NAME`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/** The groups of a ServiceAccount of `namespace`, system:authenticated included. */
export function serviceAccountGroups(namespace: string): string[] {
  return [SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${namespace}`, AUTHENTICATED_GROUP];
}

/** The kinds a token refers to, by resource. */
export type BoundResource = 'serviceaccounts' | 'pods' | 'secrets' | 'nodes';

/** Reads the objects tokens name: the object, or undefined when it does not exist (other failures throw). */
export interface BoundObjectReader {
  get(resource: BoundResource, namespace: string, name: string): Promise<KubeObject | undefined>;
}

export interface ServiceAccountTokenOptions {
  readonly keys: ServiceAccountKeys;
  /** `iss` of new tokens, and the only issuer accepted. Default DEFAULT_SERVICE_ACCOUNT_ISSUER. */
  readonly issuer?: string;
  /** The API's audiences: a token must carry one to authenticate here, and new tokens get them by default. Default [issuer]. */
  readonly audiences?: readonly string[];
  /** Time source (only `now()` is read). Default the real clock. */
  readonly clock?: Pick<Clock, 'now'>;
  /** Why a token was refused is logged at debug level (never the token). Default silent. */
  readonly logger?: Logger;
}

/** What a new token is bound to and for. */
export interface TokenBinding {
  readonly serviceAccount: KubeObject;
  /** The pod the token lives and dies with (and its node, when the pod is bound to one). */
  readonly pod?: KubeObject;
  readonly node?: { readonly name: string; readonly uid?: string };
  readonly secret?: KubeObject;
  /** Default the API's audiences. */
  readonly audiences?: readonly string[];
  readonly expirationSeconds: number;
}

/** A token and when it expires (epoch ms, whole seconds). */
export interface IssuedToken {
  readonly token: string;
  readonly expiresAt: number;
}

interface Ref {
  readonly name: string;
  readonly uid: string;
}

function refOf(obj: KubeObject): Ref {
  return { name: obj.metadata.name ?? '', uid: obj.metadata.uid ?? '' };
}

function readRef(value: unknown): Ref | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { name, uid } = value as { name?: unknown; uid?: unknown };
  return typeof name === 'string' && name !== '' && typeof uid === 'string' ? { name, uid } : undefined;
}

/**
 * Issues and authenticates ServiceAccount tokens (see the file comment). As an Authenticator it
 * declines (undefined) every bearer token that is not one of its valid tokens, so it sits beside
 * other token authenticators in a UnionAuthenticator.
 */
export class ServiceAccountTokens implements Authenticator {
  readonly issuer: string;
  readonly audiences: readonly string[];
  private readonly keys: ServiceAccountKeys;
  private readonly objects: BoundObjectReader;
  private readonly clock: Pick<Clock, 'now'>;
  private readonly logger: Logger;

  constructor(objects: BoundObjectReader, options: ServiceAccountTokenOptions) {
    this.objects = objects;
    this.keys = options.keys;
    this.issuer = options.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER;
    this.audiences = [...(options.audiences ?? [this.issuer])];
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
  }

  /** Signs a token for `binding`, valid from now for expirationSeconds. Assumes the caller checked the binding (routes/tokenrequest.ts). */
  issue(binding: TokenBinding): IssuedToken {
    const now = Math.floor(this.clock.now() / 1000);
    const exp = now + binding.expirationSeconds;
    const sa = binding.serviceAccount;
    const namespace = sa.metadata.namespace ?? '';
    const kubernetes: Record<string, unknown> = { namespace, serviceaccount: refOf(sa) };
    if (binding.node !== undefined) kubernetes['node'] = { name: binding.node.name, ...(binding.node.uid ? { uid: binding.node.uid } : {}) };
    if (binding.pod !== undefined) kubernetes['pod'] = refOf(binding.pod);
    if (binding.secret !== undefined) kubernetes['secret'] = refOf(binding.secret);
    const claims: JwtClaims = {
      aud: [...(binding.audiences ?? this.audiences)],
      exp,
      iat: now,
      iss: this.issuer,
      jti: randomUUID(),
      'kubernetes.io': kubernetes,
      nbf: now,
      sub: serviceAccountUsername(namespace, sa.metadata.name ?? ''),
    };
    return { token: signJwt(claims, this.keys.signingKey), expiresAt: exp * 1000 };
  }

  async authenticate(headers: AuthenticationHeaders): Promise<UserInfo | undefined> {
    const token = parseBearerToken(headers.authorization);
    if (token === undefined || !looksLikeJwt(token)) return undefined;
    const result = await this.review(token);
    if ('reason' in result) {
      this.logger.debug({ reason: result.reason }, 'ServiceAccount token refused');
      return undefined;
    }
    return result.user;
  }

  /**
   * The user a token authenticates as, or why it does not (for logs and tests: the API answers a
   * bare 401 whatever the reason). Rejects only when an object cannot be read (a store failure).
   */
  async review(token: string): Promise<{ readonly user: UserInfo } | { readonly reason: string }> {
    const claims = verifyJwt(token, this.keys.verifyingKeys);
    if (claims === undefined) return { reason: 'the signature does not verify with any ServiceAccount key' };
    const nowMs = this.clock.now();
    const invalid = checkRegisteredClaims(claims, { nowSeconds: nowMs / 1000, leewaySeconds: TOKEN_LEEWAY_SECONDS, issuers: [this.issuer], audiences: this.audiences });
    if (invalid !== undefined) return { reason: invalid };
    const k8s = claims['kubernetes.io'] as Record<string, unknown> | undefined;
    const namespace = k8s?.['namespace'];
    const saRef = readRef(k8s?.['serviceaccount']);
    if (typeof namespace !== 'string' || namespace === '' || saRef === undefined) return { reason: 'the token names no ServiceAccount' };
    if (claims['sub'] !== serviceAccountUsername(namespace, saRef.name)) return { reason: 'the subject is not the ServiceAccount the token names' };
    const deletedBefore = nowMs - TOKEN_LEEWAY_SECONDS * 1000;
    const gone = (obj: KubeObject | undefined, ref: Ref): boolean => {
      if (obj === undefined || obj.metadata.uid !== ref.uid) return true;
      const deletion = obj.metadata.deletionTimestamp;
      return deletion !== undefined && Date.parse(deletion) < deletedBefore;
    };
    const sa = await this.objects.get('serviceaccounts', namespace, saRef.name);
    if (gone(sa, saRef)) return { reason: `the ServiceAccount ${namespace}/${saRef.name} no longer exists (or is another one now)` };
    const extra: Record<string, string[]> = {};
    const podRef = readRef(k8s?.['pod']);
    if (k8s?.['pod'] !== undefined) {
      if (podRef === undefined) return { reason: 'the pod claim is malformed' };
      if (gone(await this.objects.get('pods', namespace, podRef.name), podRef)) return { reason: `the pod ${namespace}/${podRef.name} the token is bound to is gone` };
      extra['authentication.kubernetes.io/pod-name'] = [podRef.name];
      extra['authentication.kubernetes.io/pod-uid'] = [podRef.uid];
    }
    const secretRef = readRef(k8s?.['secret']);
    if (k8s?.['secret'] !== undefined) {
      if (secretRef === undefined) return { reason: 'the secret claim is malformed' };
      if (gone(await this.objects.get('secrets', namespace, secretRef.name), secretRef)) return { reason: `the secret ${namespace}/${secretRef.name} the token is bound to is gone` };
    }
    const node = k8s?.['node'] as { name?: unknown; uid?: unknown } | undefined;
    if (typeof node?.name === 'string' && node.name !== '') {
      extra['authentication.kubernetes.io/node-name'] = [node.name];
      if (typeof node.uid === 'string' && node.uid !== '') extra['authentication.kubernetes.io/node-uid'] = [node.uid];
    }
    if (typeof claims['jti'] === 'string') extra['authentication.kubernetes.io/credential-id'] = [`JTI=${claims['jti']}`];
    return {
      user: {
        name: serviceAccountUsername(namespace, saRef.name),
        uid: saRef.uid,
        groups: serviceAccountGroups(namespace),
        ...(Object.keys(extra).length > 0 ? { extra } : {}),
      },
    };
  }
}
