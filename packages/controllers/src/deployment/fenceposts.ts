/**
 * The bounds of a rolling update, resolved as Kubernetes resolves them (deploymentutil's
 * ResolveFenceposts, MaxSurge, MaxUnavailable, MinAvailable and intstr's
 * GetScaledValueFromIntOrPercent): maxSurge rounds up, maxUnavailable rounds down, and when both
 * come out 0 maxUnavailable becomes 1 (the API refuses both 0 explicitly, but "1%" of 2 rounds to
 * 0). A Recreate Deployment has neither surge nor unavailability.
 */
import type { Deployment, IntOrString } from '@setpoint/api';
import { TerminalError } from '@setpoint/client';

/** spec.replicas, defaulted as the API server defaults it (1). */
export function desiredReplicas(d: Pick<Deployment, 'spec'>): number {
  return d.spec?.replicas ?? 1;
}

/** Whether `d` rolls by RollingUpdate (the default strategy). */
export function isRollingUpdate(d: Pick<Deployment, 'spec'>): boolean {
  return (d.spec?.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
}

/**
 * An IntOrString scaled against `total`: a number as is; "N%" as N% of total, rounded up or down.
 * Throws TerminalError for a string that is not a percentage (the API refuses those).
 */
export function scaledValue(value: IntOrString | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const m = /^(-?[0-9]+)%$/.exec(value);
  if (m === null) throw new TerminalError(`invalid value for IntOrString: invalid type: string is not a percentage: ${JSON.stringify(value)}`);
  // Integer arithmetic: exact where Go's float64 product is exact too (all realistic sizes).
  const scaled = Number(m[1]) * total;
  return roundUp ? Math.ceil(scaled / 100) : Math.floor(scaled / 100);
}

/** The resolved bounds: pods above `desired` allowed, and pods below it allowed to be unavailable. */
export interface Fenceposts {
  readonly maxSurge: number;
  readonly maxUnavailable: number;
}

/** ResolveFenceposts: maxSurge rounded up, maxUnavailable rounded down; both 0 → maxUnavailable 1. */
export function resolveFenceposts(maxSurge: IntOrString | undefined, maxUnavailable: IntOrString | undefined, desired: number): Fenceposts {
  const surge = scaledValue(maxSurge ?? 0, desired, true);
  const unavailable = scaledValue(maxUnavailable ?? 0, desired, false);
  return surge === 0 && unavailable === 0 ? { maxSurge: 0, maxUnavailable: 1 } : { maxSurge: surge, maxUnavailable: unavailable };
}

function fenceposts(d: Pick<Deployment, 'spec'>): Fenceposts {
  const ru = d.spec?.strategy?.rollingUpdate;
  // The API server defaults both to 25% for RollingUpdate; an object that skipped defaulting gets the same.
  return resolveFenceposts(ru?.maxSurge ?? '25%', ru?.maxUnavailable ?? '25%', desiredReplicas(d));
}

/** MaxSurge: pods a rolling Deployment may run above spec.replicas; 0 for Recreate. */
export function maxSurge(d: Pick<Deployment, 'spec'>): number {
  return isRollingUpdate(d) ? fenceposts(d).maxSurge : 0;
}

/** MaxUnavailable: at most spec.replicas; 0 for Recreate and for 0 replicas. */
export function maxUnavailable(d: Pick<Deployment, 'spec'>): number {
  const replicas = desiredReplicas(d);
  if (!isRollingUpdate(d) || replicas === 0) return 0;
  return Math.min(fenceposts(d).maxUnavailable, replicas);
}

/** MinAvailable: spec.replicas − maxUnavailable for RollingUpdate; 0 for Recreate. */
export function minAvailable(d: Pick<Deployment, 'spec'>): number {
  return isRollingUpdate(d) ? desiredReplicas(d) - maxUnavailable(d) : 0;
}
