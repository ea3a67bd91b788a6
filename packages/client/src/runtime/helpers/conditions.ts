/**
 * Conditions in an object's status. A condition's lastTransitionTime moves only when its status
 * changes, so that writing the same observation again changes nothing (and is not written).
 */
import type { Condition } from '@setpoint/api';

/**
 * What these helpers read of a condition: meta's Condition or a kind's own (the generated
 * ReplicaSetCondition…, whose times may be null on the wire).
 */
export type ConditionLike = Pick<Condition, 'type'> & { status: string; lastTransitionTime?: string | null };

/** The condition of `type`, if present. */
export function findCondition<C extends Pick<Condition, 'type'>>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of `type` is present with status "True". */
export function isConditionTrue(conditions: readonly ConditionLike[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * The conditions with `next` set: a new condition gets lastTransitionTime `now`; an existing one
 * keeps its lastTransitionTime unless its status changes. Reason, message and observedGeneration
 * are taken from `next`. Returns a new array; the input is not changed.
 */
export function setCondition<C extends ConditionLike = Condition>(conditions: readonly C[] | undefined, next: Omit<C, 'lastTransitionTime'> & { lastTransitionTime?: string }, now: string): C[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const previous = i >= 0 ? list[i] : undefined;
  const transition = previous === undefined || previous.status !== next.status ? (next.lastTransitionTime ?? now) : (previous.lastTransitionTime ?? now);
  const merged = { ...previous, ...next, lastTransitionTime: transition } as C;
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

/** The conditions without the one of `type`. */
export function removeCondition<C extends ConditionLike>(conditions: readonly C[] | undefined, type: string): C[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
