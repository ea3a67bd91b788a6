/**
 * The shape of a Pod Security check, as Kubernetes' policy package has it: an ID, the level it
 * belongs to, and one implementation per policy version it changed at (the newest whose minimum
 * version is not newer than the version asked for applies). A restricted check may override
 * baseline checks it subsumes (restrictedVolumes replaces hostPathVolumes).
 */
import type { PodLike } from './podspec.js';

/** Why a pod fails a check: the reason and its detail, as in `reason (detail)`. */
export interface Violation {
  readonly reason: string;
  readonly detail: string;
}

/** One implementation of a check: undefined when the pod passes. */
export type CheckFn = (pod: PodLike) => Violation | undefined;

export interface VersionedCheck {
  /** The first policy minor (1.x) this implementation applies to. */
  readonly minVersion: number;
  readonly check: CheckFn;
  /** Baseline check IDs this restricted check replaces from its minVersion on. */
  readonly overrides?: readonly string[];
}

export interface Check {
  readonly id: string;
  readonly level: 'baseline' | 'restricted';
  /** Strictly increasing minVersion. */
  readonly versions: readonly VersionedCheck[];
}
