/**
 * Node (v1, cluster-scoped, short name no), as Kubernetes' node strategy: allocatable defaults to
 * capacity and podCIDR mirrors podCIDRs[0] (defaulting and conversion); taints valid and unique by
 * key and effect; pod CIDRs valid, one per IP family, set once; providerID set once; capacity and
 * allocatable non-negative (integers for countable resources). Conditions and everything else in
 * the status are the node agent's business. Field selector: spec.unschedulable.
 */
import {
  FieldError,
  jsonClone,
  OMIT_VALUE,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
  parseQuantity,
  QuantityError,
  type KubeObject,
} from '@setpoint/api';
import { nodeSchema } from '../../schemas/core.js';
import type { ResourceDef } from '../../types.js';
import { nodePrinter } from './table.js';

/** The taint effects Kubernetes supports, in the order its message lists them. */
export const TAINT_EFFECTS: readonly string[] = Object.freeze(['NoSchedule', 'PreferNoSchedule', 'NoExecute']);

/** Resources counted in whole units (helper.IsIntegerResourceName, besides extended resources). */
const INTEGER_RESOURCES = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

const CHANGE_ONCE = 'node updates may not change podCIDR except from "" to valid';

function record(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.map(text) : [];
}

/** Go's %#v of a string slice: `[]string{"a", "b"}`. */
function goStrings(values: readonly string[]): string {
  return `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;
}

/** An error of `type` whose value prints bare, as Go's %#v prints a struct or slice. */
function goValueError(type: 'FieldValueInvalid' | 'FieldValueDuplicate', path: string, rendered: string, detail: string): FieldError {
  return new FieldError(type, path, OMIT_VALUE, detail === '' ? rendered : `${rendered}: ${detail}`);
}

/**
 * Kubernetes' defaulting and conversion of a v1 Node: podCIDRs from podCIDR when only that is set,
 * podCIDR as podCIDRs[0]; status.allocatable a copy of status.capacity when unset.
 */
export function defaultNode(obj: KubeObject): void {
  const spec = record(obj['spec']);
  if (obj['spec'] !== undefined) {
    const cidrs = strings(spec['podCIDRs']);
    const cidr = text(spec['podCIDR']);
    if (cidrs.length === 0 && cidr !== '') spec['podCIDRs'] = [cidr];
    else if (cidrs.length > 0) spec['podCIDR'] = cidrs[0];
  }
  const status = record(obj['status']);
  if (obj['status'] !== undefined && status['allocatable'] === undefined && status['capacity'] !== undefined) {
    status['allocatable'] = jsonClone(status['capacity']);
  }
}

// ---------------------------------------------------------------------------------------------
// CIDRs

function ipFamily(ip: string): 4 | 6 | undefined {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (v4 !== null) return v4.slice(1).every((p) => Number(p) <= 255) ? 4 : undefined;
  if (!ip.includes(':') || !/^[0-9A-Fa-f:.]+$/.test(ip)) return undefined;
  const parts = ip.split('::');
  if (parts.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const all = [...groups(parts[0]!), ...groups(parts[1] ?? '')];
  let words = 0;
  for (let i = 0; i < all.length; i++) {
    const g = all[i]!;
    if (i === all.length - 1 && g.includes('.')) {
      if (ipFamily(g) !== 4) return undefined;
      words += 2;
    } else if (/^[0-9A-Fa-f]{1,4}$/.test(g)) words += 1;
    else return undefined;
  }
  return (parts.length === 2 ? words < 8 : words === 8) ? 6 : undefined;
}

/** The IP family of a CIDR as Go's net.ParseCIDR reads it ("10.0.0.0/24" → 4), or undefined when invalid. */
export function cidrFamily(cidr: string): 4 | 6 | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(cidr);
  if (m === null) return undefined;
  const family = ipFamily(m[1]!);
  if (family === undefined) return undefined;
  return Number(m[2]) <= (family === 4 ? 32 : 128) ? family : undefined;
}

function validatePodCIDRs(cidrs: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  const path = 'spec.podCIDRs';
  cidrs.forEach((c, i) => {
    if (cidrFamily(c) === undefined) errs.push(goValueError('FieldValueInvalid', `${path}[${i}]`, goStrings(cidrs), 'must be valid CIDR'));
  });
  if (cidrs.length > 1) {
    const families = cidrs.map(cidrFamily);
    const dualStack = cidrs.length === 2 && families.includes(4) && families.includes(6);
    if (!dualStack) {
      errs.push(goValueError('FieldValueInvalid', path, goStrings(cidrs), 'may specify no more than one CIDR for each IP family'));
    }
    const seen = new Set<string>();
    cidrs.forEach((c, i) => {
      if (seen.has(c)) errs.push(FieldError.duplicate(`${path}[${i}]`, c));
      seen.add(c);
    });
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Taints

function goTaint(t: Record<string, unknown>): string {
  const added = typeof t['timeAdded'] === 'string' ? JSON.stringify(t['timeAdded']) : '(*v1.Time)(nil)';
  return `core.Taint{Key:${JSON.stringify(text(t['key']))}, Value:${JSON.stringify(text(t['value']))}, Effect:${JSON.stringify(text(t['effect']))}, TimeAdded:${added}}`;
}

/**
 * Kubernetes' validateNodeTaints, at `metadata.taints[i]` (Kubernetes' path, not spec.taints): key
 * a qualified name, value a label value, effect required and one of {@link TAINT_EFFECTS}, and no
 * two taints with the same key and effect (`Duplicate value: core.Taint{…}: taints must be unique
 * by key and effect pair`).
 */
export function validateTaints(taints: unknown, path = 'metadata.taints'): FieldError[] {
  const errs: FieldError[] = [];
  if (!Array.isArray(taints)) return errs;
  const unique = new Map<string, Set<string>>();
  taints.forEach((raw: unknown, i) => {
    const t = record(raw);
    const p = `${path}[${i}]`;
    const key = text(t['key']);
    const value = text(t['value']);
    const effect = text(t['effect']);
    for (const msg of isQualifiedName(key)) errs.push(FieldError.invalid(`${p}.key`, key, msg));
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0) errs.push(FieldError.invalid(`${p}.value`, value, valueErrs.join(';')));
    if (effect === '') errs.push(FieldError.required(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) errs.push(FieldError.notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
    const keys = unique.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      errs.push(goValueError('FieldValueDuplicate', p, goTaint(t), 'taints must be unique by key and effect pair'));
      return;
    }
    keys.add(key);
    unique.set(effect, keys);
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Resources

function isExtendedResourceName(name: string): boolean {
  const native = !name.includes('/') || name.includes('kubernetes.io/');
  if (native || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

function validateResourceList(list: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const [name, raw] of Object.entries(record(list))) {
    const p = `${path}.${name}`;
    let quantity;
    try {
      quantity = parseQuantity(typeof raw === 'number' ? String(raw) : text(raw));
    } catch (err) {
      if (!(err instanceof QuantityError)) throw err;
      errs.push(FieldError.invalid(p, raw, err.message));
      continue;
    }
    if (quantity.nanos < 0n) errs.push(FieldError.invalid(p, quantity.toString(), 'must be greater than or equal to 0'));
    if ((INTEGER_RESOURCES.has(name) || isExtendedResourceName(name)) && quantity.nanos % 1_000_000_000n !== 0n) {
      errs.push(FieldError.invalid(p, quantity.toString(), 'must be an integer'));
    }
  }
  return errs;
}

/** ValidateNodeResources: status.capacity.<name> and status.allocatable.<name>. */
export function validateNodeResources(obj: KubeObject): FieldError[] {
  const status = record(obj['status']);
  return [...validateResourceList(status['capacity'], 'status.capacity'), ...validateResourceList(status['allocatable'], 'status.allocatable')];
}

// ---------------------------------------------------------------------------------------------
// Node

/** ValidateNode without the metadata: taints, resources, pod CIDRs. */
export function validateNode(obj: KubeObject): FieldError[] {
  const spec = record(obj['spec']);
  return [...validateTaints(spec['taints']), ...validateNodeResources(obj), ...validatePodCIDRs(strings(spec['podCIDRs']))];
}

function validateAddresses(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const addresses = record(obj['status'])['addresses'];
  if (!Array.isArray(addresses)) return errs;
  const seen = new Set<string>();
  addresses.forEach((raw: unknown, i) => {
    const a = record(raw);
    const type = text(a['type']);
    const address = text(a['address']);
    const key = JSON.stringify([type, address]);
    if (seen.has(key)) {
      const rendered = `core.NodeAddress{Type:${JSON.stringify(type)}, Address:${JSON.stringify(address)}}`;
      errs.push(goValueError('FieldValueDuplicate', `status.addresses[${i}]`, rendered, ''));
    }
    seen.add(key);
  });
  return errs;
}

/**
 * The update rules of ValidateNodeUpdate (the create rules run too): no duplicate status.addresses;
 * podCIDRs and providerID may only change from unset; externalID may not change.
 */
export function validateNodeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateAddresses(obj);
  const spec = record(obj['spec']);
  const oldSpec = record(old['spec']);
  const oldCIDRs = strings(oldSpec['podCIDRs']);
  const newCIDRs = strings(spec['podCIDRs']);
  if (oldCIDRs.length > 0) {
    if (oldCIDRs.length !== newCIDRs.length) errs.push(FieldError.forbidden('spec.podCIDRs', CHANGE_ONCE));
    else oldCIDRs.forEach((c, i) => c !== newCIDRs[i] && errs.push(FieldError.forbidden('spec.podCIDRs', CHANGE_ONCE)));
  }
  const oldProvider = text(oldSpec['providerID']);
  if (oldProvider !== '' && oldProvider !== text(spec['providerID'])) {
    errs.push(FieldError.forbidden('spec.providerID', 'node updates may not change providerID except from "" to valid'));
  }
  if (text(spec['externalID']) !== text(oldSpec['externalID'])) errs.push(FieldError.forbidden('spec.externalID', 'may not be updated'));
  return errs;
}

/** A status update (nodes/status): resources and addresses (the spec is the old one). */
export function validateNodeStatusUpdate(obj: KubeObject): FieldError[] {
  return [...validateNodeResources(obj), ...validateAddresses(obj)];
}

/** nodes (v1). */
export const nodeResource: ResourceDef = {
  group: '',
  version: 'v1',
  resource: 'nodes',
  protobuf: true,
  printer: nodePrinter,
  singular: 'node',
  kind: 'Node',
  listKind: 'NodeList',
  namespaced: false,
  shortNames: ['no'],
  subresources: { status: true },
  fieldSelectors: {
    'spec.unschedulable': (obj) => String(record(obj['spec'])['unschedulable'] === true),
  },
  schema: nodeSchema,
  nameValidator: nameIsDNSSubdomain,
  strategy: {
    defaults: defaultNode,
    validate: (obj) => validateNode(obj),
    validateUpdate: (obj, old) => validateNodeUpdate(obj, old),
    validateStatusUpdate: (obj) => validateNodeStatusUpdate(obj),
  },
};
