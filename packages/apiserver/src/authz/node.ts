/**
 * The node authorizer (--authorization-mode=Node): what a node agent's credentials — user
 * `system:node:<name>` in group `system:nodes` — may reach, as Kubernetes' NodeAuthorizer (with
 * AuthorizeNodeWithSelectors, on by default since 1.32) decides it:
 *
 * - its own Node: get, list and watch by name (a list must select `metadata.name=<node>`); create,
 *   update and patch, and update and patch of nodes/status (NodeRestriction admission keeps those
 *   to its own object);
 * - its Lease in kube-node-lease: get, create, update, patch, delete, by its own name;
 * - pods: get of a pod bound to it; list and watch with the field selector
 *   `spec.nodeName=<node>`; create and delete, and update and patch of pods/status (admission keeps
 *   those to pods bound to it);
 * - secrets and configmaps: get, list and watch of one object (by name) that a pod bound to it
 *   references; serviceaccounts/token create for a service account such a pod runs as, and (beyond
 *   Kubernetes, whose ServiceAccount admission copies automountServiceAccountToken into the pod,
 *   which Setpoint's does not) get of that service account, so the agent can read the setting;
 * - everything else: the static rules of the system:node role (events, services, …).
 *
 * Anything else is no opinion (so RBAC may still allow it), with Kubernetes' reason.
 */
import type { UserInfo } from '../auth/index.js';
import { parseFieldSelector } from '@setpoint/api';
import type { PolicyRule } from '../registry/kinds/rbac/rbac.js';
import { ALLOW, NO_OPINION, type Attributes, type AuthorizationResult, type Authorizer, type RuleResolver, type RuleSet } from './authorizer.js';
import type { NodeGraph, ReferenceKind } from './nodegraph.js';
import { rule, rulesAllow } from './rules.js';

/** The group of node agents and the prefix of their user names. */
export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';
/** The namespace of node heartbeat leases. */
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/**
 * The node a user is (Kubernetes' default NodeIdentifier): `isNode` when the name starts with
 * `system:node:` and the user is in `system:nodes`; `nodeName` is the rest of the name ('' when
 * nothing follows the prefix).
 */
export function nodeIdentity(user: UserInfo): { readonly isNode: boolean; readonly nodeName: string } {
  if (!user.name.startsWith(NODE_USER_PREFIX) || !user.groups.includes(NODES_GROUP)) return { isNode: false, nodeName: '' };
  return { isNode: true, nodeName: user.name.slice(NODE_USER_PREFIX.length) };
}

/**
 * The rules every node has beyond the per-node decisions (from Kubernetes' system:node role, the
 * kinds the node authorizer does not subdivide).
 */
export const NODE_RULES: readonly PolicyRule[] = Object.freeze([
  rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
  rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews', 'subjectaccessreviews']),
  rule(['get', 'list', 'watch'], [''], ['services']),
  rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']),
  rule(['get'], [''], ['endpoints']),
  rule(['create', 'get', 'list', 'watch'], ['certificates.k8s.io'], ['certificatesigningrequests']),
  rule(['get', 'list', 'watch'], ['node.k8s.io'], ['runtimeclasses']),
]);

function deny(reason: string): AuthorizationResult {
  return { decision: 'NoOpinion', reason };
}

export class NodeAuthorizer implements Authorizer, RuleResolver {
  constructor(private readonly graph: NodeGraph) {}

  authorize(a: Attributes): AuthorizationResult {
    const { isNode, nodeName } = nodeIdentity(a.user);
    if (!isNode) return NO_OPINION;
    if (nodeName === '') return deny(`unknown node for user ${JSON.stringify(a.user.name)}`);
    if (a.resourceRequest) {
      if (a.apiGroup === '') {
        switch (a.resource) {
          case 'secrets':
            return this.readReferenced(nodeName, 'secret', a);
          case 'configmaps':
            return this.readReferenced(nodeName, 'configmap', a);
          case 'serviceaccounts':
            return this.createToken(nodeName, a);
          case 'nodes':
            return this.node(nodeName, a);
          case 'pods':
            return this.pod(nodeName, a);
        }
      } else if (a.apiGroup === 'coordination.k8s.io' && a.resource === 'leases') {
        return this.lease(nodeName, a);
      }
    }
    return rulesAllow(a, NODE_RULES) ? ALLOW : NO_OPINION;
  }

  /** Nodes have no enumerable rules (they depend on the pods bound to them): incomplete, as in Kubernetes. */
  rulesFor(user: UserInfo): RuleSet {
    if (!nodeIdentity(user).isNode) return { rules: [], incomplete: false, errors: [] };
    return { rules: NODE_RULES, incomplete: true, errors: ['node authorizer does not support user rule resolution'] };
  }

  private related(nodeName: string, found: boolean): AuthorizationResult {
    return found ? ALLOW : deny(`no relationship found between node '${nodeName}' and this object`);
  }

  /** authorizeReadNamespacedObject: get, list, watch of one named object a pod of the node references. */
  private readReferenced(nodeName: string, kind: ReferenceKind, a: Attributes): AuthorizationResult {
    if (a.verb !== 'get' && a.verb !== 'list' && a.verb !== 'watch') return deny('can only read resources of this type');
    if (a.subresource !== '') return deny('cannot read subresource');
    if (a.namespace === '') return deny('can only read namespaced object of this type');
    if (a.name === '') return deny('No Object name found');
    return this.related(nodeName, this.graph.references(nodeName, kind, a.namespace, a.name));
  }

  /** authorizeCreateToken: serviceaccounts/token of an account a pod of the node runs as (and get of that account). */
  private createToken(nodeName: string, a: Attributes): AuthorizationResult {
    if (a.verb === 'get' && a.subresource === '' && a.name !== '') return this.related(nodeName, this.graph.references(nodeName, 'serviceaccount', a.namespace, a.name));
    if (a.verb !== 'create' || a.name === '') return deny('can only create tokens for individual service accounts');
    if (a.subresource !== 'token') return deny('can only create token subresource of serviceaccount');
    return this.related(nodeName, this.graph.references(nodeName, 'serviceaccount', a.namespace, a.name));
  }

  /** authorizeLease: the node's own lease in kube-node-lease (create is checked by admission). */
  private lease(nodeName: string, a: Attributes): AuthorizationResult {
    if (!['get', 'create', 'update', 'patch', 'delete'].includes(a.verb)) return deny('can only get, create, update, patch, or delete a node lease');
    if (a.namespace !== NODE_LEASE_NAMESPACE) return deny(`can only access leases in the ${JSON.stringify(NODE_LEASE_NAMESPACE)} system namespace`);
    if (a.verb !== 'create' && a.name !== nodeName) return deny('can only access node lease with the same name as the requesting node');
    return ALLOW;
  }

  /** authorizeNode: its own Node object. */
  private node(nodeName: string, a: Attributes): AuthorizationResult {
    if (a.subresource === '') {
      switch (a.verb) {
        case 'create':
        case 'update':
        case 'patch':
          return ALLOW;
        case 'get':
        case 'list':
        case 'watch':
          if (a.name === nodeName) return ALLOW;
          if (a.name === '') return deny(`node '${nodeName}' cannot read all nodes, only its own Node object`);
          return deny(`node '${nodeName}' cannot read '${a.name}', only its own Node object`);
      }
    } else if (a.subresource === 'status' && (a.verb === 'update' || a.verb === 'patch')) {
      return ALLOW;
    }
    return NO_OPINION;
  }

  /** authorizePod: pods bound to the node. */
  private pod(nodeName: string, a: Attributes): AuthorizationResult {
    switch (a.subresource) {
      case '':
        switch (a.verb) {
          case 'get':
            if (a.name === '') return deny('No Object name found');
            return this.related(nodeName, this.graph.podOnNode(nodeName, a.namespace, a.name));
          case 'list':
          case 'watch':
            if (selectsNode(a.fieldSelector, nodeName)) return ALLOW;
            if (a.name !== '') return this.related(nodeName, this.graph.podOnNode(nodeName, a.namespace, a.name));
            return deny('can only list/watch pods with spec.nodeName field selector');
          case 'create':
          case 'delete':
            return ALLOW;
        }
        break;
      case 'status':
        if (a.verb === 'update' || a.verb === 'patch') return ALLOW;
        break;
      case 'eviction':
        if (a.verb === 'create') return ALLOW;
        break;
    }
    return NO_OPINION;
  }
}

/** Whether a field selector requires `spec.nodeName=<node>` (an unparsable one requires nothing). */
function selectsNode(fieldSelector: string | undefined, nodeName: string): boolean {
  if (fieldSelector === undefined || fieldSelector === '') return false;
  try {
    return parseFieldSelector(fieldSelector)
      .requirements()
      .some((r) => r.field === 'spec.nodeName' && r.operator === '=' && r.value === nodeName);
  } catch {
    return false;
  }
}
