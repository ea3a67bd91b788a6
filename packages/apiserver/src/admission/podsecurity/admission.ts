/**
 * PodSecurity admission, as kube-apiserver's plugin (k8s.io/pod-security-admission/admission)
 * does it:
 *
 * - Pods (create, and updates that change an image or a seccomp annotation; not the binding,
 *   status, log… subresources) are evaluated at their namespace's enforce level — a violation is a
 *   403 `pods "x" is forbidden: violates PodSecurity "baseline:latest": reason (detail), …` — and
 *   at its audit level (an audit annotation `pod-security.kubernetes.io/audit-violations`) and warn
 *   level (a `would violate PodSecurity "…": …` Warning, unless the request is refused anyway).
 * - Objects with a pod template (Deployments, ReplicaSets, and the other workload kinds Kubernetes
 *   lists) get the audit and warn evaluations of their template, never enforcement: the pods they
 *   make are enforced when created.
 * - Namespaces: labels that do not parse are refused (422) on create, and on update when they
 *   changed; an update that tightens the enforce level warns about the existing pods that would
 *   violate it (at most 3,000 pods are looked at, one per controller first).
 * - Exemptions (configuration): requests of the listed usernames, objects in the listed
 *   namespaces, and pods with the listed runtimeClassNames are not evaluated (audit annotation
 *   `pod-security.kubernetes.io/exempt`).
 *
 * The namespace's labels are read through `deps.namespaceLabels`, existing pods through
 * `deps.listPods`; the caller routes warnings and audit annotations through the sink.
 */
import { ApiError, type GroupResource, type KubeObject } from '@setpoint/api';
import { evaluatePod, violationsText, type EvaluationOptions } from './evaluator.js';
import { compareLevels, LABEL_PREFIX, levelVersionString, policyToEvaluate, PRIVILEGED_POLICY, sameLevelVersion, versionString, type LevelVersion, type Policy } from './levels.js';
import { containers, record, text, type Json, type PodLike } from './podspec.js';
import { SECCOMP_CONTAINER_ANNOTATION_PREFIX, SECCOMP_POD_ANNOTATION } from './baseline.js';
import { PodSecurityMetrics, type MetricsRequest } from './metrics.js';

/** Who and what is not evaluated. */
export interface PodSecurityExemptions {
  readonly usernames?: readonly string[];
  readonly namespaces?: readonly string[];
  readonly runtimeClasses?: readonly string[];
}

/** The plugin's configuration (Kubernetes' PodSecurityConfiguration): defaults and exemptions. */
export interface PodSecurityConfig {
  /** The policy of namespaces without labels (per mode). Default privileged:latest throughout. */
  readonly defaults?: Policy;
  readonly exemptions?: PodSecurityExemptions;
  /**
   * Setpoint's addition: root in a pod is root on the host (evaluator.ts EvaluationOptions), so
   * baseline refuses `runAsUser: 0` too. `setpoint up` and `setpoint server` set it, since their
   * nodes run pods as host processes. Default false, as in Kubernetes.
   */
  readonly rootIsHostRoot?: boolean;
}

/** Where the plugin reads what it needs. */
export interface PodSecurityDeps {
  /** The labels of namespace `name`; throws when it cannot be read. */
  namespaceLabels(name: string): Promise<unknown>;
  /** The pods of namespace `name` (for the warnings of a namespace update). */
  listPods(name: string): Promise<readonly KubeObject[]>;
  /** Where evaluations, exemptions and errors are counted. Default: counters nobody serves. */
  readonly metrics?: PodSecurityMetrics;
}

/** One write, as the plugin sees it. */
export interface PodSecurityRequest {
  readonly gr: GroupResource;
  readonly subresource: string;
  readonly namespace: string;
  readonly operation: 'create' | 'update';
  readonly obj: KubeObject;
  readonly old?: KubeObject | undefined;
  /** The requesting user's name ('' when unauthenticated). */
  readonly username: string;
}

/** Where the plugin's warnings and audit annotations go. */
export interface PodSecuritySink {
  warn(text: string): void;
  annotate(key: string, value: string): void;
}

/** Pods at most evaluated when a namespace's enforce level tightens (Kubernetes' default). */
export const NAMESPACE_MAX_PODS_TO_CHECK = 3000;

const IGNORED_POD_SUBRESOURCES = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

/** Where each kind with a pod template keeps it (group/resource → path to the PodTemplateSpec). */
const TEMPLATE_PATHS: ReadonlyMap<string, readonly string[]> = new Map([
  ['/podtemplates', ['template']],
  ['/replicationcontrollers', ['spec', 'template']],
  ['apps/replicasets', ['spec', 'template']],
  ['apps/deployments', ['spec', 'template']],
  ['apps/statefulsets', ['spec', 'template']],
  ['apps/daemonsets', ['spec', 'template']],
  ['batch/jobs', ['spec', 'template']],
  ['batch/cronjobs', ['spec', 'jobTemplate', 'spec', 'template']],
]);

const annotationKey = (k: string) => `${LABEL_PREFIX}${k}`;

function podLike(obj: KubeObject): PodLike {
  return { metadata: record(obj.metadata) ?? {}, spec: record(obj['spec']) ?? {} };
}

function templateOf(obj: KubeObject, path: readonly string[]): PodLike | undefined {
  let at: unknown = obj;
  for (const key of path) at = record(at)?.[key];
  const template = record(at);
  if (template === undefined) return undefined;
  return { metadata: record(template['metadata']) ?? {}, spec: record(template['spec']) ?? {} };
}

export class PodSecurityAdmission {
  private readonly defaultPolicy: Policy;
  private readonly usernames: ReadonlySet<string>;
  private readonly namespaces: ReadonlySet<string>;
  private readonly runtimeClasses: ReadonlySet<string>;
  private readonly metrics: PodSecurityMetrics;
  private readonly evaluation: EvaluationOptions;

  constructor(
    config: PodSecurityConfig,
    private readonly deps: PodSecurityDeps,
  ) {
    this.defaultPolicy = config.defaults ?? PRIVILEGED_POLICY;
    this.usernames = new Set(config.exemptions?.usernames ?? []);
    this.namespaces = new Set(config.exemptions?.namespaces ?? []);
    this.runtimeClasses = new Set(config.exemptions?.runtimeClasses ?? []);
    this.metrics = deps.metrics ?? new PodSecurityMetrics();
    this.evaluation = { rootIsHostRoot: config.rootIsHostRoot === true };
  }

  /** The policy of namespaces without labels. */
  get defaults(): Policy {
    return this.defaultPolicy;
  }

  /** Whether the plugin looks at writes of `gr` at all (pods, namespaces, kinds with a pod template). */
  static handles(gr: GroupResource): boolean {
    return gr.group === '' && (gr.resource === 'pods' || gr.resource === 'namespaces') ? true : TEMPLATE_PATHS.has(`${gr.group}/${gr.resource}`);
  }

  /** Admits one write: returns when allowed (after reporting warnings and annotations), throws an ApiError when refused. */
  async admit(req: PodSecurityRequest, sink: PodSecuritySink): Promise<void> {
    if (req.gr.group === '' && req.gr.resource === 'namespaces') return this.namespace(req, sink);
    if (req.gr.group === '' && req.gr.resource === 'pods') return this.pod(req, sink);
    const path = TEMPLATE_PATHS.get(`${req.gr.group}/${req.gr.resource}`);
    if (path !== undefined) return this.podController(req, path, sink);
  }

  private exempt(req: PodSecurityRequest, m: MetricsRequest, sink: PodSecuritySink): boolean {
    const reason = req.namespace !== '' && this.namespaces.has(req.namespace) ? 'namespace' : req.username !== '' && this.usernames.has(req.username) ? 'user' : undefined;
    if (reason === undefined) return false;
    sink.annotate(annotationKey('exempt'), reason);
    this.metrics.exemption(m);
    return true;
  }

  private async policyOf(namespace: string): Promise<{ policy: Policy; errors: string | undefined }> {
    let labels: unknown;
    try {
      labels = await this.deps.namespaceLabels(namespace);
    } catch (err) {
      throw ApiError.internal(new Error(`failed to lookup namespace ${namespace}`, { cause: err }));
    }
    const { policy, errors } = policyToEvaluate(labels, this.defaultPolicy);
    return { policy, errors: errors.length === 0 ? undefined : errors.length === 1 ? errors[0]!.toString() : `[${errors.map((e) => e.toString()).join(', ')}]` };
  }

  private async pod(req: PodSecurityRequest, sink: PodSecuritySink): Promise<void> {
    if (IGNORED_POD_SUBRESOURCES.has(req.subresource)) return;
    const m: MetricsRequest = { operation: req.operation, resource: 'pod', subresource: req.subresource };
    if (this.exempt(req, m, sink)) return;
    let found: { policy: Policy; errors: string | undefined };
    try {
      found = await this.policyOf(req.namespace);
    } catch (err) {
      this.metrics.error(true, m);
      throw err;
    }
    const { policy, errors } = found;
    if (errors === undefined && policy.enforce.level === 'privileged' && policy.audit.level === 'privileged' && policy.warn.level === 'privileged') {
      sink.annotate(annotationKey('enforce-policy'), 'privileged:latest');
      this.metrics.evaluation('allow', policy.enforce, 'enforce', m);
      return;
    }
    if (req.operation === 'update' && req.old !== undefined && !significantPodUpdate(req.obj, req.old)) return;
    this.evaluate(policy, errors, podLike(req.obj), { resource: req.gr, name: req.obj.metadata.name ?? '' }, m, sink);
  }

  private async podController(req: PodSecurityRequest, path: readonly string[], sink: PodSecuritySink): Promise<void> {
    if (req.subresource !== '') return;
    const m: MetricsRequest = { operation: req.operation, resource: 'controller', subresource: '' };
    if (this.exempt(req, m, sink)) return;
    let found: { policy: Policy; errors: string | undefined };
    try {
      found = await this.policyOf(req.namespace);
    } catch (err) {
      // Pod controllers are never refused: a namespace that cannot be read is only recorded.
      this.metrics.error(true, m);
      sink.annotate(annotationKey('error'), `failed to lookup namespace ${req.namespace}: ${(err as Error).message}`);
      return;
    }
    const { policy, errors } = found;
    if (errors === undefined && policy.audit.level === 'privileged' && policy.warn.level === 'privileged') return;
    const template = templateOf(req.obj, path);
    if (template === undefined) return;
    this.evaluate(policy, errors, template, undefined, m, sink);
  }

  /** Kubernetes' EvaluatePod: enforce (when `enforce` names the pod), then audit, then warn, each level evaluated once. */
  private evaluate(policy: Policy, errors: string | undefined, pod: PodLike, enforce: { resource: GroupResource; name: string } | undefined, m: MetricsRequest, sink: PodSecuritySink): void {
    const runtimeClass = text(pod.spec['runtimeClassName']);
    if (runtimeClass !== '' && this.runtimeClasses.has(runtimeClass)) {
      sink.annotate(annotationKey('exempt'), 'runtimeClass');
      this.metrics.exemption(m);
      return;
    }
    if (errors !== undefined) {
      sink.annotate(annotationKey('error'), `Failed to parse policy: ${errors}`);
      this.metrics.error(false, m);
    }
    const cache = new Map<string, string>();
    const violations = (lv: LevelVersion): string => {
      const key = levelVersionString(lv);
      let found = cache.get(key);
      if (found === undefined) {
        found = violationsText(evaluatePod(lv, pod, this.evaluation));
        cache.set(key, found);
      }
      return found;
    };
    let refused: ApiError | undefined;
    if (enforce !== undefined) {
      sink.annotate(annotationKey('enforce-policy'), levelVersionString(policy.enforce));
      const text = violations(policy.enforce);
      if (text !== '') refused = ApiError.forbidden(enforce.resource, enforce.name, `violates PodSecurity "${levelVersionString(policy.enforce)}": ${text}`);
      this.metrics.evaluation(refused === undefined ? 'allow' : 'deny', policy.enforce, 'enforce', m);
    }
    const audit = violations(policy.audit);
    if (audit !== '') {
      sink.annotate(annotationKey('audit-violations'), `would violate PodSecurity "${levelVersionString(policy.audit)}": ${audit}`);
      this.metrics.evaluation('deny', policy.audit, 'audit', m);
    }
    if (refused !== undefined) throw refused;
    const warn = violations(policy.warn);
    if (warn !== '') {
      sink.warn(`would violate PodSecurity "${levelVersionString(policy.warn)}": ${warn}`);
      this.metrics.evaluation('deny', policy.warn, 'warn', m);
    }
  }

  private async namespace(req: PodSecurityRequest, sink: PodSecuritySink): Promise<void> {
    if (req.subresource !== '') return;
    const name = req.obj.metadata.name ?? '';
    const next = policyToEvaluate(req.obj.metadata.labels, this.defaultPolicy);
    const invalid = () => ApiError.invalid({ group: '', kind: 'Namespace' }, name, next.errors);
    if (req.operation === 'create') {
      if (next.errors.length > 0) throw invalid();
      return;
    }
    const before = policyToEvaluate(req.old?.metadata.labels, this.defaultPolicy);
    const same = next.errors.length === before.errors.length && next.errors.every((e, i) => e.toString() === before.errors[i]!.toString());
    if (next.errors.length > 0 && (before.errors.length === 0 || !same)) throw invalid();
    const enforce = next.policy.enforce;
    const old = before.policy.enforce;
    if (sameLevelVersion(enforce, old) || enforce.level === 'privileged') return;
    if (versionString(enforce.version) === versionString(old.version) && compareLevels(enforce.level, old.level) < 1) return;
    if (this.namespaces.has(name)) {
      sink.annotate(annotationKey('exempt'), 'namespace');
      return;
    }
    for (const w of await this.existingPodWarnings(name, enforce)) sink.warn(w);
  }

  private async existingPodWarnings(namespace: string, enforce: LevelVersion): Promise<string[]> {
    let pods: readonly KubeObject[];
    try {
      pods = await this.deps.listPods(namespace);
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    const ordered = prioritizePods(pods);
    const checked = ordered.slice(0, NAMESPACE_MAX_PODS_TO_CHECK);
    const byWarning = new Map<string, { first: string; count: number }>();
    for (const pod of checked) {
      const v = violationsText(evaluatePod(enforce, podLike(pod), this.evaluation));
      if (v === '') continue;
      const name = pod.metadata.name ?? '';
      const seen = byWarning.get(v);
      if (seen === undefined) byWarning.set(v, { first: name, count: 1 });
      else {
        seen.count++;
        if (name < seen.first) seen.first = name;
      }
    }
    const out: string[] = [];
    if (checked.length < ordered.length) out.push(`new PodSecurity enforce level only checked against the first ${checked.length} of ${ordered.length} existing pods`);
    if (byWarning.size > 0) out.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`);
    const decorated = [...byWarning].map(([warning, { first, count }]) =>
      count === 1 ? `${first}: ${warning}` : count === 2 ? `${first} (and 1 other pod): ${warning}` : `${first} (and ${count - 1} other pods): ${warning}`,
    );
    return [...out, ...decorated.sort()];
  }
}

/** One pod per controller first, then the other pods of the same controllers (Kubernetes' prioritizePods). */
function prioritizePods(pods: readonly KubeObject[]): KubeObject[] {
  const first: KubeObject[] = [];
  const rest: KubeObject[] = [];
  const controllers = new Set<string>();
  for (const pod of pods) {
    const owner = (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    if (owner !== undefined) {
      if (controllers.has(owner.uid)) {
        rest.push(pod);
        continue;
      }
      controllers.add(owner.uid);
    }
    first.push(pod);
  }
  return [...first, ...rest];
}

/** Whether a pod update changes what Pod Security looks at and may change: images and the seccomp annotations. */
function significantPodUpdate(pod: KubeObject, old: KubeObject): boolean {
  const a = (o: KubeObject) => record(o.metadata.annotations) ?? {};
  const newAnn = a(pod);
  const oldAnn = a(old);
  if (newAnn[SECCOMP_POD_ANNOTATION] !== oldAnn[SECCOMP_POD_ANNOTATION]) return true;
  const spec = (o: KubeObject): Json => record(o['spec']) ?? {};
  const of = (o: KubeObject, field: string) => containers({ [field]: spec(o)[field] });
  const changed = (c: { name: string; raw: Json }, oc: { name: string; raw: Json }) =>
    c.raw['image'] !== oc.raw['image'] || newAnn[SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name] !== oldAnn[SECCOMP_CONTAINER_ANNOTATION_PREFIX + c.name];
  for (const field of ['containers', 'initContainers']) {
    const now = of(pod, field);
    const before = of(old, field);
    if (now.length !== before.length) return true;
    if (now.some((c, i) => changed(c, before[i]!))) return true;
  }
  const oldEphemeral = of(old, 'ephemeralContainers');
  for (const c of of(pod, 'ephemeralContainers')) {
    const oc = oldEphemeral.find((o) => o.name === c.name);
    if (oc === undefined || changed(c, oc)) return true;
  }
  return false;
}
