/**
 * Validation of where a pod may run and how it resolves names, as Kubernetes' pkg/apis/core/validation
 * does it: node and pod (anti-)affinity, tolerations, topology spread constraints, DNS config and host
 * aliases. Paths and messages are Kubernetes' (including its "namespace" for podAffinityTerm
 * namespaces).
 */
import { isIP } from 'node:net';
import { FieldError, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidLabelValue, nameIsDNSSubdomain } from '@setpoint/api';
import { arrayAt, child, index, isObject, isSet, numberAt, objectAt, objectsAt, stringAt, type JsonObject } from '../../validation/json-fields.js';
import { validateLabelSelector } from '../../validation/label-selector.js';

/** IsValidIP (strict): `<path>: Invalid value: "x": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`. */
export function validateIP(value: string, path: string): FieldError[] {
  return isIP(value) === 0 ? [FieldError.invalid(path, value, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)')] : [];
}

function validateLabelName(name: string, path: string): FieldError[] {
  return isQualifiedName(name).map((msg) => FieldError.invalid(path, name, msg));
}

// ---------------------------------------------------------------------------------------------
// Affinity

/** ValidateNodeSelectorRequirement (on node labels). */
function validateNodeSelectorRequirement(req: JsonObject, path: string, checkValues: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const values = arrayAt(req, 'values');
  const operator = stringAt(req, 'operator');
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(FieldError.required(child(path, 'values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) errs.push(FieldError.forbidden(child(path, 'values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1) errs.push(FieldError.required(child(path, 'values'), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errs.push(FieldError.invalid(child(path, 'operator'), operator, 'not a valid selector operator'));
  }
  errs.push(...validateLabelName(stringAt(req, 'key'), child(path, 'key')));
  if (checkValues) {
    values.forEach((v, i) => {
      const value = typeof v === 'string' ? v : '';
      errs.push(...isValidLabelValue(value).map((msg) => FieldError.invalid(index(child(path, 'values'), i), value, msg)));
    });
  }
  return errs;
}

/** ValidateNodeFieldSelectorRequirement (on node fields: only metadata.name). */
function validateNodeFieldSelectorRequirement(req: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const operator = stringAt(req, 'operator');
  if (operator === 'In' || operator === 'NotIn') {
    if (arrayAt(req, 'values').length !== 1) {
      errs.push(FieldError.required(child(path, 'values'), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"));
    }
  } else {
    errs.push(FieldError.invalid(child(path, 'operator'), operator, 'not a valid selector operator'));
  }
  const k = stringAt(req, 'key');
  if (k !== 'metadata.name') errs.push(FieldError.invalid(child(path, 'key'), k, 'not a valid field selector key'));
  else {
    arrayAt(req, 'values').forEach((v, i) => {
      const value = typeof v === 'string' ? v : '';
      errs.push(...nameIsDNSSubdomain(value, false).map((msg) => FieldError.invalid(index(child(path, 'values'), i), value, msg)));
    });
  }
  return errs;
}

function validateNodeSelectorTerm(term: unknown, path: string, checkValues: boolean): FieldError[] {
  const errs: FieldError[] = [];
  for (const [req, i] of objectsAt(term, 'matchExpressions')) errs.push(...validateNodeSelectorRequirement(req, index(child(path, 'matchExpressions'), i), checkValues));
  for (const [req, i] of objectsAt(term, 'matchFields')) errs.push(...validateNodeFieldSelectorRequirement(req, index(child(path, 'matchFields'), i)));
  return errs;
}

function validateNodeAffinity(na: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const required = objectAt(na, 'requiredDuringSchedulingIgnoredDuringExecution');
  if (required !== undefined) {
    const termsPath = child(child(path, 'requiredDuringSchedulingIgnoredDuringExecution'), 'nodeSelectorTerms');
    const terms = arrayAt(required, 'nodeSelectorTerms');
    if (terms.length === 0) errs.push(FieldError.required(termsPath, 'must have at least one node selector term'));
    terms.forEach((term, i) => errs.push(...validateNodeSelectorTerm(term, index(termsPath, i), true)));
  }
  for (const [term, i] of objectsAt(na, 'preferredDuringSchedulingIgnoredDuringExecution')) {
    const p = index(child(path, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
    const weight = numberAt(term, 'weight') ?? 0;
    if (weight <= 0 || weight > 100) errs.push(FieldError.invalid(child(p, 'weight'), weight, 'must be in the range 1-100'));
    // Kubernetes always allows invalid label values in preferred terms.
    errs.push(...validateNodeSelectorTerm(term['preference'], child(p, 'preference'), false));
  }
  return errs;
}

/** validatePodAffinityTerm. */
function validatePodAffinityTerm(term: JsonObject, path: string): FieldError[] {
  const errs = validateLabelSelector(term['labelSelector'], child(path, 'labelSelector'));
  errs.push(...validateLabelSelector(term['namespaceSelector'], child(path, 'namespaceSelector')));
  for (const ns of arrayAt(term, 'namespaces')) {
    const name = typeof ns === 'string' ? ns : '';
    errs.push(...isDNS1123Label(name).map((msg) => FieldError.invalid(child(path, 'namespace'), name, msg)));
  }
  const topologyKey = stringAt(term, 'topologyKey');
  if (topologyKey === '') errs.push(FieldError.required(child(path, 'topologyKey'), 'can not be empty'));
  errs.push(...validateLabelName(topologyKey, child(path, 'topologyKey')));
  return errs;
}

function validatePodAffinity(affinity: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [term, i] of objectsAt(affinity, 'requiredDuringSchedulingIgnoredDuringExecution')) {
    errs.push(...validatePodAffinityTerm(term, index(child(path, 'requiredDuringSchedulingIgnoredDuringExecution'), i)));
  }
  for (const [weighted, i] of objectsAt(affinity, 'preferredDuringSchedulingIgnoredDuringExecution')) {
    const p = index(child(path, 'preferredDuringSchedulingIgnoredDuringExecution'), i);
    const weight = numberAt(weighted, 'weight') ?? 0;
    if (weight <= 0 || weight > 100) errs.push(FieldError.invalid(child(p, 'weight'), weight, 'must be in the range 1-100'));
    errs.push(...validatePodAffinityTerm(objectAt(weighted, 'podAffinityTerm') ?? {}, child(p, 'podAffinityTerm')));
  }
  return errs;
}

/** validateAffinity: spec.affinity. */
export function validateAffinity(affinity: unknown, path: string): FieldError[] {
  if (!isObject(affinity)) return [];
  const errs: FieldError[] = [];
  const na = objectAt(affinity, 'nodeAffinity');
  if (na !== undefined) errs.push(...validateNodeAffinity(na, child(path, 'nodeAffinity')));
  const pa = objectAt(affinity, 'podAffinity');
  if (pa !== undefined) errs.push(...validatePodAffinity(pa, child(path, 'podAffinity')));
  const paa = objectAt(affinity, 'podAntiAffinity');
  if (paa !== undefined) errs.push(...validatePodAffinity(paa, child(path, 'podAntiAffinity')));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Tolerations

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** ValidateTolerations: spec.tolerations. */
export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (Array.isArray(tolerations) ? tolerations : []).forEach((t, i) => {
    const p = index(path, i);
    const k = stringAt(t, 'key');
    const operator = stringAt(t, 'operator');
    const value = stringAt(t, 'value');
    const effect = stringAt(t, 'effect');
    if (k !== '') errs.push(...validateLabelName(k, child(p, 'key')));
    if (k === '' && operator !== 'Exists') {
      errs.push(FieldError.invalid(child(p, 'operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (isSet(t, 'tolerationSeconds') && effect !== 'NoExecute') {
      errs.push(FieldError.invalid(child(p, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    switch (operator) {
      case 'Equal':
      case '': {
        const msgs = isValidLabelValue(value);
        if (msgs.length > 0) errs.push(FieldError.invalid(child(p, 'operator'), value, msgs.join(';')));
        break;
      }
      case 'Exists':
        if (value !== '') errs.push(FieldError.invalid(child(p, 'operator'), value, "value must be empty when `operator` is 'Exists'"));
        break;
      default:
        errs.push(FieldError.notSupported(child(p, 'operator'), operator, ['Equal', 'Exists']));
    }
    if (effect !== '' && !TAINT_EFFECTS.includes(effect)) errs.push(FieldError.notSupported(child(p, 'effect'), effect, TAINT_EFFECTS));
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Topology spread

const SCHEDULE_ACTIONS = ['DoNotSchedule', 'ScheduleAnyway'];
const NODE_INCLUSION_POLICIES = ['Honor', 'Ignore'];

/** validateTopologySpreadConstraints: spec.topologySpreadConstraints. */
export function validateTopologySpreadConstraints(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const constraints = objectsAt(spec, 'topologySpreadConstraints');
  constraints.forEach(([c, i], n) => {
    const p = index(path, i);
    const maxSkew = numberAt(c, 'maxSkew') ?? 0;
    if (maxSkew <= 0) errs.push(FieldError.invalid(child(p, 'maxSkew'), maxSkew, 'must be greater than zero'));
    const topologyKey = stringAt(c, 'topologyKey');
    if (topologyKey === '') errs.push(FieldError.required(child(p, 'topologyKey'), 'can not be empty'));
    const action = stringAt(c, 'whenUnsatisfiable');
    if (!SCHEDULE_ACTIONS.includes(action)) errs.push(FieldError.notSupported(child(p, 'whenUnsatisfiable'), action, SCHEDULE_ACTIONS));
    if (constraints.slice(n + 1).some(([o]) => stringAt(o, 'topologyKey') === topologyKey && stringAt(o, 'whenUnsatisfiable') === action)) {
      errs.push(FieldError.duplicate(child(p, '{topologyKey, whenUnsatisfiable}'), `{${topologyKey}, ${action}}`));
    }
    const minDomains = numberAt(c, 'minDomains');
    if (minDomains !== undefined) {
      if (minDomains <= 0) errs.push(FieldError.invalid(child(p, 'minDomains'), minDomains, 'must be greater than zero'));
      if (action !== 'DoNotSchedule') {
        errs.push(FieldError.invalid(child(p, 'minDomains'), minDomains, `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${action}`));
      }
    }
    for (const field of ['nodeAffinityPolicy', 'nodeTaintsPolicy']) {
      const policy = c[field];
      if (typeof policy === 'string' && !NODE_INCLUSION_POLICIES.includes(policy)) {
        errs.push(FieldError.notSupported(child(p, field), policy, NODE_INCLUSION_POLICIES));
      }
    }
    errs.push(...validateLabelSelector(c['labelSelector'], child(p, 'labelSelector')));
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// DNS and host aliases

/** validatePodDNSConfig: spec.dnsConfig, which dnsPolicy None requires. */
export function validateDNSConfig(spec: JsonObject, path: string): FieldError[] {
  const config = objectAt(spec, 'dnsConfig');
  const nameservers = arrayAt(config, 'nameservers');
  if (stringAt(spec, 'dnsPolicy') === 'None') {
    if (config === undefined) return [FieldError.required(path, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if (nameservers.length === 0) return [FieldError.required(child(path, 'nameservers'), 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (config === undefined) return [];
  const errs: FieldError[] = [];
  if (nameservers.length > 3) errs.push(FieldError.invalid(child(path, 'nameservers'), nameservers, 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => errs.push(...validateIP(typeof ns === 'string' ? ns : '', index(child(path, 'nameservers'), i))));
  const searches = arrayAt(config, 'searches').map((s) => (typeof s === 'string' ? s : ''));
  if (searches.length > 32) errs.push(FieldError.invalid(child(path, 'searches'), searches, 'must not have more than 32 search paths'));
  if (searches.join(' ').length > 2048) {
    errs.push(FieldError.invalid(child(path, 'searches'), searches, 'must not have more than 2048 characters (including spaces) in the search list'));
  }
  searches.forEach((search, i) => {
    const trimmed = search.endsWith('.') ? search.slice(0, -1) : search;
    errs.push(...isDNS1123Subdomain(trimmed).map((msg) => FieldError.invalid(index(child(path, 'searches'), i), trimmed, msg)));
  });
  for (const [option, i] of objectsAt(config, 'options')) {
    if (stringAt(option, 'name') === '') errs.push(FieldError.required(index(child(path, 'options'), i), 'must not be empty'));
  }
  return errs;
}

/** ValidateHostAliases: spec.hostAliases. */
export function validateHostAliases(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [alias, i] of objectsAt(spec, 'hostAliases')) {
    const p = index(path, i);
    errs.push(...validateIP(stringAt(alias, 'ip'), child(p, 'ip')));
    arrayAt(alias, 'hostnames').forEach((h, j) => {
      const hostname = typeof h === 'string' ? h : '';
      errs.push(...isDNS1123Subdomain(hostname).map((msg) => FieldError.invalid(index(child(p, 'hostnames'), j), hostname, msg)));
    });
  }
  return errs;
}
