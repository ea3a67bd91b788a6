/**
 * Namespace (v1, cluster-scoped, short name ns), as Kubernetes' namespace strategy: the
 * `kubernetes.io/metadata.name` label always equals the name; a new namespace starts Active with
 * the "kubernetes" finalizer; an update keeps spec.finalizers (they change only through finalize);
 * spec.finalizers must be standard or qualified names; status.phase must
 * agree with deletionTimestamp. Field selector: status.phase. spec.finalizers hold a namespace
 * whose deletion is pending, which is Terminating from then on; the finalize subresource changes
 * them; there is no deletecollection.
 */
import { FieldError, jsonClone, nameIsDNSLabel, type KubeObject } from '@setpoint/api';
import { validateFinalizerName } from '../../objectmeta.js';
import { namespaceSchema } from '../../schemas/core.js';
import type { ResourceDef } from '../../types.js';
import { namespacePrinter } from './table.js';

/** The label Kubernetes keeps equal to every namespace's name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';
/** The finalizer the namespace controller clears once the namespace's contents are gone. */
export const FINALIZER_KUBERNETES = 'kubernetes';

function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function ensureNameLabel(obj: KubeObject): void {
  const name = obj.metadata.name;
  if (typeof name !== 'string' || name === '') return;
  obj.metadata.labels = { ...(obj.metadata.labels ?? {}), [NAMESPACE_NAME_LABEL]: name };
}

function phaseOf(obj: KubeObject): string {
  const phase = record(obj['status'])?.['phase'];
  return typeof phase === 'string' ? phase : '';
}

function finalizersOf(obj: KubeObject): unknown[] {
  const f = record(obj['spec'])?.['finalizers'];
  return Array.isArray(f) ? f : [];
}

/** SetDefaults_Namespace and SetDefaults_NamespaceStatus: the name label; status.phase Active when empty. */
export function defaultNamespace(obj: KubeObject): void {
  ensureNameLabel(obj);
  const status = record(obj['status']) ?? {};
  if (typeof status['phase'] !== 'string' || status['phase'] === '') status['phase'] = 'Active';
  obj['status'] = status;
}

/** PrepareForCreate: status is exactly { phase: Active }; "kubernetes" is appended to spec.finalizers when missing. */
export function prepareNamespaceForCreate(obj: KubeObject): void {
  ensureNameLabel(obj);
  obj['status'] = { phase: 'Active' };
  const spec = record(obj['spec']) ?? {};
  const finalizers = finalizersOf(obj);
  if (!finalizers.includes(FINALIZER_KUBERNETES)) spec['finalizers'] = [...finalizers, FINALIZER_KUBERNETES];
  obj['spec'] = spec;
}

/**
 * PrepareForUpdate: spec.finalizers stay as they were (only finalize changes them). Keeping the
 * status is the REST layer's status separation, so a status update may call this safely.
 */
export function prepareNamespaceForUpdate(obj: KubeObject, old: KubeObject): void {
  ensureNameLabel(obj);
  const spec = { ...(record(obj['spec']) ?? {}) };
  const oldFinalizers = record(old['spec'])?.['finalizers'];
  if (oldFinalizers === undefined) delete spec['finalizers'];
  else spec['finalizers'] = jsonClone(oldFinalizers);
  obj['spec'] = spec;
}

/** ValidateNamespace without the metadata: each spec.finalizers entry standard or qualified (path spec.finalizers). */
export function validateNamespace(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of finalizersOf(obj)) errs.push(...validateFinalizerName(typeof f === 'string' ? f : '', 'spec.finalizers', true));
  return errs;
}

/**
 * ValidateNamespaceStatusUpdate: without deletionTimestamp the phase must be Active
 * (`status.Phase: Invalid value: "Terminating": may only be 'Active' if \`deletionTimestamp\` is
 * empty`), with it Terminating. (Kubernetes writes the path "status.Phase".)
 */
export function validateNamespaceStatusUpdate(obj: KubeObject): FieldError[] {
  const phase = phaseOf(obj);
  const deleting = typeof obj.metadata.deletionTimestamp === 'string' && obj.metadata.deletionTimestamp !== '';
  if (!deleting && phase !== 'Active') {
    return [FieldError.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  if (deleting && phase !== 'Terminating') {
    return [FieldError.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
  }
  return [];
}

/** namespaces (v1). */
export const namespaceResource: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  protobuf: true,
  printer: namespacePrinter,
  singular: 'namespace',
  kind: 'Namespace',
  listKind: 'NamespaceList',
  namespaced: false,
  shortNames: ['ns'],
  subresources: {
    status: true,
    more: { finalize: { verbs: ['update'], merge: finalizeNamespace } },
  },
  // No deletecollection, as in Kubernetes (admission/systemnamespaces.ts answers it 405).
  verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  blockingFinalizers: (obj) => {
    const finalizers = (obj.spec as { finalizers?: unknown } | undefined)?.finalizers;
    return Array.isArray(finalizers) ? (finalizers as string[]) : [];
  },
  fieldSelectors: {
    'status.phase': phaseOf,
  },
  schema: namespaceSchema,
  nameValidator: nameIsDNSLabel,
  strategy: {
    defaults: defaultNamespace,
    prepareForCreate: prepareNamespaceForCreate,
    prepareForUpdate: prepareNamespaceForUpdate,
    validate: (obj) => validateNamespace(obj),
    validateStatusUpdate: (obj) => validateNamespaceStatusUpdate(obj),
    prepareForDelete: (obj) => {
      obj.status = { ...(obj.status as object | undefined), phase: 'Terminating' };
    },
  },
};

/** namespaces/finalize: an update that changes spec.finalizers only. */
function finalizeNamespace(incoming: KubeObject, old: KubeObject): KubeObject {
  const next = jsonClone(old);
  const finalizers = (incoming.spec as { finalizers?: unknown } | undefined)?.finalizers;
  next.spec = { ...(next.spec as object | undefined), finalizers: Array.isArray(finalizers) ? jsonClone(finalizers) : [] };
  return next;
}
