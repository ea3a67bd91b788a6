/**
 * The garbage collector's calls to the API server, on objects of any kind named by identity
 * (Kubernetes' operations.go and patch.go). A kind is mapped to its resource through what
 * discovery found, else through a discovery lookup (which re-reads discovery once on a miss).
 *
 * Every write carries a precondition: deletes the object's uid and the resourceVersion it was
 * decided on; metadata patches (JSON merge patches, which every kind accepts, custom resources
 * included) the resourceVersion they were computed from, retried on 409 Conflict after a fresh
 * read. A write to an object that is gone, or was replaced by another uid, is a no-op.
 */
import { isApiError, jsonEqual, type KubeObject, type ObjectMeta, type OwnerReference } from '@setpoint/api';
import { apiVersionOf, retryOnConflict, type Client, type ResourceRef } from '@setpoint/client';
import type { ObjectIdentity } from './graph.js';
import { ownerLookupNamespace, referencesWithout, unblockedReferences, type PropagationPolicy } from './reconcile.js';

/** The owner a reference points to, as read live. */
export type OwnerRead = { readonly invalid: true } | { readonly invalid: false; readonly owner: KubeObject | undefined };

export class ObjectOperations {
  readonly #client: Client;
  #known = new Map<string, ResourceRef>();

  constructor(client: Client) {
    this.#client = client;
  }

  /** Makes `resources` the known kinds (mapped without a discovery round trip). */
  setKnown(resources: readonly ResourceRef[]): void {
    this.#known = new Map(resources.map((r) => [kindKey(apiVersionOf(r), r.kind), r]));
  }

  /** The resource of `kind` in `apiVersion`. Throws ApiError NotFound `no matches for kind …` when none is served. */
  async resolve(apiVersion: string, kind: string): Promise<ResourceRef> {
    const known = this.#known.get(kindKey(apiVersion, kind));
    if (known !== undefined) return known;
    const ref = await this.#client.discovery.resolve(apiVersion, kind);
    this.#known.set(kindKey(apiVersion, kind), ref);
    return ref;
  }

  /** The live object `identity` names (whatever its uid), or undefined when NotFound. */
  async get(identity: ObjectIdentity): Promise<KubeObject | undefined> {
    const ref = await this.resolve(identity.apiVersion, identity.kind);
    return this.#read(ref, identity.namespace, identity.name);
  }

  /**
   * The live owner `reference` (of a dependent in `dependentNamespace`) points to: a namespaced
   * owner is read in the dependent's namespace. `invalid` for a cluster-scoped dependent naming a
   * namespaced kind.
   */
  async readOwner(reference: Readonly<OwnerReference>, dependentNamespace: string): Promise<OwnerRead> {
    const ref = await this.resolve(reference.apiVersion, reference.kind);
    const namespace = ownerLookupNamespace(dependentNamespace, ref.namespaced);
    if (namespace === 'invalid') return { invalid: true };
    return { invalid: false, owner: await this.#read(ref, namespace, reference.name) };
  }

  async #read(ref: ResourceRef, namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.#client.resource(ref).get(name, { namespace });
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  /**
   * Deletes the object with preconditions uid and `resourceVersion`. On a resourceVersion conflict
   * whose object still has `owners` (something else changed), deletes again with the uid only.
   * Resolves false when the object is not found.
   */
  async delete(identity: ObjectIdentity, policy: PropagationPolicy, resourceVersion: string | undefined, owners: readonly Readonly<OwnerReference>[]): Promise<boolean> {
    const ref = await this.resolve(identity.apiVersion, identity.kind);
    const api = this.#client.resource(ref);
    const remove = (rv: string | undefined) =>
      api.delete(identity.name, { namespace: identity.namespace, propagationPolicy: policy, preconditions: { uid: identity.uid, ...(rv === undefined ? {} : { resourceVersion: rv }) } });
    try {
      await remove(resourceVersion);
      return true;
    } catch (err) {
      if (isApiError(err, 'NotFound')) return false;
      if (!isApiError(err, 'Conflict') || resourceVersion === undefined) throw err;
      const live = await this.#read(ref, identity.namespace, identity.name);
      if (live === undefined) return false;
      if (live.metadata.uid !== identity.uid || !jsonEqual(live.metadata.ownerReferences ?? [], owners)) throw err;
      try {
        await remove(undefined);
        return true;
      } catch (again) {
        if (isApiError(again, 'NotFound')) return false;
        throw again;
      }
    }
  }

  /** Removes the references with these uids from the object's ownerReferences. */
  removeOwnerReferences(identity: ObjectIdentity, uids: readonly string[]): Promise<void> {
    return this.#patchMetadata(identity, (live) => {
      const refs = live.metadata.ownerReferences ?? [];
      const kept = referencesWithout(refs, uids);
      return kept.length === refs.length ? undefined : { ownerReferences: kept.length === 0 ? null : kept };
    });
  }

  /** Sets blockOwnerDeletion false on every reference of the object that had it true. */
  unblockOwnerReferences(identity: ObjectIdentity): Promise<void> {
    return this.#patchMetadata(identity, (live) => {
      const refs = live.metadata.ownerReferences ?? [];
      return refs.some((r) => r.blockOwnerDeletion === true) ? { ownerReferences: unblockedReferences(refs) } : undefined;
    });
  }

  /** Removes `finalizer` from the object's metadata.finalizers. */
  removeFinalizer(identity: ObjectIdentity, finalizer: string): Promise<void> {
    return this.#patchMetadata(identity, (live) => {
      const finalizers = live.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return undefined;
      const kept = finalizers.filter((f) => f !== finalizer);
      return { finalizers: kept.length === 0 ? null : kept };
    });
  }

  /**
   * Reads the object, asks `change` for the metadata fields to set (undefined: nothing to do), and
   * merge-patches them with the read resourceVersion as precondition; re-reads on conflict.
   */
  async #patchMetadata(identity: ObjectIdentity, change: (live: KubeObject) => Record<string, unknown> | undefined): Promise<void> {
    const ref = await this.resolve(identity.apiVersion, identity.kind);
    const api = this.#client.resource(ref);
    await retryOnConflict(async () => {
      const live = await this.#read(ref, identity.namespace, identity.name);
      if (live === undefined || live.metadata.uid !== identity.uid) return;
      const fields = change(live);
      if (fields === undefined) return;
      const metadata: Partial<ObjectMeta> = { resourceVersion: live.metadata.resourceVersion, ...fields };
      try {
        await api.patch(identity.name, { metadata }, { type: 'merge', namespace: identity.namespace });
      } catch (err) {
        if (!isApiError(err, 'NotFound')) throw err;
      }
    });
  }
}

function kindKey(apiVersion: string, kind: string): string {
  return `${apiVersion}\u0000${kind}`;
}
