/**
 * Whether one set of rules covers another (Kubernetes' validation.Covers), the test behind
 * escalation prevention and the reconciliation of the default roles: each rule to cover is broken
 * down into single-verb, single-group, single-resource (and single-name) rules, and each of those
 * must be covered by one owner rule. What is missing comes back compacted (rules differing only by
 * verb merged), ready for an error message.
 */
import type { PolicyRule } from '../registry/kinds/rbac/rbac.js';
import { compactString } from './rules.js';

const ALL = '*';

/** BreakdownRule: one rule per group × resource × verb (× name), and per URL × verb. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const names = rule.resourceNames ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        if (names.length > 0) for (const name of names) out.push({ verbs: [verb], apiGroups: [group], resources: [resource], resourceNames: [name] });
        else out.push({ verbs: [verb], apiGroups: [group], resources: [resource] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs) out.push({ verbs: [verb], nonResourceURLs: [url] });
  return out;
}

function has(list: readonly string[] | undefined, v: string): boolean {
  return (list ?? []).includes(v);
}

function hasAll(set: readonly string[] | undefined, values: readonly string[] | undefined): boolean {
  return (values ?? []).every((v) => has(set, v));
}

function resourceCoversAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  if (has(set, ALL) || hasAll(set, covers)) return true;
  for (const path of covers ?? []) {
    if (has(set, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(set, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith(ALL) && sub.startsWith(owner.replace(/\*+$/, '')));
}

function nonResourceURLsCoverAll(set: readonly string[] | undefined, covers: readonly string[] | undefined): boolean {
  return (covers ?? []).every((path) => (set ?? []).some((owner) => nonResourceURLCovers(owner, path)));
}

/** ruleCovers: whether `owner` covers the (broken-down) `sub`. */
export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const subNames = sub.resourceNames ?? [];
  const ownerNames = owner.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/** Covers: whether `owner` covers every rule of `servant`, and the broken-down rules it does not. */
export function covers(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): { readonly covered: boolean; readonly missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of servant) {
    for (const sub of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

/**
 * CompactRules: rules with one group, one resource, at most one name and nothing else are merged
 * when they differ only by verb; the others are kept as they are.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, { verbs: string[]; apiGroups: string[]; resources: string[]; resourceNames?: string[] }>();
  for (const r of rules) {
    const groups = r.apiGroups ?? [];
    const resources = r.resources ?? [];
    const names = r.resourceNames ?? [];
    if (names.length > 1 || (r.nonResourceURLs ?? []).length > 0 || groups.length !== 1 || resources.length !== 1) {
      out.push(r);
      continue;
    }
    const key = JSON.stringify([groups[0], resources[0], names.length === 1 ? names[0] : null]);
    const existing = simple.get(key);
    if (existing !== undefined) existing.verbs.push(...r.verbs);
    else simple.set(key, { verbs: [...r.verbs], apiGroups: [...groups], resources: [...resources], ...(names.length === 1 ? { resourceNames: [...names] } : {}) });
  }
  return [...out, ...simple.values()];
}

/** The missing rules as an escalation error lists them: compacted, each CompactString, sorted, one a line. */
export function describeMissing(missing: readonly PolicyRule[]): string {
  return [...new Set(compactRules(missing).map(compactString))].sort().join('\n');
}
