/**
 * Lease (coordination.k8s.io/v1, namespaced), validated as Kubernetes' ValidateLeaseSpec:
 * leaseDurationSeconds > 0 and leaseTransitions ≥ 0 when set; strategy "OldestEmulationVersion" or
 * a qualified name with a prefix; preferredHolder only with a strategy. No defaults; acquireTime
 * and renewTime are written back as Kubernetes serialises MicroTime (six fractional digits, UTC).
 *
 * Kubernetes validates lease metadata with apimachinery's generic rules, without the core group's
 * standard-finalizer rule: the REST layer should pass `standardFinalizers: false` for this kind.
 */
import { FieldError, isQualifiedName, nameIsDNSSubdomain, type KubeObject } from '@setpoint/api';
import { leaseSchema } from '../../schemas/coordination.js';
import { formatMicroTime } from '../../objectmeta.js';
import type { ResourceDef } from '../../types.js';
import { leasePrinter } from './table.js';

/** The coordinated lease strategies Kubernetes defines. */
export const LEASE_STRATEGIES: readonly string[] = Object.freeze(['OldestEmulationVersion']);

/**
 * ValidateLeaseSpec, at `spec.*`: `spec.leaseDurationSeconds: Invalid value: 0: must be greater
 * than 0`; `spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0`; an
 * unknown unprefixed strategy is `Unsupported value` (Kubernetes reports it at
 * "spec.strategy.strategy", kept); `spec.preferredHolder: Forbidden: may only be specified if
 * \`strategy\` is defined`.
 */
export function validateLease(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const raw = obj['spec'];
  const spec = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const duration = spec['leaseDurationSeconds'];
  if (typeof duration === 'number' && duration <= 0) {
    errs.push(FieldError.invalid('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  }
  const transitions = spec['leaseTransitions'];
  if (typeof transitions === 'number' && transitions < 0) {
    errs.push(FieldError.invalid('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  }
  const strategy = spec['strategy'];
  if (typeof strategy === 'string') {
    if (strategy.split('/').length === 1) {
      if (!LEASE_STRATEGIES.includes(strategy)) errs.push(FieldError.notSupported('spec.strategy.strategy', strategy, LEASE_STRATEGIES));
    } else {
      for (const msg of isQualifiedName(strategy)) errs.push(FieldError.invalid('spec.strategy.strategy', strategy, msg));
    }
  }
  const preferred = spec['preferredHolder'];
  if (typeof preferred === 'string' && preferred !== '' && (typeof strategy !== 'string' || strategy === '')) {
    errs.push(FieldError.forbidden('spec.preferredHolder', 'may only be specified if `strategy` is defined'));
  }
  return errs;
}

/** spec.acquireTime and spec.renewTime in MicroTime's wire form (see formatMicroTime). */
export function normalizeLeaseTimes(obj: KubeObject): void {
  const spec = obj['spec'];
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
  const s = spec as Record<string, unknown>;
  for (const field of ['acquireTime', 'renewTime']) {
    const v = s[field];
    if (typeof v === 'string') s[field] = formatMicroTime(v);
  }
}

/** leases (coordination.k8s.io/v1). */
export const leaseResource: ResourceDef = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  protobuf: true,
  printer: leasePrinter,
  singular: 'lease',
  kind: 'Lease',
  listKind: 'LeaseList',
  namespaced: true,
  schema: leaseSchema,
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    defaults: normalizeLeaseTimes,
    validate: (obj) => validateLease(obj),
  },
};
