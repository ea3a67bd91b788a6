/**
 * Predicates: which events of a watched kind are worth a reconcile. They filter event plumbing
 * only; a reconcile still reads the present state, whatever the event said.
 */
import { jsonEqual, type KubeObject } from '@setpoint/api';

export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

/** Whether a predicate lets an event through (a missing method lets everything through). */
export const allows = {
  create: <T extends KubeObject>(p: Predicate<T>, obj: T) => p.create?.(obj) ?? true,
  update: <T extends KubeObject>(p: Predicate<T>, oldObj: T, newObj: T) => p.update?.(oldObj, newObj) ?? true,
  delete: <T extends KubeObject>(p: Predicate<T>, obj: T) => p.delete?.(obj) ?? true,
};

/** Updates that change metadata.generation (spec changes, for kinds that track it). */
export const generationChanged: Predicate = {
  update: (o, n) => o.metadata.generation !== n.metadata.generation,
};

/** Updates that change the labels. */
export const labelsChanged: Predicate = {
  update: (o, n) => !jsonEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {}),
};

/** Updates that change the annotations. */
export const annotationsChanged: Predicate = {
  update: (o, n) => !jsonEqual(o.metadata.annotations ?? {}, n.metadata.annotations ?? {}),
};

/** Updates that are real writes (not resyncs, which repeat the same resourceVersion). */
export const resourceVersionChanged: Predicate = {
  update: (o, n) => o.metadata.resourceVersion !== n.metadata.resourceVersion,
};

/** A predicate from one function applied to the object of every event (the new one for updates). */
export function predicate<T extends KubeObject>(fn: (obj: T) => boolean): Predicate<T> {
  return { create: fn, update: (_o, n) => fn(n), delete: fn };
}

/** Every predicate must allow the event. */
export function and<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => ps.every((p) => allows.create(p, obj)),
    update: (o, n) => ps.every((p) => allows.update(p, o, n)),
    delete: (obj) => ps.every((p) => allows.delete(p, obj)),
  };
}

/** At least one predicate must allow the event. */
export function or<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => ps.some((p) => allows.create(p, obj)),
    update: (o, n) => ps.some((p) => allows.update(p, o, n)),
    delete: (obj) => ps.some((p) => allows.delete(p, obj)),
  };
}

/** The opposite of a predicate. */
export function not<T extends KubeObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (obj) => !allows.create(p, obj),
    update: (o, n) => !allows.update(p, o, n),
    delete: (obj) => !allows.delete(p, obj),
  };
}
