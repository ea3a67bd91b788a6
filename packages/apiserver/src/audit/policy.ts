/**
 * Audit policy: Kubernetes' audit.k8s.io/v1 Policy (YAML or JSON), read and validated as
 * kube-apiserver reads it, and the checker that gives each request its level.
 *
 * Rules are tried in order; the first that matches a request decides its level and the stages
 * left out; a request no rule matches is not audited (level None), as in Kubernetes. A rule
 * matches when every field it sets matches:
 * - `users`: the user's name is listed; `userGroups`: one of the user's groups is listed;
 * - `verbs`: the request's verb (get, list, watch, create, update, patch, delete,
 *   deletecollection; for other paths the lower-case HTTP method) is listed;
 * - `resources` / `namespaces`: only resource requests; the namespace is listed ("" for
 *   cluster-scoped ones); a `{group, resources, resourceNames}` entry with the request's group
 *   whose resources list is empty, or names the resource (`pods`), the resource and subresource
 *   (`pods/log`), every resource (`*`), every resource's subresource (`*` then `/log`) or every
 *   subresource of a resource (`pods/*`), and whose `resourceNames` (if any) holds the name;
 * - `nonResourceURLs`: only other requests; the path equals an entry or starts with an entry
 *   ending in `*` (`/healthz*`, `*` for all).
 */
import { FieldError } from '@setpoint/api';
import { parse as parseYaml } from 'yaml';

/** How much of a request is recorded: nothing, who/what/when, plus the request body, plus the response body. */
export type AuditLevel = 'None' | 'Metadata' | 'Request' | 'RequestResponse';
/** The stages of a request at which Kubernetes records events (Setpoint records ResponseComplete). */
export type AuditStage = 'RequestReceived' | 'ResponseStarted' | 'ResponseComplete' | 'Panic';

export const AUDIT_LEVELS: readonly AuditLevel[] = ['None', 'Metadata', 'Request', 'RequestResponse'];
export const AUDIT_STAGES: readonly AuditStage[] = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'];

export interface GroupResources {
  /** "" is the core group. */
  readonly group: string;
  readonly resources: readonly string[];
  readonly resourceNames: readonly string[];
}

export interface AuditPolicyRule {
  readonly level: AuditLevel;
  readonly users: readonly string[];
  readonly userGroups: readonly string[];
  readonly verbs: readonly string[];
  readonly resources: readonly GroupResources[];
  readonly namespaces: readonly string[];
  readonly nonResourceURLs: readonly string[];
  readonly omitStages: readonly AuditStage[];
  /** Whether managedFields are left out of logged bodies; undefined: the policy's setting. */
  readonly omitManagedFields: boolean | undefined;
}

export interface AuditPolicy {
  readonly rules: readonly AuditPolicyRule[];
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean;
}

/** What a rule is matched against. */
export interface AuditAttributes {
  /** Undefined for a request that did not authenticate. */
  readonly user: { readonly name: string; readonly groups: readonly string[] } | undefined;
  readonly verb: string;
  readonly resourceRequest: boolean;
  /** The URL path (without the query). */
  readonly path: string;
  readonly apiGroup: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

/** The outcome of a policy check for one request. */
export interface AuditDecision {
  readonly level: AuditLevel;
  readonly omitStages: readonly AuditStage[];
  readonly omitManagedFields: boolean;
}

/** A policy that records every request at Metadata level (what `--audit-log-path` alone means in Setpoint). */
export const METADATA_POLICY: AuditPolicy = {
  rules: [{ level: 'Metadata', users: [], userGroups: [], verbs: [], resources: [], namespaces: [], nonResourceURLs: [], omitStages: [], omitManagedFields: undefined }],
  omitStages: [],
  omitManagedFields: false,
};

const POLICY_VERSIONS = new Set(['audit.k8s.io/v1', 'audit.k8s.io/v1beta1', 'audit.k8s.io/v1alpha1']);

/**
 * Reads a policy file's text. Throws an Error naming `source` for what kube-apiserver refuses:
 * undecodable text (`failed decoding: …`), another apiVersion or kind, invalid rules
 * (`rules[0].level: Unsupported value: "Verbose": supported values: …`, `rules cannot apply to both
 * regular resources and non-resource URLs`, wildcards not at the end, unknown stages, …) and a
 * policy without rules (`loaded illegal policy with 0 rules`). v1beta1 and v1alpha1 are read as v1.
 */
export function parseAuditPolicy(text: string, source = 'audit policy'): AuditPolicy {
  let doc: unknown;
  try {
    doc = parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new Error(`failed decoding: ${(err as Error).message.split('\n')[0]}: from file ${source}`);
  }
  if (!isMap(doc)) throw new Error(`failed decoding: the policy is not a YAML or JSON object: from file ${source}`);
  const apiVersion = doc['apiVersion'];
  const kind = doc['kind'];
  if (typeof apiVersion !== 'string' || !POLICY_VERSIONS.has(apiVersion) || kind !== 'Policy') {
    throw new Error(`unknown group version field ${String(apiVersion ?? '')}, Kind=${String(kind ?? '')} in policy (want apiVersion audit.k8s.io/v1, kind Policy): from file ${source}`);
  }
  const errs: FieldError[] = [];
  const rules: AuditPolicyRule[] = [];
  const rawRules = doc['rules'];
  if (rawRules !== undefined && rawRules !== null && !Array.isArray(rawRules)) errs.push(FieldError.typeInvalid('rules', rawRules, 'must be a list'));
  (Array.isArray(rawRules) ? rawRules : []).forEach((raw, i) => {
    const rule = readRule(raw, `rules[${i}]`, errs);
    if (rule !== undefined) rules.push(rule);
  });
  const omitStages = readStages(doc['omitStages'], 'omitStages', errs);
  const omitManagedFields = readBool(doc['omitManagedFields'], 'omitManagedFields', errs) ?? false;
  if (errs.length > 0) throw new Error(`${errs.length === 1 ? errs[0]!.toString() : `[${errs.map((e) => e.toString()).join(', ')}]`}: from file ${source}`);
  if (rules.length === 0) throw new Error(`loaded illegal policy with 0 rules: from file ${source}`);
  return { rules, omitStages, omitManagedFields };
}

function readRule(raw: unknown, path: string, errs: FieldError[]): AuditPolicyRule | undefined {
  if (!isMap(raw)) {
    errs.push(FieldError.typeInvalid(path, raw, 'must be an object'));
    return undefined;
  }
  const level = raw['level'];
  if (level === undefined || level === null || level === '') errs.push(FieldError.required(`${path}.level`));
  else if (!AUDIT_LEVELS.includes(level as AuditLevel)) errs.push(FieldError.notSupported(`${path}.level`, level, AUDIT_LEVELS));
  const nonResourceURLs = readStrings(raw['nonResourceURLs'], `${path}.nonResourceURLs`, errs);
  nonResourceURLs.forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) errs.push(FieldError.invalid(`${path}.nonResourceURLs[${i}]`, url, "non-resource URL rules must begin with a '/' character"));
    if (url !== '' && url.slice(0, -1).includes('*')) errs.push(FieldError.invalid(`${path}.nonResourceURLs[${i}]`, url, "non-resource URL wildcards '*' must be the final character of the rule"));
  });
  const resources: GroupResources[] = [];
  const rawResources = raw['resources'];
  if (rawResources !== undefined && rawResources !== null && !Array.isArray(rawResources)) errs.push(FieldError.typeInvalid(`${path}.resources`, rawResources, 'must be a list'));
  (Array.isArray(rawResources) ? rawResources : []).forEach((gr, i) => {
    const at = `${path}.resources[${i}]`;
    if (!isMap(gr)) {
      errs.push(FieldError.typeInvalid(at, gr, 'must be an object'));
      return;
    }
    const group = gr['group'] ?? '';
    if (typeof group !== 'string') errs.push(FieldError.typeInvalid(`${at}.group`, group, 'must be a string'));
    else if (group !== '' && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(group)) {
      errs.push(FieldError.invalid(`${path}.resources.group`, group, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"));
    }
    const names = readStrings(gr['resources'], `${at}.resources`, errs);
    const resourceNames = readStrings(gr['resourceNames'], `${at}.resourceNames`, errs);
    if (resourceNames.length > 0 && names.length === 0) errs.push(FieldError.invalid(`${path}.resources.resourceNames`, resourceNames, 'using resourceNames requires at least one resource'));
    resources.push({ group: typeof group === 'string' ? group : '', resources: names, resourceNames });
  });
  const namespaces = readStrings(raw['namespaces'], `${path}.namespaces`, errs);
  if (nonResourceURLs.length > 0 && (resources.length > 0 || namespaces.length > 0)) {
    errs.push(FieldError.invalid(`${path}.nonResourceURLs`, nonResourceURLs, 'rules cannot apply to both regular resources and non-resource URLs'));
  }
  return {
    level: level as AuditLevel,
    users: readStrings(raw['users'], `${path}.users`, errs),
    userGroups: readStrings(raw['userGroups'], `${path}.userGroups`, errs),
    verbs: readStrings(raw['verbs'], `${path}.verbs`, errs),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: readStages(raw['omitStages'], `${path}.omitStages`, errs),
    omitManagedFields: readBool(raw['omitManagedFields'], `${path}.omitManagedFields`, errs),
  };
}

function readStrings(raw: unknown, path: string, errs: FieldError[]): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw) || raw.some((s) => typeof s !== 'string')) {
    errs.push(FieldError.typeInvalid(path, raw, 'must be a list of strings'));
    return [];
  }
  return raw as string[];
}

function readStages(raw: unknown, path: string, errs: FieldError[]): AuditStage[] {
  const stages = readStrings(raw, path, errs);
  stages.forEach((s, i) => {
    if (!AUDIT_STAGES.includes(s as AuditStage)) errs.push(FieldError.invalid(`${path}[${i}]`, s, `allowed stages are ${AUDIT_STAGES.join(',')}`));
  });
  return stages as AuditStage[];
}

function readBool(raw: unknown, path: string, errs: FieldError[]): boolean | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'boolean') {
    errs.push(FieldError.typeInvalid(path, raw, 'must be true or false'));
    return undefined;
  }
  return raw;
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Gives requests their audit level by a policy's rules (first match; None when none matches). */
export class AuditPolicyChecker {
  private readonly rules: ReadonlyArray<{ readonly rule: AuditPolicyRule; readonly decision: AuditDecision }>;
  private readonly fallback: AuditDecision;

  constructor(policy: AuditPolicy) {
    // Each rule leaves out its own stages and the policy's, as Kubernetes' checker unions them.
    this.rules = policy.rules.map((rule) => ({
      rule,
      decision: { level: rule.level, omitStages: [...new Set([...policy.omitStages, ...rule.omitStages])], omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields },
    }));
    this.fallback = { level: 'None', omitStages: policy.omitStages, omitManagedFields: policy.omitManagedFields };
  }

  /** The level and omitted stages for a request. */
  decide(attrs: AuditAttributes): AuditDecision {
    for (const { rule, decision } of this.rules) if (ruleMatches(rule, attrs)) return decision;
    return this.fallback;
  }
}

/** Whether `rule` matches a request (Kubernetes' policy checker's rules). */
export function ruleMatches(rule: AuditPolicyRule, attrs: AuditAttributes): boolean {
  const user = attrs.user;
  if (rule.users.length > 0 && (user === undefined || !rule.users.includes(user.name))) return false;
  if (rule.userGroups.length > 0 && (user === undefined || !user.groups.some((g) => rule.userGroups.includes(g)))) return false;
  if (rule.verbs.length > 0 && !rule.verbs.includes(attrs.verb)) return false;
  if (rule.namespaces.length > 0 || rule.resources.length > 0) return matchesResource(rule, attrs);
  if (rule.nonResourceURLs.length > 0) return !attrs.resourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(attrs.path, spec));
  return true;
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function matchesResource(rule: AuditPolicyRule, attrs: AuditAttributes): boolean {
  if (!attrs.resourceRequest) return false;
  if (rule.namespaces.length > 0 && !rule.namespaces.includes(attrs.namespace)) return false;
  if (rule.resources.length === 0) return true;
  const { resource, subresource, name } = attrs;
  const combined = subresource === '' ? resource : `${resource}/${subresource}`;
  for (const gr of rule.resources) {
    if (gr.group !== attrs.apiGroup) continue;
    if (gr.resources.length === 0) return true;
    if (gr.resourceNames.length > 0 && !gr.resourceNames.includes(name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (subresource !== '' && res.startsWith('*/') && res.slice(2) === subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === resource) return true;
    }
  }
  return false;
}
