/**
 * The default roles and bindings every cluster has (Kubernetes' bootstrap policy), ensured at every
 * start (bootstrap.ts):
 *
 * - cluster-admin (everything), bound to the group system:masters;
 * - admin, edit and view, aggregated from ClusterRoles labelled
 *   rbac.authorization.k8s.io/aggregate-to-admin|edit|view (view ⊂ edit ⊂ admin), with
 *   system:aggregate-to-* holding Kubernetes' rules for the built-in kinds — label a CRD's
 *   ClusterRole the same way and admin/edit/view grant it too;
 * - system:basic-user (reviews of oneself), system:discovery (discovery, OpenAPI, /version,
 *   health) and system:public-info-viewer (/version and health) for system:authenticated (the last
 *   also for system:unauthenticated); system:monitoring (/metrics) for the group system:monitoring;
 * - system:node (what the node authorizer grants every node; bound to nobody, as in Kubernetes);
 * - least-privilege roles of Setpoint's components, written from what they do:
 *   system:kube-controller-manager (user system:kube-controller-manager) and
 *   system:kube-scheduler (user system:kube-scheduler), setpoint:simulated-nodes (user
 *   setpoint:simulated-nodes: one client acting for many simulated nodes).
 */
import { RBAC_GROUP, type PolicyRule, type Subject } from '../registry/kinds/rbac/rbac.js';
import { NODE_RULES } from './node.js';
import { rule, urlRule } from './rules.js';

/** The annotation that lets the defaults be reconciled ("false" protects an edited default). */
export const AUTOUPDATE_ANNOTATION = 'rbac.authorization.kubernetes.io/autoupdate';
/** The label every default carries. */
export const BOOTSTRAPPING_LABEL = 'kubernetes.io/bootstrapping';
export const AGGREGATE_TO_ADMIN = 'rbac.authorization.k8s.io/aggregate-to-admin';
export const AGGREGATE_TO_EDIT = 'rbac.authorization.k8s.io/aggregate-to-edit';
export const AGGREGATE_TO_VIEW = 'rbac.authorization.k8s.io/aggregate-to-view';

/** The user names of Setpoint's components. */
export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
export const SCHEDULER_USER = 'system:kube-scheduler';
/** The user of a process running simulated nodes (auth/components.ts SIMULATED_NODES_IDENTITY). */
export const SIMULATED_NODES_USER = 'setpoint:simulated-nodes';
/** The leader election leases of the components (kube-system; see commands/controller-manager.ts). */
export const CONTROLLER_MANAGER_LEASE = 'setpoint-controller-manager';
export const SCHEDULER_LEASE = 'setpoint-scheduler';

/** A default ClusterRole. */
export interface DefaultClusterRole {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly rules: readonly PolicyRule[];
  readonly aggregateFrom?: string;
}

/** A default ClusterRoleBinding (to the ClusterRole of the same name unless `role` says otherwise). */
export interface DefaultClusterRoleBinding {
  readonly name: string;
  readonly role: string;
  readonly subjects: readonly Subject[];
}

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

const group = (name: string): Subject => ({ kind: 'Group', apiGroup: RBAC_GROUP, name });
const user = (name: string): Subject => ({ kind: 'User', apiGroup: RBAC_GROUP, name });

/** What view grants (system:aggregate-to-view, Kubernetes 1.32). */
const VIEW_RULES: readonly PolicyRule[] = [
  rule(READ, [''], ['configmaps', 'endpoints', 'persistentvolumeclaims', 'persistentvolumeclaims/status', 'pods', 'replicationcontrollers', 'replicationcontrollers/scale', 'serviceaccounts', 'services', 'services/status']),
  rule(READ, [''], ['bindings', 'events', 'limitranges', 'namespaces/status', 'pods/log', 'pods/status', 'replicationcontrollers/status', 'resourcequotas', 'resourcequotas/status']),
  rule(READ, [''], ['namespaces']),
  rule(READ, ['discovery.k8s.io'], ['endpointslices']),
  rule(READ, ['apps'], ['controllerrevisions', 'daemonsets', 'daemonsets/status', 'deployments', 'deployments/scale', 'deployments/status', 'replicasets', 'replicasets/scale', 'replicasets/status', 'statefulsets', 'statefulsets/scale', 'statefulsets/status']),
  rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
  rule(READ, ['batch'], ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status']),
  rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
  rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
];

/** What edit adds (system:aggregate-to-edit). */
const EDIT_RULES: readonly PolicyRule[] = [
  rule(READ, [''], ['pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy', 'secrets', 'services/proxy']),
  rule(['impersonate'], [''], ['serviceaccounts']),
  rule(WRITE, [''], ['pods', 'pods/attach', 'pods/exec', 'pods/portforward', 'pods/proxy']),
  rule(['create'], [''], ['pods/eviction']),
  rule(WRITE, [''], ['configmaps', 'events', 'persistentvolumeclaims', 'replicationcontrollers', 'replicationcontrollers/scale', 'secrets', 'serviceaccounts', 'services', 'services/proxy']),
  rule(['create'], [''], ['serviceaccounts/token']),
  rule(WRITE, ['apps'], ['daemonsets', 'deployments', 'deployments/rollback', 'deployments/scale', 'replicasets', 'replicasets/scale', 'statefulsets', 'statefulsets/scale']),
  rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
  rule(WRITE, ['batch'], ['cronjobs', 'jobs']),
  rule(WRITE, ['policy'], ['poddisruptionbudgets']),
  rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
  rule(ALL_VERBS, ['coordination.k8s.io'], ['leases']),
];

/** What admin adds (system:aggregate-to-admin): reviews in a namespace, and its roles and bindings. */
const ADMIN_RULES: readonly PolicyRule[] = [rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']), rule(ALL_VERBS, [RBAC_GROUP], ['rolebindings', 'roles'])];

/** Leader election on the component's own Lease in kube-system (create cannot be limited by name). */
function leaderElection(lease: string): PolicyRule[] {
  return [rule(['create'], ['coordination.k8s.io'], ['leases']), rule(['get', 'update'], ['coordination.k8s.io'], ['leases'], [lease])];
}

const EVENTS = rule(['create', 'patch', 'update'], ['', 'events.k8s.io'], ['events']);

/**
 * The controller-manager: Setpoint runs every controller under one identity, so its role is the
 * union of what they do — the garbage collector and the namespace controller read every kind and
 * update, patch and delete any object (as Kubernetes' generic-garbage-collector and
 * namespace-controller roles allow); the ReplicaSet controller creates pods; the Deployment
 * controller creates ReplicaSets; the ServiceAccount controller creates each namespace's
 * "default" account; node lifecycle writes nodes, node status, pod status and deletes pods (all
 * covered above); events; its leader election lease. It cannot create anything else, nor
 * escalate, bind or impersonate.
 */
const CONTROLLER_MANAGER_RULES: readonly PolicyRule[] = [
  EVENTS,
  ...leaderElection(CONTROLLER_MANAGER_LEASE),
  rule(['get', 'list', 'watch', 'patch', 'update', 'delete', 'deletecollection'], ['*'], ['*']),
  rule(['create'], [''], ['pods', 'serviceaccounts']),
  rule(['create'], ['apps'], ['replicasets']),
];

/**
 * The scheduler: reads pods, nodes and namespaces (its informers), binds pods (pods/binding),
 * writes their PodScheduled condition (pods/status), records events, and holds its leader election
 * lease.
 */
const SCHEDULER_RULES: readonly PolicyRule[] = [
  EVENTS,
  ...leaderElection(SCHEDULER_LEASE),
  rule(READ, [''], ['nodes', 'namespaces', 'pods']),
  rule(['create'], [''], ['bindings', 'pods/binding']),
  rule(['patch', 'update'], [''], ['pods/status']),
];

/**
 * Simulated nodes (one client acting for many nodes, which starts nothing): register and report
 * their Nodes, renew their Leases, watch pods, report pod status, finish deletions, record events.
 * No Secrets, ConfigMaps or tokens — a simulated node never runs a process that would need them.
 */
const SIMULATED_NODES_RULES: readonly PolicyRule[] = [
  EVENTS,
  rule(['create', 'get', 'list', 'watch', 'patch', 'update'], [''], ['nodes']),
  rule(['patch', 'update'], [''], ['nodes/status']),
  rule([...READ, 'delete'], [''], ['pods']),
  rule(['patch', 'update'], [''], ['pods/status']),
  rule(['create', 'get', 'list', 'watch', 'patch', 'update', 'delete'], ['coordination.k8s.io'], ['leases']),
];

export const DEFAULT_CLUSTER_ROLES: readonly DefaultClusterRole[] = [
  { name: 'cluster-admin', rules: [rule(['*'], ['*'], ['*']), urlRule(['*'], ['*'])] },
  { name: 'admin', rules: [], aggregateFrom: AGGREGATE_TO_ADMIN },
  { name: 'edit', labels: { [AGGREGATE_TO_ADMIN]: 'true' }, rules: [], aggregateFrom: AGGREGATE_TO_EDIT },
  { name: 'view', labels: { [AGGREGATE_TO_EDIT]: 'true' }, rules: [], aggregateFrom: AGGREGATE_TO_VIEW },
  { name: 'system:aggregate-to-admin', labels: { [AGGREGATE_TO_ADMIN]: 'true' }, rules: ADMIN_RULES },
  { name: 'system:aggregate-to-edit', labels: { [AGGREGATE_TO_EDIT]: 'true' }, rules: EDIT_RULES },
  { name: 'system:aggregate-to-view', labels: { [AGGREGATE_TO_VIEW]: 'true' }, rules: VIEW_RULES },
  {
    name: 'system:basic-user',
    rules: [rule(['create'], ['authorization.k8s.io'], ['selfsubjectaccessreviews', 'selfsubjectrulesreviews']), rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews'])],
  },
  {
    name: 'system:discovery',
    rules: [urlRule(['get'], ['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version', '/version/'])],
  },
  { name: 'system:public-info-viewer', rules: [urlRule(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/'])] },
  { name: 'system:monitoring', rules: [urlRule(['get'], ['/healthz', '/healthz/*', '/livez', '/livez/*', '/metrics', '/metrics/slis', '/readyz', '/readyz/*'])] },
  { name: 'system:auth-delegator', rules: [rule(['create'], ['authentication.k8s.io'], ['tokenreviews']), rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews'])] },
  {
    name: 'system:node',
    rules: [
      ...NODE_RULES,
      rule(['create', 'get', 'list', 'watch', 'patch', 'update'], [''], ['nodes']),
      rule(['patch', 'update'], [''], ['nodes/status']),
      rule(READ, [''], ['pods']),
      rule(['create', 'delete'], [''], ['pods']),
      rule(['patch', 'update'], [''], ['pods/status']),
      rule(['create'], [''], ['pods/eviction']),
      rule(READ, [''], ['configmaps', 'secrets']),
      rule(['create', 'delete', 'get', 'patch', 'update'], ['coordination.k8s.io'], ['leases']),
      rule(['create'], [''], ['serviceaccounts/token']),
    ],
  },
  { name: 'system:kube-controller-manager', rules: CONTROLLER_MANAGER_RULES },
  { name: 'system:kube-scheduler', rules: SCHEDULER_RULES },
  { name: 'setpoint:simulated-nodes', rules: SIMULATED_NODES_RULES },
];

export const DEFAULT_CLUSTER_ROLE_BINDINGS: readonly DefaultClusterRoleBinding[] = [
  { name: 'cluster-admin', role: 'cluster-admin', subjects: [group('system:masters')] },
  { name: 'system:basic-user', role: 'system:basic-user', subjects: [group('system:authenticated')] },
  { name: 'system:discovery', role: 'system:discovery', subjects: [group('system:authenticated')] },
  { name: 'system:public-info-viewer', role: 'system:public-info-viewer', subjects: [group('system:authenticated'), group('system:unauthenticated')] },
  { name: 'system:monitoring', role: 'system:monitoring', subjects: [group('system:monitoring')] },
  { name: 'system:kube-controller-manager', role: 'system:kube-controller-manager', subjects: [user(CONTROLLER_MANAGER_USER)] },
  { name: 'system:kube-scheduler', role: 'system:kube-scheduler', subjects: [user(SCHEDULER_USER)] },
  { name: 'setpoint:simulated-nodes', role: 'setpoint:simulated-nodes', subjects: [user(SIMULATED_NODES_USER)] },
];
