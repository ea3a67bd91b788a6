/**
 * The dependency graph of the garbage collector (Kubernetes' GraphBuilder): one node per object
 * uid, each node knowing its owners (its ownerReferences) and its dependents (the nodes whose
 * ownerReferences name it). An owner named by a reference but not observed yet gets a "virtual"
 * node, to be verified against the API server.
 *
 * Expected flow: the informers of every monitored kind report adds, updates and deletes
 * (`observe`, `observeDelete`); the collector reports objects it found gone (`virtualDelete`). The
 * graph then tells its sink which nodes to look at: attemptToDelete (a dependent whose owner may
 * be gone, an owner waiting for its dependents), attemptToOrphan (an owner being deleted with the
 * orphan finalizer), and invalid namespace references to report.
 *
 * Guarantees: pure and synchronous (no I/O); the sink is called during the call that caused it.
 * Nothing here decides that an object is gone: every sink call is a request to look at the live
 * object. Assumes one caller at a time (JavaScript's single thread gives that).
 */
import type { OwnerReference } from '@setpoint/api';

export const FOREGROUND_FINALIZER = 'foregroundDeletion';
export const ORPHAN_FINALIZER = 'orphan';

/** The coordinates an ownerReference names, plus the namespace ('' for cluster-scoped objects). */
export interface ObjectIdentity {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly namespace: string;
}

/** One observed state of an object, as the graph needs it. */
export interface ObservedObject {
  readonly identity: ObjectIdentity;
  readonly owners: readonly Readonly<OwnerReference>[];
  readonly beingDeleted: boolean;
  readonly finalizers: readonly string[];
}

/** A node of the graph. Fields change only through DependencyGraph. */
export class GraphNode {
  readonly dependents = new Set<GraphNode>();

  constructor(
    public identity: ObjectIdentity,
    public owners: readonly Readonly<OwnerReference>[],
    /** Referenced as an owner, never observed by an informer. */
    public virtual: boolean,
    /** Has a deletionTimestamp (a one-way trip). */
    public beingDeleted = false,
    /** Has a deletionTimestamp and the foregroundDeletion finalizer. */
    public deletingDependents = false,
  ) {}

  /** Dependents whose reference to this node has blockOwnerDeletion: true. */
  blockingDependents(): GraphNode[] {
    return [...this.dependents].filter((dep) => dep.owners.some((ref) => ref.uid === this.identity.uid && ref.blockOwnerDeletion === true));
  }
}

/** Where the graph sends its requests. */
export interface GraphSink {
  /** Look at this node's live object (`rateLimited`: after its backoff). */
  attemptToDelete(node: GraphNode, options?: { readonly rateLimited?: boolean }): void;
  /** Orphan this owner's dependents, then remove its orphan finalizer. */
  attemptToOrphan(node: GraphNode): void;
  /** `dependent` names, through `ownerRef`, an owner observed in another namespace. */
  invalidNamespaceOwnerRef(dependent: GraphNode, ownerRef: Readonly<OwnerReference>): void;
}

/** The graph (see the file comment). */
export class DependencyGraph {
  readonly #nodes = new Map<string, GraphNode>();
  readonly #sink: GraphSink;

  constructor(sink: GraphSink) {
    this.#sink = sink;
  }

  /** The node of `uid`, if any. */
  node(uid: string): GraphNode | undefined {
    return this.#nodes.get(uid);
  }

  /** How many nodes (observed and virtual) the graph holds. */
  get size(): number {
    return this.#nodes.size;
  }

  /** An informer saw `obj` added or changed (`old`: its previous state, undefined for an add). */
  observe(obj: ObservedObject, old?: ObservedObject): void {
    const existing = this.#nodes.get(obj.identity.uid);
    if (existing === undefined) {
      const node = new GraphNode(obj.identity, obj.owners, false, obj.beingDeleted, obj.beingDeleted && obj.finalizers.includes(FOREGROUND_FINALIZER));
      this.#nodes.set(node.identity.uid, node);
      this.#addDependentToOwners(node, node.owners);
      // An add may be a creation and a deletion seen at once.
      this.#processTransitions(old, obj, node);
      return;
    }
    if (existing.virtual) this.#markObserved(existing, obj.identity);
    if (existing.identity.apiVersion !== obj.identity.apiVersion || existing.identity.kind !== obj.identity.kind) {
      existing.identity = { ...existing.identity, apiVersion: obj.identity.apiVersion, kind: obj.identity.kind };
    }
    const { added, removed, changed } = referencesDiff(existing.owners, obj.owners);
    if (added.length > 0 || removed.length > 0 || changed.length > 0) {
      this.#addUnblockedOwnersToDeleteQueue(removed, changed);
      existing.owners = obj.owners;
      this.#addDependentToOwners(existing, added);
      this.#removeDependentFromOwners(existing, removed);
    }
    if (obj.beingDeleted) existing.beingDeleted = true;
    this.#processTransitions(old, obj, existing);
  }

  /** An informer saw `obj` deleted. Its dependents, and owners waiting for it, are looked at. */
  observeDelete(obj: ObservedObject): void {
    const existing = this.#nodes.get(obj.identity.uid);
    if (existing === undefined) return;
    if (existing.virtual) this.#markObserved(existing, obj.identity);
    this.#removeNodeAndNotify(existing);
  }

  /**
   * The collector found the object `identity` names absent (NotFound, or another uid). Unlike an
   * observed delete, the identity is only what a reference claimed, so dependents that refer to the
   * same uid by other coordinates keep the node alive (with one of their identities).
   */
  virtualDelete(identity: ObjectIdentity): void {
    const existing = this.#nodes.get(identity.uid);
    if (existing === undefined) return;
    let remove = true;
    if (existing.virtual) {
      const { matching, nonmatching } = partitionDependents([...existing.dependents], identity);
      if (nonmatching.length > 0) {
        remove = false;
        for (const dep of matching) this.#sink.attemptToDelete(dep);
        if (sameIdentity(existing.identity, identity)) {
          const replacement = alternateOwnerIdentity(nonmatching, identity);
          if (replacement !== undefined) {
            existing.identity = replacement;
            this.#sink.attemptToDelete(existing, { rateLimited: true });
          }
        }
      }
    } else if (!sameIdentity(existing.identity, identity)) {
      // The observed object lives elsewhere: only the dependents that named the absent coordinates lose.
      remove = false;
      for (const dep of partitionDependents([...existing.dependents], identity).matching) this.#sink.attemptToDelete(dep);
    }
    if (remove) this.#removeNodeAndNotify(existing);
  }

  #removeNodeAndNotify(node: GraphNode): void {
    this.#nodes.delete(node.identity.uid);
    this.#removeDependentFromOwners(node, node.owners);
    for (const dep of node.dependents) this.#sink.attemptToDelete(dep);
    for (const ref of node.owners) {
      const owner = this.#nodes.get(ref.uid);
      // An owner waiting for its dependents to go may now be free to go.
      if (owner?.deletingDependents) this.#sink.attemptToDelete(owner);
    }
  }

  /** A virtual node is seen by an informer: it takes the observed identity; dependents that named it otherwise are checked. */
  #markObserved(node: GraphNode, observed: ObjectIdentity): void {
    if (!sameIdentity(observed, node.identity)) {
      for (const dep of partitionDependents([...node.dependents], observed).nonmatching) {
        if (observed.namespace !== '' && dep.identity.namespace !== observed.namespace) this.#reportInvalidNamespace(dep, observed.uid);
        this.#sink.attemptToDelete(dep);
      }
      node.identity = observed;
    }
    node.virtual = false;
  }

  #addDependentToOwners(node: GraphNode, owners: readonly Readonly<OwnerReference>[]): void {
    let potentiallyInvalid = false;
    for (const ref of owners) {
      let owner = this.#nodes.get(ref.uid);
      const created = owner === undefined;
      if (owner === undefined) {
        owner = new GraphNode({ ...coordinates(ref), namespace: node.identity.namespace }, [], true);
        this.#nodes.set(ref.uid, owner);
      }
      owner.dependents.add(node);
      if (created) {
        // Verify against the API server whether this owner exists.
        this.#sink.attemptToDelete(owner);
      } else if (!potentiallyInvalid) {
        const ownerNamespaced = owner.identity.namespace !== '';
        if (ownerNamespaced && owner.identity.namespace !== node.identity.namespace) {
          if (!owner.virtual) this.#reportInvalidNamespace(node, ref.uid);
          potentiallyInvalid = true;
        } else if (!coordinatesMatch(ref, owner.identity)) {
          potentiallyInvalid = true;
        } else if (!ownerNamespaced && owner.identity.namespace !== node.identity.namespace && owner.virtual) {
          potentiallyInvalid = true;
        }
      }
    }
    // The collector checks whether its references are dangling.
    if (potentiallyInvalid) this.#sink.attemptToDelete(node);
  }

  #removeDependentFromOwners(node: GraphNode, owners: readonly Readonly<OwnerReference>[]): void {
    for (const ref of owners) this.#nodes.get(ref.uid)?.dependents.delete(node);
  }

  #reportInvalidNamespace(dependent: GraphNode, ownerUid: string): void {
    const ref = dependent.owners.find((r) => r.uid === ownerUid);
    if (ref !== undefined) this.#sink.invalidNamespaceOwnerRef(dependent, ref);
  }

  /** A blocking reference removed or unblocked: the owner may be waiting for it. */
  #addUnblockedOwnersToDeleteQueue(removed: readonly Readonly<OwnerReference>[], changed: readonly ChangedReference[]): void {
    const owners = [
      ...removed.filter((r) => r.blockOwnerDeletion === true),
      ...changed.filter((c) => c.old.blockOwnerDeletion === true && c.new.blockOwnerDeletion !== true).map((c) => c.new),
    ];
    for (const ref of owners) {
      const owner = this.#nodes.get(ref.uid);
      if (owner !== undefined) this.#sink.attemptToDelete(owner);
    }
  }

  #processTransitions(old: ObservedObject | undefined, obj: ObservedObject, node: GraphNode): void {
    if (deletionStartsWith(old, obj, ORPHAN_FINALIZER)) {
      this.#sink.attemptToOrphan(node);
      return;
    }
    if (deletionStartsWith(old, obj, FOREGROUND_FINALIZER)) {
      node.deletingDependents = true;
      for (const dep of node.dependents) this.#sink.attemptToDelete(dep);
      this.#sink.attemptToDelete(node);
    }
  }
}

/** Whether `obj` is being deleted with `finalizer` and `old` was not. */
function deletionStartsWith(old: ObservedObject | undefined, obj: ObservedObject, finalizer: string): boolean {
  if (!obj.beingDeleted || !obj.finalizers.includes(finalizer)) return false;
  return old === undefined || !old.beingDeleted || !old.finalizers.includes(finalizer);
}

interface ChangedReference {
  readonly old: Readonly<OwnerReference>;
  readonly new: Readonly<OwnerReference>;
}

/** Added, removed and changed references between two ownerReferences lists (matched by uid). */
export function referencesDiff(
  old: readonly Readonly<OwnerReference>[],
  next: readonly Readonly<OwnerReference>[],
): { added: Readonly<OwnerReference>[]; removed: Readonly<OwnerReference>[]; changed: ChangedReference[] } {
  const byUid = new Map(old.map((r) => [r.uid, r]));
  const added: Readonly<OwnerReference>[] = [];
  const changed: ChangedReference[] = [];
  for (const ref of next) {
    const before = byUid.get(ref.uid);
    if (before === undefined) {
      added.push(ref);
      continue;
    }
    byUid.delete(ref.uid);
    if (!sameReference(before, ref)) changed.push({ old: before, new: ref });
  }
  return { added, removed: [...byUid.values()], changed };
}

function sameReference(a: Readonly<OwnerReference>, b: Readonly<OwnerReference>): boolean {
  return coordinatesMatch(a, b) && a.controller === b.controller && a.blockOwnerDeletion === b.blockOwnerDeletion;
}

function coordinates(ref: Readonly<OwnerReference>): Omit<ObjectIdentity, 'namespace'> {
  return { apiVersion: ref.apiVersion, kind: ref.kind, name: ref.name, uid: ref.uid };
}

/** Whether uid, name, kind and apiVersion agree. */
export function coordinatesMatch(a: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>, b: Pick<OwnerReference, 'apiVersion' | 'kind' | 'name' | 'uid'>): boolean {
  return a.uid === b.uid && a.name === b.name && a.kind === b.kind && a.apiVersion === b.apiVersion;
}

export function sameIdentity(a: ObjectIdentity, b: ObjectIdentity): boolean {
  return coordinatesMatch(a, b) && a.namespace === b.namespace;
}

/**
 * Splits dependents into those whose reference to `owner.uid` matches `owner` (coordinates, and
 * namespace for a namespaced owner) and those that name the uid otherwise. A dependent can be in both.
 */
export function partitionDependents(dependents: readonly GraphNode[], owner: ObjectIdentity): { matching: GraphNode[]; nonmatching: GraphNode[] } {
  const matching: GraphNode[] = [];
  const nonmatching: GraphNode[] = [];
  for (const dep of dependents) {
    let match = false;
    let mismatch = false;
    if (owner.namespace !== '' && owner.namespace !== dep.identity.namespace) {
      mismatch = true;
    } else {
      for (const ref of dep.owners) {
        if (ref.uid !== owner.uid) continue;
        if (coordinatesMatch(ref, owner)) match = true;
        else mismatch = true;
      }
    }
    if (match) matching.push(dep);
    if (mismatch) nonmatching.push(dep);
  }
  return { matching, nonmatching };
}

function identityKey(id: ObjectIdentity): string {
  return [id.kind, id.apiVersion, id.namespace, id.name, id.uid].join('\u0000');
}

function identityLess(a: ObjectIdentity, b: ObjectIdentity): boolean {
  for (const field of ['kind', 'apiVersion', 'namespace', 'name', 'uid'] as const) {
    if (a[field] !== b[field]) return a[field] < b[field];
  }
  return false;
}

/**
 * Another identity dependents give the absent owner's uid: the first (in kind, apiVersion,
 * namespace, name order) after `absent`, else the first of all; undefined when there is none.
 */
export function alternateOwnerIdentity(dependents: readonly GraphNode[], absent: ObjectIdentity): ObjectIdentity | undefined {
  const clusterScoped = absent.namespace === '';
  const seen = new Set<string>([identityKey(absent)]);
  let first: ObjectIdentity | undefined;
  let firstFollowing: ObjectIdentity | undefined;
  for (const dep of dependents) {
    for (const ref of dep.owners) {
      if (ref.uid !== absent.uid) continue;
      if (coordinatesMatch(ref, absent) && (clusterScoped || absent.namespace === dep.identity.namespace)) continue;
      let candidate: ObjectIdentity = { ...coordinates(ref), namespace: dep.identity.namespace };
      // That apiVersion/kind is known to be cluster-scoped.
      if (clusterScoped && candidate.apiVersion === absent.apiVersion && candidate.kind === absent.kind) candidate = { ...candidate, namespace: '' };
      const key = identityKey(candidate);
      if (seen.has(key)) continue;
      seen.add(key);
      if (first === undefined || identityLess(candidate, first)) first = candidate;
      if (identityLess(absent, candidate) && (firstFollowing === undefined || identityLess(candidate, firstFollowing))) firstFollowing = candidate;
    }
  }
  return firstFollowing ?? first;
}
