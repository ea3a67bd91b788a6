/**
 * Conditions in an object's status. A condition's lastTransitionTime moves only when its status
 * changes, so that writing the same observation again changes nothing (and is not written).
 */
import type { Condition } from '@setpoint/api';

/** The condition of `type`, if present. */
export function findCondition<C extends Pick<Condition, 'type'>>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Whether the condition of `type` is present with status "True". */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * The conditions with `next` set: a new condition gets lastTransitionTime `now`; an existing one
 * keeps its lastTransitionTime unless its status changes. Reason, message and observedGeneration
 * are taken from `next`. Returns a new array; the input is not changed.
 */
export function setCondition(conditions: readonly Condition[] | undefined, next: Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string }, now: string): Condition[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const previous = i >= 0 ? list[i] : undefined;
  const transition = previous === undefined || previous.status !== next.status ? (next.lastTransitionTime ?? now) : (previous.lastTransitionTime ?? now);
  const merged: Condition = { ...previous, ...next, lastTransitionTime: transition };
  if (i >= 0) list[i] = merged;
  else list.push(merged);
  return list;
}

/** The conditions without the one of `type`. */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
