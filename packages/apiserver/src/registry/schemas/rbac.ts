/**
 * The schemas of rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and
 * ClusterRoleBinding: Kubernetes 1.32's published definitions as inline trees (published.ts).
 * Read-only.
 */
import type { Schema } from '@setpoint/api';
import { publishedKindSchema } from './published.js';

const GROUP = 'rbac.authorization.k8s.io';

export const roleSchema: Schema = publishedKindSchema(GROUP, 'v1', 'Role');
export const clusterRoleSchema: Schema = publishedKindSchema(GROUP, 'v1', 'ClusterRole');
export const roleBindingSchema: Schema = publishedKindSchema(GROUP, 'v1', 'RoleBinding');
export const clusterRoleBindingSchema: Schema = publishedKindSchema(GROUP, 'v1', 'ClusterRoleBinding');
