/**
 * Admission: one chain of plugins every request on a stored kind passes through, in the order
 * kube-apiserver runs its own (admission/plugins.ts builds the server's chain). A plugin takes part
 * in any of three phases, each run over the whole chain in order before the next:
 *
 * 1. `admitRequest` — before the request is served, on what the request names (its verb, user,
 *    namespace, name, subresource; its body decoded when asked): NamespaceLifecycle refuses the
 *    deletion of a system namespace, NodeRestriction a node's request on another node's objects.
 *    Requests answered by a subresource handler of their own (serviceaccounts/token, pods/log)
 *    get this phase only.
 * 2. `mutate` — on each object a create or update is about to store, after defaulting and before
 *    validation; the plugin may change it (DefaultTolerationSeconds), or refuse it
 *    (NamespaceLifecycle: the namespace of a new object must exist and not be terminating).
 * 3. `validate` — after validation, right before the store write (even when the write changes
 *    nothing), on the object as it would be stored; it may only refuse it: NodeRestriction, RBAC's
 *    escalation check, PodSecurity.
 *
 * Writes made in-process, without a request (the server's bootstrap, tests), run `mutate` and
 * `validate` with `request` undefined; plugins that judge the requesting user skip them.
 * The chain knows no kind: each plugin decides what it handles. A plugin throws an ApiError to
 * refuse; the first refusal ends the request.
 */
import type { GroupResource, KubeObject } from '@setpoint/api';
import type { UserInfo } from '../auth/index.js';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import type { ResourceDef } from '../registry/types.js';

/** One request as admission sees it (Kubernetes' admission.Attributes, less the object). */
export interface AdmissionRequest {
  readonly info: ResourceRequestInfo;
  /** Who asks; undefined when the server authenticates nobody. */
  readonly user: UserInfo | undefined;
  /** The request's body, decoded (undefined when it has none). */
  body(): unknown;
  /** Adds an audit annotation to the request's audit event. */
  annotate(key: string, value: string): void;
}

/** One object a create or update is about to store. */
export interface AdmittedWrite {
  readonly def: ResourceDef;
  readonly gr: GroupResource;
  readonly operation: 'CREATE' | 'UPDATE';
  /** The subresource written through ('' for the object itself). */
  readonly subresource: string;
  /** The object's namespace ('' for cluster-scoped kinds). */
  readonly namespace: string;
  /** The object to store: `mutate` may change it, `validate` must not. */
  readonly obj: KubeObject;
  /** The stored object an update replaces. */
  readonly old: KubeObject | undefined;
  /** The request that writes, or undefined for an in-process write. */
  readonly request: AdmissionRequest | undefined;
  /** Adds a Warning header text to the response (once). */
  warn(text: string): void;
}

/** One admission plugin: any of the three phases. */
export interface AdmissionPlugin {
  /** Kubernetes' name of the plugin. */
  readonly name: string;
  admitRequest?(request: AdmissionRequest): void | Promise<void>;
  mutate?(write: AdmittedWrite): void | Promise<void>;
  validate?(write: AdmittedWrite): void | Promise<void>;
}

/** The plugins of a server, in order. */
export class AdmissionChain {
  /** A chain with no plugin (storages in tests). */
  static readonly none = new AdmissionChain([]);

  private readonly requestPhase: readonly AdmissionPlugin[];
  private readonly mutatePhase: readonly AdmissionPlugin[];
  private readonly validatePhase: readonly AdmissionPlugin[];

  constructor(readonly plugins: readonly AdmissionPlugin[]) {
    this.requestPhase = plugins.filter((p) => p.admitRequest !== undefined);
    this.mutatePhase = plugins.filter((p) => p.mutate !== undefined);
    this.validatePhase = plugins.filter((p) => p.validate !== undefined);
  }

  /** The names of the plugins, in order. */
  get names(): string[] {
    return this.plugins.map((p) => p.name);
  }

  async admitRequest(request: AdmissionRequest): Promise<void> {
    for (const plugin of this.requestPhase) await plugin.admitRequest!(request);
  }

  async mutate(write: AdmittedWrite): Promise<void> {
    for (const plugin of this.mutatePhase) await plugin.mutate!(write);
  }

  async validate(write: AdmittedWrite): Promise<void> {
    for (const plugin of this.validatePhase) await plugin.validate!(write);
  }
}
