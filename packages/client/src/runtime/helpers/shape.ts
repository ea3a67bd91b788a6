/**
 * The shape checks a controller makes of an object before it acts on it: the JSON type of each
 * field its code reads, as Go's typed decoding would check it (an API server refuses such objects,
 * but an older version or a buggy one may have stored them). A field of the wrong type throws a
 * MalformedObjectError with Go's message; the controller runtime logs it with the key, counts it
 * (controller_runtime_reconcile_errors_total and _panics_total, as a TypeError) and retries the
 * key with backoff, so the object is skipped while every other one keeps reconciling.
 *
 * Absent fields and null pass (Go decodes null into a zero value), except a null entry of a list
 * of structs (containers: [null]), which no controller can act on; present values of another JSON
 * type fail, and so do integers outside their Go type (int64: outside JavaScript's safe integers).
 */
import type { KubeObject } from '@setpoint/api';

/** An object a controller cannot act on: a field of the wrong JSON type. */
export class MalformedObjectError extends TypeError {
  override readonly name = 'MalformedObjectError';
  /** Where, in Go's notation: "ReplicaSetSpec.spec.replicas". */
  readonly field: string;
  /** The object. */
  readonly object: KubeObject;
  constructor(kind: string, obj: KubeObject, field: string, expected: string, value: unknown) {
    const meta = obj.metadata as { namespace?: unknown; name?: unknown };
    const key = typeof meta.namespace === 'string' && meta.namespace !== '' ? `${meta.namespace}/${String(meta.name)}` : String(meta.name);
    super(`${kind} ${key} cannot be handled: json: cannot unmarshal ${describe(value)} into Go struct field ${field} of type ${expected}`);
    this.field = field;
    this.object = obj;
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return `number ${String(value)}`;
  return typeof value;
}

const INT32 = { min: -(2 ** 31), max: 2 ** 31 - 1 };

/** Checks the fields of one object of `kind`; each method throws a MalformedObjectError or returns the value. */
export class ShapeCheck {
  readonly #kind: string;
  readonly #obj: KubeObject;

  constructor(kind: string, obj: KubeObject) {
    this.#kind = kind;
    this.#obj = obj;
  }

  #fail(field: string, expected: string, value: unknown): never {
    throw new MalformedObjectError(this.#kind, this.#obj, field, expected, value);
  }

  /** An object (a Go struct), or absent. */
  object(value: unknown, field: string, type = 'struct'): Record<string, unknown> | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) this.#fail(field, type, value);
    return value as Record<string, unknown>;
  }

  string(value: unknown, field: string): void {
    if (value !== undefined && value !== null && typeof value !== 'string') this.#fail(field, 'string', value);
  }

  bool(value: unknown, field: string): void {
    if (value !== undefined && value !== null && typeof value !== 'boolean') this.#fail(field, 'bool', value);
  }

  int32(value: unknown, field: string): void {
    if (value === undefined || value === null) return;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < INT32.min || value > INT32.max) this.#fail(field, 'int32', value);
  }

  int64(value: unknown, field: string): void {
    if (value === undefined || value === null) return;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) this.#fail(field, 'int64', value);
  }

  /** An IntOrString (maxSurge, maxUnavailable): an int32 or a string. */
  intOrString(value: unknown, field: string): void {
    if (typeof value === 'string') return;
    if (typeof value === 'number') return this.int32(value, field);
    if (value !== undefined && value !== null) this.#fail(field, 'intstr.IntOrString', value);
  }

  /** A map of strings (labels, annotations, matchLabels). */
  stringMap(value: unknown, field: string): void {
    const map = this.object(value, field, 'map[string]string');
    for (const [k, v] of Object.entries(map ?? {})) if (typeof v !== 'string') this.#fail(`${field}[${k}]`, 'string', v);
  }

  /** An array whose entries `each` checks (each gets the entry and its field name). */
  array(value: unknown, field: string, type: string, each?: (entry: unknown, field: string) => void): void {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) this.#fail(field, `[]${type}`, value);
    if (each !== undefined) (value as unknown[]).forEach((entry) => each(entry, field));
  }

  /** metadata's fields controllers read: labels, annotations, deletionTimestamp, finalizers, ownerReferences. */
  metadata(): void {
    const m = this.#obj.metadata as Record<string, unknown>;
    this.stringMap(m.labels, 'ObjectMeta.metadata.labels');
    this.stringMap(m.annotations, 'ObjectMeta.metadata.annotations');
    this.string(m.deletionTimestamp, 'ObjectMeta.metadata.deletionTimestamp');
    this.string(m.uid, 'ObjectMeta.metadata.uid');
    this.array(m.finalizers, 'ObjectMeta.metadata.finalizers', 'string', (f, field) => this.string(f, field));
    this.array(m.ownerReferences, 'ObjectMeta.metadata.ownerReferences', 'v1.OwnerReference', (r, field) => {
      const ref = this.object(r, field, 'v1.OwnerReference');
      if (ref === undefined) return;
      for (const name of ['apiVersion', 'kind', 'name', 'uid'] as const) this.string(ref[name], `OwnerReference.metadata.ownerReferences.${name}`);
      this.bool(ref.controller, 'OwnerReference.metadata.ownerReferences.controller');
      this.bool(ref.blockOwnerDeletion, 'OwnerReference.metadata.ownerReferences.blockOwnerDeletion');
    });
  }

  /** A metav1.LabelSelector at `field` ("ReplicaSetSpec.spec.selector"). */
  labelSelector(value: unknown, field: string): void {
    const selector = this.object(value, field, 'v1.LabelSelector');
    if (selector === undefined) return;
    this.stringMap(selector.matchLabels, 'LabelSelector.spec.selector.matchLabels');
    this.array(selector.matchExpressions, 'LabelSelector.spec.selector.matchExpressions', 'v1.LabelSelectorRequirement', (e, f) => {
      const req = this.object(e, f, 'v1.LabelSelectorRequirement');
      if (req === undefined) return;
      this.string(req.key, 'LabelSelectorRequirement.spec.selector.matchExpressions.key');
      this.string(req.operator, 'LabelSelectorRequirement.spec.selector.matchExpressions.operator');
      this.array(req.values, 'LabelSelectorRequirement.spec.selector.matchExpressions.values', 'string', (v, vf) => this.string(v, vf));
    });
  }

  /** The parts of a PodSpec the controllers and the scheduler read. */
  podSpec(value: unknown, prefix: string): void {
    const spec = this.object(value, `${prefix}spec`, 'v1.PodSpec');
    if (spec === undefined) return;
    this.string(spec.nodeName, 'PodSpec.spec.nodeName');
    this.string(spec.schedulerName, 'PodSpec.spec.schedulerName');
    this.stringMap(spec.nodeSelector, 'PodSpec.spec.nodeSelector');
    this.int64(spec.terminationGracePeriodSeconds, 'PodSpec.spec.terminationGracePeriodSeconds');
    this.int64(spec.activeDeadlineSeconds, 'PodSpec.spec.activeDeadlineSeconds');
    this.string(spec.restartPolicy, 'PodSpec.spec.restartPolicy');
    const container = (c: unknown, field: string) => {
      const ctr = this.object(c, field, 'v1.Container');
      if (ctr === undefined) return this.#fail(field, 'v1.Container', c);
      this.string(ctr.name, 'Container.spec.containers.name');
      this.string(ctr.image, 'Container.spec.containers.image');
      this.string(ctr.workingDir, 'Container.spec.containers.workingDir');
      this.array(ctr.command, 'Container.spec.containers.command', 'string', (v, f) => this.string(v, f));
      this.array(ctr.args, 'Container.spec.containers.args', 'string', (v, f) => this.string(v, f));
      this.array(ctr.env, 'Container.spec.containers.env', 'v1.EnvVar', (e, f) => {
        const env = this.object(e, f, 'v1.EnvVar');
        if (env === undefined) return;
        this.string(env.name, 'EnvVar.spec.containers.env.name');
        this.string(env.value, 'EnvVar.spec.containers.env.value');
      });
      const resources = this.object(ctr.resources, 'Container.spec.containers.resources', 'v1.ResourceRequirements');
      if (resources !== undefined) {
        this.#quantities(resources.requests, 'ResourceRequirements.spec.containers.resources.requests');
        this.#quantities(resources.limits, 'ResourceRequirements.spec.containers.resources.limits');
      }
    };
    this.array(spec.containers, 'PodSpec.spec.containers', 'v1.Container', container);
    this.array(spec.initContainers, 'PodSpec.spec.initContainers', 'v1.Container', container);
    this.array(spec.tolerations, 'PodSpec.spec.tolerations', 'v1.Toleration', (t, f) => {
      const tol = this.object(t, f, 'v1.Toleration');
      if (tol === undefined) return;
      for (const name of ['key', 'operator', 'value', 'effect'] as const) this.string(tol[name], `Toleration.spec.tolerations.${name}`);
      this.int64(tol.tolerationSeconds, 'Toleration.spec.tolerations.tolerationSeconds');
    });
  }

  /** A ResourceList: quantities as strings (or numbers, which Go's Quantity also decodes). */
  #quantities(value: unknown, field: string): void {
    const map = this.object(value, field, 'v1.ResourceList');
    for (const [k, v] of Object.entries(map ?? {})) {
      if (typeof v !== 'string' && typeof v !== 'number') this.#fail(`${field}[${k}]`, 'resource.Quantity', v);
    }
  }

  /** A PodTemplateSpec at `field` (its labels and spec). */
  podTemplate(value: unknown, field: string): void {
    const template = this.object(value, field, 'v1.PodTemplateSpec');
    if (template === undefined) return;
    const meta = this.object(template.metadata, 'PodTemplateSpec.spec.template.metadata', 'v1.ObjectMeta');
    if (meta !== undefined) {
      this.stringMap(meta.labels, 'ObjectMeta.spec.template.metadata.labels');
      this.stringMap(meta.annotations, 'ObjectMeta.spec.template.metadata.annotations');
    }
    this.podSpec(template.spec, 'PodTemplateSpec.spec.template.');
  }
}

/** Throws a MalformedObjectError unless the fields the ReplicaSet controller reads have their types. */
export function checkReplicaSet(obj: KubeObject): void {
  const c = new ShapeCheck('ReplicaSet', obj);
  c.metadata();
  const spec = c.object((obj as { spec?: unknown }).spec, 'ReplicaSet.spec', 'v1.ReplicaSetSpec');
  if (spec !== undefined) {
    c.int32(spec.replicas, 'ReplicaSetSpec.spec.replicas');
    c.int32(spec.minReadySeconds, 'ReplicaSetSpec.spec.minReadySeconds');
    c.labelSelector(spec.selector, 'ReplicaSetSpec.spec.selector');
    c.podTemplate(spec.template, 'ReplicaSetSpec.spec.template');
  }
  c.object((obj as { status?: unknown }).status, 'ReplicaSet.status', 'v1.ReplicaSetStatus');
}

/** Throws a MalformedObjectError unless the fields the Deployment controller reads have their types. */
export function checkDeployment(obj: KubeObject): void {
  const c = new ShapeCheck('Deployment', obj);
  c.metadata();
  const spec = c.object((obj as { spec?: unknown }).spec, 'Deployment.spec', 'v1.DeploymentSpec');
  if (spec !== undefined) {
    c.int32(spec.replicas, 'DeploymentSpec.spec.replicas');
    c.int32(spec.minReadySeconds, 'DeploymentSpec.spec.minReadySeconds');
    c.int32(spec.revisionHistoryLimit, 'DeploymentSpec.spec.revisionHistoryLimit');
    c.int32(spec.progressDeadlineSeconds, 'DeploymentSpec.spec.progressDeadlineSeconds');
    c.bool(spec.paused, 'DeploymentSpec.spec.paused');
    c.labelSelector(spec.selector, 'DeploymentSpec.spec.selector');
    c.podTemplate(spec.template, 'DeploymentSpec.spec.template');
    const strategy = c.object(spec.strategy, 'DeploymentSpec.spec.strategy', 'v1.DeploymentStrategy');
    if (strategy !== undefined) {
      c.string(strategy.type, 'DeploymentStrategy.spec.strategy.type');
      const rolling = c.object(strategy.rollingUpdate, 'DeploymentStrategy.spec.strategy.rollingUpdate', 'v1.RollingUpdateDeployment');
      for (const name of ['maxSurge', 'maxUnavailable'] as const) c.intOrString(rolling?.[name], `RollingUpdateDeployment.spec.strategy.rollingUpdate.${name}`);
    }
  }
  c.object((obj as { status?: unknown }).status, 'Deployment.status', 'v1.DeploymentStatus');
}

/** Throws a MalformedObjectError unless the fields of a Namespace the controllers read have their types. */
export function checkNamespace(obj: KubeObject): void {
  const c = new ShapeCheck('Namespace', obj);
  c.metadata();
  const spec = c.object((obj as { spec?: unknown }).spec, 'Namespace.spec', 'v1.NamespaceSpec');
  if (spec !== undefined) c.array(spec.finalizers, 'NamespaceSpec.spec.finalizers', 'v1.FinalizerName', (f, field) => c.string(f, field));
  const status = c.object((obj as { status?: unknown }).status, 'Namespace.status', 'v1.NamespaceStatus');
  if (status !== undefined) c.string(status.phase, 'NamespaceStatus.status.phase');
}

/** Throws a MalformedObjectError unless the fields of a Pod the scheduler and the controllers read have their types. */
export function checkPod(obj: KubeObject): void {
  const c = new ShapeCheck('Pod', obj);
  c.metadata();
  c.int64((obj.metadata as { deletionGracePeriodSeconds?: unknown }).deletionGracePeriodSeconds, 'ObjectMeta.metadata.deletionGracePeriodSeconds');
  c.podSpec((obj as { spec?: unknown }).spec, 'Pod.');
  const status = c.object((obj as { status?: unknown }).status, 'Pod.status', 'v1.PodStatus');
  if (status !== undefined) {
    c.string(status.phase, 'PodStatus.status.phase');
    c.array(status.conditions, 'PodStatus.status.conditions', 'v1.PodCondition', (e, f) => {
      const cond = c.object(e, f, 'v1.PodCondition');
      if (cond !== undefined) for (const name of ['type', 'status', 'reason', 'message'] as const) c.string(cond[name], `PodCondition.status.conditions.${name}`);
    });
  }
}

/** Throws a MalformedObjectError unless the fields of a Node the controllers read have their types. */
export function checkNode(obj: KubeObject): void {
  const c = new ShapeCheck('Node', obj);
  c.metadata();
  const spec = c.object((obj as { spec?: unknown }).spec, 'Node.spec', 'v1.NodeSpec');
  if (spec !== undefined) {
    c.bool(spec.unschedulable, 'NodeSpec.spec.unschedulable');
    c.array(spec.taints, 'NodeSpec.spec.taints', 'v1.Taint', (t, f) => {
      const taint = c.object(t, f, 'v1.Taint');
      if (taint !== undefined) for (const name of ['key', 'value', 'effect', 'timeAdded'] as const) c.string(taint[name], `Taint.spec.taints.${name}`);
    });
  }
  const status = c.object((obj as { status?: unknown }).status, 'Node.status', 'v1.NodeStatus');
  if (status !== undefined) {
    c.array(status.conditions, 'NodeStatus.status.conditions', 'v1.NodeCondition', (e, f) => {
      const cond = c.object(e, f, 'v1.NodeCondition');
      if (cond !== undefined) for (const name of ['type', 'status', 'reason', 'message', 'lastHeartbeatTime', 'lastTransitionTime'] as const) c.string(cond[name], `NodeCondition.status.conditions.${name}`);
    });
    c.object(status.allocatable, 'NodeStatus.status.allocatable', 'v1.ResourceList');
    c.object(status.capacity, 'NodeStatus.status.capacity', 'v1.ResourceList');
  }
}

/** Whether `check` passes for `obj`. */
export function isWellFormed<T extends KubeObject>(check: (obj: T) => void, obj: T): boolean {
  try {
    check(obj);
    return true;
  } catch (err) {
    if (err instanceof MalformedObjectError) return false;
    throw err;
  }
}

/**
 * Splits `objects` into those `check` passes and the errors of the others, so a controller acts
 * on the well-formed ones and then reports the rest (throwMalformed) instead of letting one object
 * block the work on all of them.
 */
export function partitionWellFormed<T extends KubeObject>(objects: readonly T[], check: (obj: T) => void): { good: T[]; malformed: MalformedObjectError[] } {
  const good: T[] = [];
  const malformed: MalformedObjectError[] = [];
  for (const obj of objects) {
    try {
      check(obj);
      good.push(obj);
    } catch (err) {
      if (!(err instanceof MalformedObjectError)) throw err;
      malformed.push(err);
    }
  }
  return { good, malformed };
}

/** Throws the first error of `malformed` (naming how many more there are), if any. */
export function throwMalformed(malformed: readonly MalformedObjectError[]): void {
  const first = malformed[0];
  if (first === undefined) return;
  if (malformed.length > 1) first.message += ` (and ${malformed.length - 1} more malformed objects skipped)`;
  throw first;
}

/** Throws a MalformedObjectError unless the metadata fields controllers read (ShapeCheck.metadata) have their types. */
export function checkMetadata(kind: string, obj: KubeObject): void {
  new ShapeCheck(kind, obj).metadata();
}
