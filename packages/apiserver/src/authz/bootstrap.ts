/**
 * Ensures the default roles and bindings (bootstrappolicy.ts) at start, reconciled as Kubernetes
 * reconciles its bootstrap policy:
 *
 * - a missing default is created;
 * - an existing one annotated `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone;
 * - otherwise missing labels and annotations are added (existing values kept), a ClusterRole gains
 *   the rules it lacks (rules are never removed; aggregated roles get their missing selectors, and
 *   their rules from the aggregation controller), a binding gains missing subjects, and a binding
 *   whose roleRef differs is deleted and created again (roleRef is immutable).
 *
 * Several API servers starting at once on one store are safe: every write carries the version it
 * read, and a conflict means "read again and reconcile again".
 */
import { ApiError, silentLogger, type KubeObject, type Logger } from '@setpoint/api';
import type { BindingObject, PolicyRule, RoleObject, Subject } from '../registry/kinds/rbac/rbac.js';
import { RBAC_GROUP } from '../registry/kinds/rbac/rbac.js';
import { jsonEqual } from '../storage/equal.js';
import type { ResourceStorage } from '../storage/rest.js';
import {
  AUTOUPDATE_ANNOTATION,
  BOOTSTRAPPING_LABEL,
  DEFAULT_CLUSTER_ROLE_BINDINGS,
  DEFAULT_CLUSTER_ROLES,
  type DefaultClusterRole,
  type DefaultClusterRoleBinding,
} from './bootstrappolicy.js';
import { compactRules, covers } from './covers.js';
import { rulesOf } from './policy.js';

const API_VERSION = `${RBAC_GROUP}/v1`;
const ATTEMPTS = 8;

/** What the reconciliation did to one object. */
export type Reconciled = 'created' | 'updated' | 'recreated' | 'unchanged' | 'protected';

function defaultMetadata(name: string, labels: Readonly<Record<string, string>> = {}): KubeObject['metadata'] {
  return { name, labels: { [BOOTSTRAPPING_LABEL]: 'rbac-defaults', ...labels }, annotations: { [AUTOUPDATE_ANNOTATION]: 'true' } };
}

/** The ClusterRole object of a default. */
export function clusterRoleObject(role: DefaultClusterRole): RoleObject {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRole',
    metadata: defaultMetadata(role.name, role.labels),
    rules: role.rules.map((r) => ({ ...r })),
    ...(role.aggregateFrom !== undefined ? { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [role.aggregateFrom]: 'true' } }] } } : {}),
  };
}

/** The ClusterRoleBinding object of a default. */
export function clusterRoleBindingObject(binding: DefaultClusterRoleBinding): BindingObject {
  return {
    apiVersion: API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: defaultMetadata(binding.name),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: binding.role },
    subjects: binding.subjects.map((s) => ({ ...s })),
  };
}

/** Existing labels and annotations win; missing ones are added. Returns whether anything was added. */
function mergeMetadata(target: KubeObject, expected: KubeObject): boolean {
  let changed = false;
  for (const field of ['labels', 'annotations'] as const) {
    const have = { ...(target.metadata[field] ?? {}) };
    for (const [k, v] of Object.entries(expected.metadata[field] ?? {})) {
      if (!(k in have)) {
        have[k] = v;
        changed = true;
      }
    }
    target.metadata[field] = have;
  }
  return changed;
}

/** The ClusterRole `existing` should become (computeReconciledRole), or undefined when it needs nothing. */
export function reconcileClusterRole(existing: RoleObject, expected: RoleObject): RoleObject | undefined {
  const next: RoleObject = { ...existing, metadata: { ...existing.metadata } };
  let changed = mergeMetadata(next, expected);
  const want = expected.aggregationRule ?? undefined;
  const have = existing.aggregationRule ?? undefined;
  if (want !== undefined) {
    if (have === undefined) {
      next.aggregationRule = want;
      changed = true;
    } else {
      const selectors = [...(have.clusterRoleSelectors ?? [])];
      for (const s of want.clusterRoleSelectors ?? []) {
        if (!selectors.some((x) => jsonEqual(x, s))) {
          selectors.push(s);
          changed = true;
        }
      }
      next.aggregationRule = { ...have, clusterRoleSelectors: selectors };
    }
  }
  if (want === undefined || have === undefined) {
    const { missing } = covers(rulesOf(existing), rulesOf(expected));
    if (missing.length > 0) {
      next.rules = [...(rulesOf(existing) as PolicyRule[]), ...compactRules(missing)];
      changed = true;
    }
  }
  return changed ? next : undefined;
}

function sameSubject(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && (a.apiGroup ?? '') === (b.apiGroup ?? '') && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
}

/** The binding `existing` should become (computeReconciledRoleBinding): missing subjects and metadata added. */
export function reconcileBinding(existing: BindingObject, expected: BindingObject): BindingObject | undefined {
  const next: BindingObject = { ...existing, metadata: { ...existing.metadata } };
  let changed = mergeMetadata(next, expected);
  const subjects = [...(existing.subjects ?? [])];
  for (const s of expected.subjects ?? []) {
    if (!subjects.some((x) => sameSubject(x, s))) {
      subjects.push(s);
      changed = true;
    }
  }
  next.subjects = subjects;
  return changed ? next : undefined;
}

async function read(storage: ResourceStorage, name: string): Promise<KubeObject | undefined> {
  try {
    return await storage.get('', name);
  } catch (err) {
    if (err instanceof ApiError && err.reason === 'NotFound') return undefined;
    throw err;
  }
}

function retriable(err: unknown): boolean {
  return err instanceof ApiError && (err.reason === 'Conflict' || err.reason === 'AlreadyExists' || err.reason === 'NotFound');
}

/** Reconciles one object, reading again after a conflict with another writer. */
async function ensure(storage: ResourceStorage, expected: KubeObject, reconcile: (existing: KubeObject) => KubeObject | 'recreate' | undefined): Promise<Reconciled> {
  const name = expected.metadata.name!;
  for (let attempt = 1; ; attempt++) {
    try {
      const existing = await read(storage, name);
      if (existing === undefined) {
        await storage.create('', expected);
        return 'created';
      }
      if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return 'protected';
      const next = reconcile(existing);
      if (next === undefined) return 'unchanged';
      if (next === 'recreate') {
        await storage.delete('', name, { preconditions: { uid: existing.metadata.uid ?? '' } }, false);
        await storage.create('', expected);
        return 'recreated';
      }
      await storage.update('', name, next);
      return 'updated';
    } catch (err) {
      if (!retriable(err) || attempt >= ATTEMPTS) throw err;
    }
  }
}

/** Ensures every default ClusterRole and ClusterRoleBinding; logs what it changed. */
export async function ensureBootstrapPolicy(storages: { clusterRoles: ResourceStorage; clusterRoleBindings: ResourceStorage }, logger: Logger = silentLogger): Promise<void> {
  for (const role of DEFAULT_CLUSTER_ROLES) {
    const expected = clusterRoleObject(role);
    const outcome = await ensure(storages.clusterRoles, expected, (existing) => reconcileClusterRole(existing as RoleObject, expected));
    if (outcome !== 'unchanged') logger.info({ clusterRole: role.name, outcome }, 'default ClusterRole reconciled');
  }
  for (const binding of DEFAULT_CLUSTER_ROLE_BINDINGS) {
    const expected = clusterRoleBindingObject(binding);
    const outcome = await ensure(storages.clusterRoleBindings, expected, (existing) => {
      const have = existing as BindingObject;
      if (!jsonEqual(have.roleRef, expected.roleRef)) return 'recreate';
      return reconcileBinding(have, expected);
    });
    if (outcome !== 'unchanged') logger.info({ clusterRoleBinding: binding.name, outcome }, 'default ClusterRoleBinding reconciled');
  }
}
