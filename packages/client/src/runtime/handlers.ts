/**
 * Event handlers: which keys a change enqueues. The queue holds keys, never objects; a second
 * change to the same key while it is pending collapses into the one entry.
 */
import type { KubeObject, OwnerReference } from '@setpoint/api';
import type { Request } from './reconciler.js';

export type Enqueue = (request: Request) => void;

/** Turns the events of one watched kind into keys of the controller's kind. */
export interface EventHandler<T extends KubeObject = KubeObject> {
  create(obj: T, enqueue: Enqueue): void;
  update(oldObj: T, newObj: T, enqueue: Enqueue): void;
  delete(obj: T, enqueue: Enqueue): void;
}

function requestOf(obj: KubeObject): Request {
  return { namespace: obj.metadata.namespace ?? '', name: obj.metadata.name ?? '' };
}

/** Enqueues the object itself (a controller's own kind). */
export function enqueueObject<T extends KubeObject>(): EventHandler<T> {
  return {
    create: (obj, enqueue) => enqueue(requestOf(obj)),
    update: (_old, obj, enqueue) => enqueue(requestOf(obj)),
    delete: (obj, enqueue) => enqueue(requestOf(obj)),
  };
}

export interface OwnerOptions {
  /** The owner's API group ('' for core) — matched against ownerReferences[].apiVersion's group. */
  readonly group: string;
  readonly kind: string;
  /** Whether the owner kind is namespaced (then it shares the dependent's namespace). Default true. */
  readonly namespaced?: boolean;
  /** Only the managing controller reference (controller: true). Default true. */
  readonly onlyController?: boolean;
}

/**
 * Enqueues the owner of a dependent (a ReplicaSet for its Pods). On update, both the old and the new
 * owners are enqueued, so an owner that lost a dependent hears of it too.
 */
export function enqueueOwner<T extends KubeObject>(options: OwnerOptions): EventHandler<T> {
  const onlyController = options.onlyController ?? true;
  const namespaced = options.namespaced ?? true;
  // Entries of the wrong shape (an older or buggy server could have stored them) name no owner.
  const owners = (obj: KubeObject): Request[] =>
    ownerReferencesOf(obj)
      .filter((ref) => ref.kind === options.kind && groupOf(ref) === options.group && (!onlyController || ref.controller === true))
      .map((ref) => ({ namespace: namespaced ? (obj.metadata.namespace ?? '') : '', name: ref.name }));
  return {
    create: (obj, enqueue) => owners(obj).forEach(enqueue),
    update: (oldObj, newObj, enqueue) => {
      const seen = new Set<string>();
      for (const r of [...owners(oldObj), ...owners(newObj)]) {
        const key = `${r.namespace}/${r.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        enqueue(r);
      }
    },
    delete: (obj, enqueue) => owners(obj).forEach(enqueue),
  };
}

/** Enqueues whatever `map` returns for the changed object (any relation a controller cares about). */
export function enqueueMapped<T extends KubeObject>(map: (obj: T) => readonly Request[]): EventHandler<T> {
  return {
    create: (obj, enqueue) => map(obj).forEach(enqueue),
    update: (oldObj, newObj, enqueue) => {
      const seen = new Set<string>();
      for (const r of [...map(oldObj), ...map(newObj)]) {
        const key = `${r.namespace}/${r.name}`;
        if (!seen.has(key)) {
          seen.add(key);
          enqueue(r);
        }
      }
    },
    delete: (obj, enqueue) => map(obj).forEach(enqueue),
  };
}

/**
 * The well-formed entries of an object's metadata.ownerReferences (apiVersion, kind and name
 * strings, uid a string or absent); entries of any other shape, or a value that is not an array, are left out.
 */
export function ownerReferencesOf(obj: KubeObject): OwnerReference[] {
  const refs: unknown = obj.metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.filter(
    (r: unknown): r is OwnerReference =>
      typeof r === 'object' &&
      r !== null &&
      typeof (r as OwnerReference).apiVersion === 'string' &&
      typeof (r as OwnerReference).kind === 'string' &&
      typeof (r as OwnerReference).name === 'string' &&
      ['string', 'undefined'].includes(typeof (r as OwnerReference).uid),
  );
}

/** The group of an ownerReference's apiVersion ("apps/v1" → "apps", "v1" → ""; '' when it is not a string). */
export function groupOf(ref: Pick<OwnerReference, 'apiVersion'>): string {
  if (typeof ref.apiVersion !== 'string') return '';
  const slash = ref.apiVersion.indexOf('/');
  return slash < 0 ? '' : ref.apiVersion.slice(0, slash);
}

/** The controller owner reference of an object, if any (among its well-formed ones). */
export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return ownerReferencesOf(obj).find((r) => r.controller === true);
}
