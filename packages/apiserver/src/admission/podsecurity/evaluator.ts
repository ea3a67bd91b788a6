/**
 * Evaluates a pod against a level at a version, as Kubernetes' policy registry does: privileged
 * allows everything; baseline runs the baseline checks; restricted runs the restricted checks
 * and the baseline checks they do not override. Each check runs the implementation of the
 * newest version not newer than the one asked for (`latest`: the newest); checks that did not
 * exist yet at that version are skipped. Results come in Kubernetes' order — baseline check IDs
 * sorted, then restricted ones — so messages are stable.
 */
import { BASELINE_CHECKS } from './baseline.js';
import type { Check, VersionedCheck, Violation } from './check.js';
import type { LevelVersion } from './levels.js';
import type { PodLike } from './podspec.js';
import { RESTRICTED_CHECKS } from './restricted.js';

const byId = (a: Check, b: Check) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const ORDERED: readonly Check[] = [...[...BASELINE_CHECKS].sort(byId), ...[...RESTRICTED_CHECKS].sort(byId)];

function versionFor(check: Check, minor: number): VersionedCheck | undefined {
  let chosen: VersionedCheck | undefined;
  for (const v of check.versions) if (v.minVersion <= minor) chosen = v;
  return chosen;
}

/** How pods meet the host where they run (Setpoint's addition to Kubernetes' evaluation). */
export interface EvaluationOptions {
  /**
   * Root in a pod is root on the host: the nodes run pods as host processes, with no image, user
   * namespace or container between them (Setpoint's process runtime). Then `runAsUser: 0` owns
   * the host like `privileged: true` does, and baseline refuses it too (restricted's runAsUser
   * check, at every level but privileged). Default false, as in Kubernetes.
   */
  readonly rootIsHostRoot?: boolean;
}

/** Checks baseline also runs when root in a pod is root on the host. */
const HOST_ROOT_CHECKS: ReadonlySet<string> = new Set(['runAsUser']);

/** The violations of `pod` at `lv`, in order; empty when it is allowed. */
export function evaluatePod(lv: LevelVersion, pod: PodLike, options: EvaluationOptions = {}): Violation[] {
  if (lv.level === 'privileged') return [];
  const minor = lv.version.latest ? Number.POSITIVE_INFINITY : lv.version.minor;
  const atLevel = (check: Check) => lv.level === 'restricted' || check.level === 'baseline' || (options.rootIsHostRoot === true && HOST_ROOT_CHECKS.has(check.id));
  const chosen = ORDERED.map((check) => ({ check, impl: versionFor(check, minor) })).filter(
    (c): c is { check: Check; impl: VersionedCheck } => c.impl !== undefined && atLevel(c.check),
  );
  const overridden = new Set(lv.level === 'restricted' ? chosen.flatMap((c) => (c.check.level === 'restricted' ? (c.impl.overrides ?? []) : [])) : []);
  const out: Violation[] = [];
  for (const { check, impl } of chosen) {
    if (overridden.has(check.id)) continue;
    const violation = impl.check(pod);
    if (violation !== undefined) out.push(violation);
  }
  return out;
}

/** `reason (detail), reason (detail)`: the text after `violates PodSecurity "…": `. */
export function violationsText(violations: readonly Violation[]): string {
  return violations.map((v) => (v.detail === '' ? v.reason : `${v.reason} (${v.detail})`)).join(', ');
}
