/**
 * Validation of pod and container security contexts as Kubernetes' validatePodSpecSecurityContext
 * and ValidateSecurityContext do it: user and group IDs in range, seccomp and AppArmor profiles,
 * procMount, fsGroupChangePolicy, and the combinations Kubernetes forbids. Paths and messages are
 * Kubernetes'. Privileged containers are allowed (Setpoint's cluster policy).
 */
import { FieldError } from '@setpoint/api';
import { inclusiveRangeError, validateLocalDescendingPath } from '../../validation/field-rules.js';
import { arrayAt, booleanAt, child, index, isObject, isSet, numberAt, objectAt, stringAt } from '../../validation/json-fields.js';

const MAX_ID = 2147483647;

/** IsValidUserID / IsValidGroupID on an optional integer field. */
function validateID(obj: unknown, field: string, path: string): FieldError[] {
  const id = numberAt(obj, field);
  return id !== undefined && (id < 0 || id > MAX_ID) ? [FieldError.invalid(child(path, field), id, inclusiveRangeError(0, MAX_ID))] : [];
}

const PROFILE_TYPES = ['Localhost', 'RuntimeDefault', 'Unconfined'];

/** validateSeccompProfileField (and the AppArmor equivalent, same rules). */
function validateProfile(profile: unknown, path: string, what: 'seccomp' | 'AppArmor'): FieldError[] {
  if (!isObject(profile)) return [];
  const errs: FieldError[] = [];
  const type = stringAt(profile, 'type');
  if (type === '') errs.push(FieldError.required(child(path, 'type'), `type is required when ${what === 'seccomp' ? 'seccompProfile' : 'appArmorProfile'} is set`));
  else if (!PROFILE_TYPES.includes(type)) errs.push(FieldError.notSupported(child(path, 'type'), type, PROFILE_TYPES));
  if (type === 'Localhost') {
    if (!isSet(profile, 'localhostProfile')) {
      errs.push(FieldError.required(child(path, 'localhostProfile'), `must be set when ${what} type is Localhost`));
    } else if (what === 'seccomp') {
      errs.push(...validateLocalDescendingPath(stringAt(profile, 'localhostProfile'), child(path, 'localhostProfile')));
    }
  } else if (isSet(profile, 'localhostProfile')) {
    errs.push(FieldError.invalid(child(path, 'localhostProfile'), profile, `can only be set when ${what} type is Localhost`));
  }
  return errs;
}

/** validatePodSpecSecurityContext: spec.securityContext (`path`), with hostPID read from the spec. */
export function validatePodSecurityContext(securityContext: unknown, hostPID: boolean, path: string): FieldError[] {
  if (!isObject(securityContext)) return [];
  const errs: FieldError[] = [];
  errs.push(...validateID(securityContext, 'fsGroup', path));
  errs.push(...validateID(securityContext, 'runAsUser', path));
  errs.push(...validateID(securityContext, 'runAsGroup', path));
  arrayAt(securityContext, 'supplementalGroups').forEach((gid, i) => {
    if (typeof gid === 'number' && (gid < 0 || gid > MAX_ID)) errs.push(FieldError.invalid(index(child(path, 'supplementalGroups'), i), gid, inclusiveRangeError(0, MAX_ID)));
  });
  const share = booleanAt(securityContext, 'shareProcessNamespace');
  if (share === true && hostPID) errs.push(FieldError.invalid(child(path, 'shareProcessNamespace'), true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  const policy = securityContext['fsGroupChangePolicy'];
  if (typeof policy === 'string' && policy !== 'Always' && policy !== 'OnRootMismatch') {
    errs.push(FieldError.notSupported(child(path, 'fsGroupChangePolicy'), policy, ['Always', 'OnRootMismatch']));
  }
  errs.push(...validateProfile(securityContext['seccompProfile'], child(path, 'seccompProfile'), 'seccomp'));
  errs.push(...validateProfile(securityContext['appArmorProfile'], child(path, 'appArmorProfile'), 'AppArmor'));
  return errs;
}

/** ValidateSecurityContext: a container's securityContext (`path`). */
export function validateContainerSecurityContext(securityContext: unknown, path: string): FieldError[] {
  if (!isObject(securityContext)) return [];
  const errs: FieldError[] = [];
  errs.push(...validateID(securityContext, 'runAsUser', path));
  errs.push(...validateID(securityContext, 'runAsGroup', path));
  const procMount = securityContext['procMount'];
  if (typeof procMount === 'string' && procMount !== 'Default' && procMount !== 'Unmasked') {
    errs.push(FieldError.notSupported(child(path, 'procMount'), procMount, ['Default', 'Unmasked']));
  }
  errs.push(...validateProfile(securityContext['seccompProfile'], child(path, 'seccompProfile'), 'seccomp'));
  errs.push(...validateProfile(securityContext['appArmorProfile'], child(path, 'appArmorProfile'), 'AppArmor'));
  if (booleanAt(securityContext, 'allowPrivilegeEscalation') === false) {
    if (booleanAt(securityContext, 'privileged') === true) {
      errs.push(FieldError.invalid(path, securityContext, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    }
    const added = arrayAt(objectAt(securityContext, 'capabilities'), 'add');
    if (added.includes('CAP_SYS_ADMIN') || added.includes('SYS_ADMIN')) {
      errs.push(FieldError.invalid(path, securityContext, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
    }
  }
  return errs;
}
