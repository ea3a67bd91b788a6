/** Authorization: RBAC, the node authorizer, escalation prevention, node restriction, and the access reviews. */
export { AUTHORIZATION_MODES, Authorization, DEFAULT_AUTHORIZATION_MODES, parseAuthorizationModes } from './authorization.js';
export type { AuthorizationHost, AuthorizationMode, AuthorizationOptions } from './authorization.js';
export { requestAttributes, nonResourceAttributes } from './attributes.js';
export { ANONYMOUS_USER, PRIVILEGED_GROUP, UNAUTHENTICATED_GROUP } from './authorizer.js';
export type { Attributes, AuthorizationResult, Authorizer, Decision, RuleResolver, RuleSet } from './authorizer.js';
export { CONTROLLER_MANAGER_USER, DEFAULT_CLUSTER_ROLE_BINDINGS, DEFAULT_CLUSTER_ROLES, SCHEDULER_USER } from './bootstrappolicy.js';
export { forbiddenError, forbiddenMessage } from './forbidden.js';
export { NODE_LEASE_NAMESPACE, NODE_USER_PREFIX, nodeIdentity } from './node.js';
export type { RequestAdmission } from './noderestriction.js';
