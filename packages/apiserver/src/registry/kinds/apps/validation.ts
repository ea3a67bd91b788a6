/**
 * Validation of ReplicaSets and Deployments as Kubernetes' pkg/apis/apps/validation and the apps
 * registry strategies do it: a required, non-empty, valid selector that matches the template labels,
 * a valid pod template that restarts Always, non-negative counts, the rolling update bounds, and an
 * immutable selector (apps/v1). Paths and messages are Kubernetes', including its "empty selector is
 * invalid for deployment" for ReplicaSets too.
 */
import { FieldError, isApiError, labelSelectorAsSelector, type LabelSelector, type LabelsSelector } from '@setpoint/api';
import { IS_NEGATIVE_ERROR_MSG, validateImmutableField } from '../../objectmeta.js';
import { validateNonnegative } from '../../validation/field-rules.js';
import { isObject, numberAt, objectAt, stringAt, stringMapAt, type JsonObject } from '../../validation/json-fields.js';
import { selectorSize, validateLabelSelector } from '../../validation/label-selector.js';
import { validatePodTemplateSpec } from '../pod/validation-spec.js';

/** The selector a spec.selector means, or undefined when Kubernetes could not convert it. */
function selectorOf(selector: unknown): LabelsSelector | undefined {
  try {
    return labelSelectorAsSelector(isObject(selector) ? (selector as LabelSelector) : null);
  } catch (err) {
    if (isApiError(err)) return undefined;
    throw err;
  }
}

/** ValidatePodTemplateSpecForReplicaSet: the template matches the selector, is valid, restarts Always. */
function validateTemplateForSelector(spec: JsonObject, selector: LabelsSelector): FieldError[] {
  const template = objectAt(spec, 'template') ?? {};
  const errs: FieldError[] = [];
  const meta = objectAt(template, 'metadata');
  if (!selector.isEmpty() && !selector.matches(stringMapAt(meta, 'labels'))) {
    errs.push(FieldError.invalid('spec.template.metadata.labels', meta?.['labels'] ?? null, '`selector` does not match template `labels`'));
  }
  errs.push(...validatePodTemplateSpec(template, 'spec.template'));
  const podSpec = objectAt(template, 'spec');
  const restartPolicy = stringAt(podSpec, 'restartPolicy');
  if (restartPolicy !== 'Always') errs.push(FieldError.notSupported('spec.template.spec.restartPolicy', restartPolicy, ['Always']));
  if (numberAt(podSpec, 'activeDeadlineSeconds') !== undefined) {
    errs.push(FieldError.forbidden('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  }
  return errs;
}

/** The selector rules ReplicaSet and Deployment share, then the template. */
function validateSelectorAndTemplate(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const selector = spec['selector'];
  if (!isObject(selector)) errs.push(FieldError.required('spec.selector'));
  else {
    errs.push(...validateLabelSelector(selector, 'spec.selector'));
    if (selectorSize(selector) === 0) errs.push(FieldError.invalid('spec.selector', selector, 'empty selector is invalid for deployment'));
  }
  const parsed = selectorOf(selector);
  if (parsed === undefined) errs.push(FieldError.invalid('spec.selector', selector, 'invalid label selector'));
  else errs.push(...validateTemplateForSelector(spec, parsed));
  return errs;
}

/** ValidateReplicaSetSpec (the REST layer validates metadata). */
export function validateReplicaSet(rs: JsonObject): FieldError[] {
  const spec = objectAt(rs, 'spec') ?? {};
  return [...validateNonnegative(spec, 'replicas', 'spec'), ...validateNonnegative(spec, 'minReadySeconds', 'spec'), ...validateSelectorAndTemplate(spec)];
}

// ---------------------------------------------------------------------------------------------
// Deployment strategy

const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** getIntOrPercentValue: the number of a percentage, or the integer (a non-numeric string is 0). */
function intOrPercentValue(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  if (/^[0-9]+%$/.test(v)) return Number(v.slice(0, -1));
  return /^[+-]?[0-9]+$/.test(v) ? Number(v) : 0;
}

/** ValidatePositiveIntOrPercent. */
function validatePositiveIntOrPercent(v: unknown, path: string): FieldError[] {
  if (typeof v === 'string') return /^[0-9]+%$/.test(v) ? [] : [FieldError.invalid(path, v, PERCENT_MSG)];
  const n = typeof v === 'number' ? v : 0;
  return n < 0 ? [FieldError.invalid(path, n, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** ValidateRollingUpdateDeployment. */
function validateRollingUpdate(rollingUpdate: JsonObject, path: string): FieldError[] {
  const maxUnavailable = rollingUpdate['maxUnavailable'] ?? 0;
  const maxSurge = rollingUpdate['maxSurge'] ?? 0;
  const errs = [
    ...validatePositiveIntOrPercent(maxUnavailable, `${path}.maxUnavailable`),
    ...validatePositiveIntOrPercent(maxSurge, `${path}.maxSurge`),
  ];
  if (intOrPercentValue(maxUnavailable) === 0 && intOrPercentValue(maxSurge) === 0) {
    errs.push(FieldError.invalid(`${path}.maxUnavailable`, maxUnavailable, 'may not be 0 when `maxSurge` is 0'));
  }
  if (typeof maxUnavailable === 'string' && /^[0-9]+%$/.test(maxUnavailable) && intOrPercentValue(maxUnavailable) > 100) {
    errs.push(FieldError.invalid(`${path}.maxUnavailable`, maxUnavailable, 'must not be greater than 100%'));
  }
  return errs;
}

/** ValidateDeploymentStrategy. Kubernetes prints an unsupported strategy as its internal Go struct, in JSON. */
function validateStrategy(spec: JsonObject): FieldError[] {
  const strategy = objectAt(spec, 'strategy') ?? {};
  const type = stringAt(strategy, 'type');
  const rollingUpdate = objectAt(strategy, 'rollingUpdate');
  switch (type) {
    case 'Recreate':
      return rollingUpdate === undefined ? [] : [FieldError.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'")];
    case 'RollingUpdate':
      if (rollingUpdate === undefined) return [FieldError.required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil')];
      return validateRollingUpdate(rollingUpdate, 'spec.strategy.rollingUpdate');
    default: {
      const shown = {
        Type: type,
        RollingUpdate: rollingUpdate === undefined ? null : { MaxUnavailable: rollingUpdate['maxUnavailable'] ?? 0, MaxSurge: rollingUpdate['maxSurge'] ?? 0 },
      };
      return [FieldError.notSupported('spec.strategy', shown, ['Recreate', 'RollingUpdate'])];
    }
  }
}

/** ValidateDeploymentSpec (the REST layer validates metadata). */
export function validateDeployment(deployment: JsonObject): FieldError[] {
  const spec = objectAt(deployment, 'spec') ?? {};
  const errs = validateNonnegative(spec, 'replicas', 'spec');
  errs.push(...validateSelectorAndTemplate(spec));
  errs.push(...validateStrategy(spec));
  errs.push(...validateNonnegative(spec, 'minReadySeconds', 'spec'));
  errs.push(...validateNonnegative(spec, 'revisionHistoryLimit', 'spec'));
  const deadline = numberAt(spec, 'progressDeadlineSeconds');
  if (deadline !== undefined) {
    errs.push(...validateNonnegative(spec, 'progressDeadlineSeconds', 'spec'));
    if (deadline <= (numberAt(spec, 'minReadySeconds') ?? 0)) {
      errs.push(FieldError.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

/** The apps/v1 update rule of both kinds: spec.selector is immutable (`field is immutable`). */
export function validateSelectorUpdate(obj: JsonObject, old: JsonObject): FieldError[] {
  return validateImmutableField(objectAt(obj, 'spec')?.['selector'], objectAt(old, 'spec')?.['selector'], 'spec.selector');
}

// ---------------------------------------------------------------------------------------------
// Status

const NOT_ABOVE_REPLICAS = 'cannot be greater than status.replicas';

function counts(status: JsonObject, fields: readonly string[]): FieldError[] {
  return fields.flatMap((f) => validateNonnegative(status, f, 'status'));
}

function notAbove(status: JsonObject, field: string, limitField: string, msg: string): FieldError[] {
  const v = numberAt(status, field) ?? 0;
  return v > (numberAt(status, limitField) ?? 0) ? [FieldError.invalid(`status.${field}`, v, msg)] : [];
}

/** The collision count only grows (`status.collisionCount: Invalid value: 0: cannot be decremented`). */
function validateCollisionCount(status: JsonObject, oldStatus: JsonObject): FieldError[] {
  const now = numberAt(status, 'collisionCount');
  const before = numberAt(oldStatus, 'collisionCount');
  if (before === undefined || (now !== undefined && now >= before)) return [];
  return [FieldError.invalid('status.collisionCount', now ?? 0, 'cannot be decremented')];
}

/** ValidateReplicaSetStatusUpdate (without metadata). */
export function validateReplicaSetStatus(rs: JsonObject): FieldError[] {
  const status = objectAt(rs, 'status') ?? {};
  return [
    ...counts(status, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']),
    ...notAbove(status, 'fullyLabeledReplicas', 'replicas', NOT_ABOVE_REPLICAS),
    ...notAbove(status, 'readyReplicas', 'replicas', NOT_ABOVE_REPLICAS),
    ...notAbove(status, 'availableReplicas', 'replicas', NOT_ABOVE_REPLICAS),
    ...notAbove(status, 'availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas'),
  ];
}

/** ValidateDeploymentStatusUpdate (without metadata). */
export function validateDeploymentStatus(deployment: JsonObject, old: JsonObject): FieldError[] {
  const status = objectAt(deployment, 'status') ?? {};
  return [
    ...counts(status, ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount']),
    ...notAbove(status, 'updatedReplicas', 'replicas', NOT_ABOVE_REPLICAS),
    ...notAbove(status, 'readyReplicas', 'replicas', NOT_ABOVE_REPLICAS),
    ...notAbove(status, 'availableReplicas', 'replicas', NOT_ABOVE_REPLICAS),
    ...notAbove(status, 'availableReplicas', 'readyReplicas', 'cannot be greater than readyReplicas'),
    ...validateCollisionCount(status, objectAt(old, 'status') ?? {}),
  ];
}
