/**
 * Authorization, wired for the API server: the authorizers of the chosen modes (kube-apiserver's
 * --authorization-mode: `Node,RBAC` by default when requests are authenticated), behind the
 * system:masters bypass; the default roles and bindings and the ClusterRole aggregation
 * controller (RBAC); the pod graph of the node authorizer (Node); and the admission checks that
 * need the object being written (escalation prevention, node restriction).
 *
 * Expected flow: `Authorization.start(host, options)` once the watch caches are primed and before
 * the server listens; `check(attributes)` for every authenticated request (synchronous, from
 * memory); `nodeRestriction(user, info)` and `escalationCheck(user, info)` for the admission chain (admission/plugins.ts); `review(…)` for the authorization.k8s.io reviews;
 * `stop()` with the server.
 */
import { ApiError, silentLogger, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import type { UserInfo } from '../auth/index.js';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import type { ResourceDef } from '../registry/types.js';
import type { ResourceStorage } from '../storage/rest.js';
import { ClusterRoleAggregator } from './aggregation.js';
import { AlwaysAllowAuthorizer, PrivilegedGroupAuthorizer, UnionAuthorizer, type Attributes, type Authorizer, type RuleResolver } from './authorizer.js';
import { ensureBootstrapPolicy } from './bootstrap.js';
import { EscalationCheck } from './escalation.js';
import { forbiddenError } from './forbidden.js';
import { NodeAuthorizer } from './node.js';
import { NodeGraph } from './nodegraph.js';
import { nodeRestriction, type RequestAdmission } from './noderestriction.js';
import { RbacPolicy } from './policy.js';
import { RbacAuthorizer } from './rbac.js';
import { answerReview } from './reviews.js';

/** The authorization modes Setpoint has (kube-apiserver's names). */
export const AUTHORIZATION_MODES = ['AlwaysAllow', 'Node', 'RBAC'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];
/** What `setpoint server` uses unless told otherwise. */
export const DEFAULT_AUTHORIZATION_MODES: readonly AuthorizationMode[] = ['Node', 'RBAC'];

/**
 * Parses `--authorization-mode`: a comma-separated list of modes, each at most once. Throws
 * TypeError naming what is wrong.
 */
export function parseAuthorizationModes(text: string): AuthorizationMode[] {
  const modes = text
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  if (modes.length === 0) throw new TypeError('--authorization-mode needs at least one mode');
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new TypeError(`authorization mode ${JSON.stringify(m)} is not one of ${AUTHORIZATION_MODES.join(', ')}`);
  }
  if (new Set(modes).size !== modes.length) throw new TypeError('each authorization mode may appear only once');
  return modes as AuthorizationMode[];
}

export interface AuthorizationOptions {
  /** The modes, in order. Default DEFAULT_AUTHORIZATION_MODES. */
  readonly modes?: readonly AuthorizationMode[];
  /** How often aggregated ClusterRoles are looked at again. Default 5 minutes. */
  readonly aggregationResyncMs?: number;
}

/** The storages authorization reads and writes (those of the served built-in kinds). */
export interface AuthorizationHost {
  storageOf(group: string, resource: string): ResourceStorage | undefined;
}

function required(host: AuthorizationHost, group: string, resource: string, mode: string): ResourceStorage {
  const storage = host.storageOf(group, resource);
  if (storage === undefined) throw new Error(`authorization mode ${mode} needs ${resource}${group === '' ? '' : `.${group}`} to be served`);
  return storage;
}

export class Authorization {
  readonly modes: readonly AuthorizationMode[];
  /** The union of the modes, behind the system:masters bypass. */
  readonly authorizer: Authorizer;
  private readonly reviewAuthorizer: Authorizer;
  private readonly ruleResolvers: RuleResolver[];
  private readonly policy: RbacPolicy | undefined;
  private readonly graph: NodeGraph | undefined;
  private readonly escalation: EscalationCheck | undefined;
  private readonly pods: ResourceStorage | undefined;
  private readonly nodes: ResourceStorage | undefined;
  private aggregator: ClusterRoleAggregator | undefined;

  private constructor(
    private readonly host: AuthorizationHost,
    options: AuthorizationOptions,
  ) {
    this.modes = [...(options.modes ?? DEFAULT_AUTHORIZATION_MODES)];
    const chain: Authorizer[] = [new PrivilegedGroupAuthorizer()];
    const explained: Authorizer[] = [new PrivilegedGroupAuthorizer()];
    this.ruleResolvers = [];
    for (const mode of this.modes) {
      switch (mode) {
        case 'AlwaysAllow': {
          const a = new AlwaysAllowAuthorizer();
          chain.push(a);
          explained.push(a);
          this.ruleResolvers.push(a);
          break;
        }
        case 'Node': {
          this.pods = required(host, '', 'pods', mode);
          this.nodes = required(host, '', 'nodes', mode);
          this.graph = new NodeGraph(this.pods.cache);
          const a = new NodeAuthorizer(this.graph);
          chain.push(a);
          explained.push(a);
          this.ruleResolvers.push(a);
          break;
        }
        case 'RBAC': {
          const rbac = 'rbac.authorization.k8s.io';
          this.policy = new RbacPolicy({
            roles: required(host, rbac, 'roles', mode).cache,
            clusterRoles: required(host, rbac, 'clusterroles', mode).cache,
            roleBindings: required(host, rbac, 'rolebindings', mode).cache,
            clusterRoleBindings: required(host, rbac, 'clusterrolebindings', mode).cache,
          });
          const a = new RbacAuthorizer(this.policy);
          chain.push(a);
          explained.push(a.explaining());
          this.ruleResolvers.push(a);
          break;
        }
      }
    }
    this.authorizer = new UnionAuthorizer(chain);
    this.reviewAuthorizer = new UnionAuthorizer(explained);
    if (this.policy !== undefined) this.escalation = new EscalationCheck(this.policy, this.authorizer);
  }

  /**
   * Sets authorization up: with RBAC, ensures the default roles and bindings and starts the
   * aggregation controller (resolving once admin, edit and view hold their rules); with Node,
   * builds the pod graph. Throws when a mode needs a kind that is not served.
   */
  static async start(host: AuthorizationHost, options: AuthorizationOptions & { readonly clock: Clock; readonly logger?: Logger }): Promise<Authorization> {
    const authorization = new Authorization(host, options);
    const logger = (options.logger ?? silentLogger).child({ component: 'authorization' });
    authorization.graph?.start();
    if (authorization.policy !== undefined) {
      const rbac = 'rbac.authorization.k8s.io';
      const clusterRoles = required(host, rbac, 'clusterroles', 'RBAC');
      await ensureBootstrapPolicy({ clusterRoles, clusterRoleBindings: required(host, rbac, 'clusterrolebindings', 'RBAC') }, logger);
      authorization.aggregator = new ClusterRoleAggregator(clusterRoles, {
        clock: options.clock,
        logger,
        ...(options.aggregationResyncMs !== undefined ? { resyncMs: options.aggregationResyncMs } : {}),
      });
      await authorization.aggregator.start();
    }
    logger.info({ modes: authorization.modes }, 'authorization ready');
    return authorization;
  }

  /** Authorization that allows everything (AlwaysAllow), for reviews on servers that authorize nothing. */
  static allowAll(): Authorization {
    return new Authorization({ storageOf: () => undefined }, { modes: ['AlwaysAllow'] });
  }

  stop(): void {
    this.aggregator?.stop();
    this.graph?.stop();
    this.policy?.close();
  }

  /** Resolves once the aggregation controller has nothing queued (tests). */
  async idle(): Promise<void> {
    await this.aggregator?.idle();
  }

  /** The 403 for a request the authorizers refuse, or undefined when it is allowed. */
  check(attributes: Attributes): ApiError | undefined {
    const result = this.authorizer.authorize(attributes);
    return result.decision === 'Allow' ? undefined : forbiddenError(attributes, result.reason);
  }

  /**
   * NodeRestriction's checks of a resource request by `user` (undefined when the user is not a
   * node, the request writes nothing, or the node authorizer is off).
   */
  nodeRestriction(user: UserInfo, info: ResourceRequestInfo): RequestAdmission | undefined {
    if (this.graph === undefined) return undefined;
    return nodeRestriction(user, info, {
      pod: async (namespace, name) => {
        try {
          return await this.pods!.get(namespace, name);
        } catch (err) {
          if (err instanceof ApiError && err.reason === 'NotFound') return undefined;
          throw err;
        }
      },
      node: (name) => this.nodes!.cache.get('', name),
    });
  }

  /** RBAC's escalation check of a write of a role or binding by `user` (undefined for every other request). */
  escalationCheck(user: UserInfo, info: ResourceRequestInfo): RequestAdmission | undefined {
    if (this.escalation === undefined || info.group !== 'rbac.authorization.k8s.io' || info.subresource !== '') return undefined;
    if (info.verb !== 'create' && info.verb !== 'update' && info.verb !== 'patch') return undefined;
    const resource = info.resource;
    if (resource !== 'roles' && resource !== 'clusterroles' && resource !== 'rolebindings' && resource !== 'clusterrolebindings') return undefined;
    const write = this.escalation.admission({ user, resource, namespace: info.namespace, name: info.name });
    return write === undefined ? undefined : { write };
  }

  /** Answers an authorization.k8s.io review posted by `user` (see reviews.ts). */
  review(def: ResourceDef, body: unknown, user: UserInfo, namespace: string): KubeObject {
    return answerReview(def, body, user, namespace, { authorizer: this.reviewAuthorizer, ruleResolvers: this.ruleResolvers });
  }
}
