/**
 * RBAC rule matching, as Kubernetes' rbac.RuleAllows and its helpers define it:
 *
 * - verbs: "*" or the request's verb;
 * - apiGroups: "*" or the request's group ("" is the core group);
 * - resources: "*", the request's resource ("pods" — which does not cover "pods/log"), the
 *   resource with its subresource ("pods/log"), or "*\/<subresource>" ("*\/scale");
 * - resourceNames: empty (every name) or containing the request's name — so a rule with names
 *   never allows list, watch, create or deletecollection, which carry no name;
 * - nonResourceURLs: "*", the path itself, or a prefix ending in "*" ("/healthz/*", "/apis*").
 */
import type { PolicyRule } from '../registry/kinds/rbac/rbac.js';
import type { Attributes } from './authorizer.js';

const ALL = '*';

/** VerbMatches. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  for (const v of rule.verbs) if (v === ALL || v === verb) return true;
  return false;
}

/** APIGroupMatches. */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  for (const g of rule.apiGroups ?? []) if (g === ALL || g === group) return true;
  return false;
}

/** ResourceMatches: `combined` is "resource" or "resource/subresource". */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource !== '' && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** ResourceNameMatches. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames;
  if (names === undefined || names.length === 0) return true;
  return names.includes(name);
}

/** NonResourceURLMatches. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === ALL || url === path) return true;
    if (url.endsWith(ALL) && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

/** Whether `rule` allows the request (RuleAllows). */
export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (attributes.resourceRequest) {
    const sub = attributes.subresource;
    const combined = sub === '' ? attributes.resource : `${attributes.resource}/${sub}`;
    return verbMatches(rule, attributes.verb) && apiGroupMatches(rule, attributes.apiGroup) && resourceMatches(rule, combined, sub) && resourceNameMatches(rule, attributes.name);
  }
  return verbMatches(rule, attributes.verb) && nonResourceURLMatches(rule, attributes.path);
}

/** Whether any of `rules` allows the request (RulesAllow). */
export function rulesAllow(attributes: Attributes, rules: readonly PolicyRule[]): boolean {
  for (const rule of rules) if (ruleAllows(attributes, rule)) return true;
  return false;
}

/** A rule with only the fields that are set (empty lists dropped), as RBAC objects are written. */
export function rule(verbs: readonly string[], apiGroups: readonly string[], resources: readonly string[], resourceNames?: readonly string[]): PolicyRule {
  return { verbs: [...verbs], apiGroups: [...apiGroups], resources: [...resources], ...(resourceNames && resourceNames.length > 0 ? { resourceNames: [...resourceNames] } : {}) };
}

/** A non-resource rule. */
export function urlRule(verbs: readonly string[], urls: readonly string[]): PolicyRule {
  return { verbs: [...verbs], nonResourceURLs: [...urls] };
}

/** The rule's lists, as stored objects may carry them (null or absent lists read as empty). */
export function normalizeRule(raw: unknown): PolicyRule {
  const r = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
  const out: { -readonly [K in keyof PolicyRule]: PolicyRule[K] } = { verbs: strings(r['verbs']) };
  for (const field of ['apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'] as const) {
    const v = strings(r[field]);
    if (v.length > 0) out[field] = v;
  }
  return out;
}

/** Two rules with the same lists (order matters), as Go's DeepEqual compares them. */
export function rulesEqual(a: PolicyRule, b: PolicyRule): boolean {
  const same = (x: readonly string[] | undefined, y: readonly string[] | undefined) => {
    const p = x ?? [];
    const q = y ?? [];
    return p.length === q.length && p.every((v, i) => v === q[i]);
  };
  return same(a.verbs, b.verbs) && same(a.apiGroups, b.apiGroups) && same(a.resources, b.resources) && same(a.resourceNames, b.resourceNames) && same(a.nonResourceURLs, b.nonResourceURLs);
}

/**
 * PolicyRule.CompactString, the form escalation errors list missing rules in:
 * `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}`.
 */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  const q = (list: readonly string[]) => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${q(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${q(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${q(rule.nonResourceURLs!)}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${q(rule.resourceNames!)}`);
  if (rule.verbs.length > 0) parts.push(`Verbs:${q(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
