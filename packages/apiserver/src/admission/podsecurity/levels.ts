/**
 * Pod Security levels, policy versions and the namespace labels that choose them, as Kubernetes'
 * k8s.io/pod-security-admission/api has them.
 *
 * A namespace's policy is three (level, version) pairs — enforce, audit, warn — read from
 * `pod-security.kubernetes.io/<mode>` and `pod-security.kubernetes.io/<mode>-version` labels over
 * the configured defaults. A label that does not parse is an error (a namespace write carrying it
 * is refused) and, when pods are evaluated, falls back as Kubernetes does: an unknown enforce
 * level is `restricted` (fail closed), an unknown audit or warn level `privileged` (fail open), an
 * unknown version `latest`.
 */
import { FieldError } from '@setpoint/api';

/** The three Pod Security Standards, least strict first. */
export const LEVELS = ['privileged', 'baseline', 'restricted'] as const;
export type Level = (typeof LEVELS)[number];

/** The modes a namespace's labels set a level for. */
export const MODES = ['enforce', 'audit', 'warn'] as const;
export type Mode = (typeof MODES)[number];

/** `pod-security.kubernetes.io/` — the prefix of the labels and of the audit annotations. */
export const LABEL_PREFIX = 'pod-security.kubernetes.io/';

/** A policy version: `latest` or v1.minor. */
export type PolicyVersion = { readonly latest: true } | { readonly latest: false; readonly minor: number };

export const LATEST: PolicyVersion = { latest: true };

/** One level at one version ("baseline:latest", "restricted:v1.24"). */
export interface LevelVersion {
  readonly level: Level;
  readonly version: PolicyVersion;
}

/** The enforce, audit and warn levels a namespace is evaluated at. */
export type Policy = Readonly<Record<Mode, LevelVersion>>;

/** The policy of a namespace without labels when nothing is configured: privileged:latest throughout. */
export const PRIVILEGED_POLICY: Policy = {
  enforce: { level: 'privileged', version: LATEST },
  audit: { level: 'privileged', version: LATEST },
  warn: { level: 'privileged', version: LATEST },
};

export function versionString(v: PolicyVersion): string {
  return v.latest ? 'latest' : `v1.${v.minor}`;
}

/** "baseline:latest", as Kubernetes prints a LevelVersion. */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && versionString(a.version) === versionString(b.version);
}

/** -1, 0 or 1 as `a` is less strict than, as strict as, or stricter than `b`. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

/** Whether `v` is older than `other` (`latest` is newer than every version). */
export function olderVersion(v: PolicyVersion, other: PolicyVersion): boolean {
  if (v.latest) return false;
  if (other.latest) return true;
  return v.minor < other.minor;
}

/** The level a label value names; throws an Error with Kubernetes' message otherwise. */
export function parseLevel(value: string): Level {
  if ((LEVELS as readonly string[]).includes(value)) return value as Level;
  throw new Error(`must be one of ${LEVELS.join(', ')}`);
}

/** The version a label value names ("latest" or "v1.x"); throws an Error with Kubernetes' message otherwise. */
export function parseVersion(value: string): PolicyVersion {
  if (value === 'latest') return LATEST;
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(value);
  const minor = m ? Number(m[1]) : NaN;
  if (!Number.isSafeInteger(minor)) throw new Error('must be "latest" or "v1.x"');
  return { latest: false, minor };
}

/**
 * The policy a namespace with `labels` is evaluated at, over `defaults`, and the label errors
 * (field `metadata.labels[<key>]`, Kubernetes' messages). A policy is returned even with errors.
 */
export function policyToEvaluate(labels: unknown, defaults: Policy): { policy: Policy; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const out: Record<Mode, { level: Level; version: PolicyVersion }> = {
    enforce: { ...defaults.enforce },
    audit: { ...defaults.audit },
    warn: { ...defaults.warn },
  };
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) return { policy: out, errors };
  const map = labels as Record<string, unknown>;
  for (const mode of MODES) {
    const levelKey = `${LABEL_PREFIX}${mode}`;
    const level = map[levelKey];
    if (typeof level === 'string') {
      try {
        out[mode].level = parseLevel(level);
      } catch (err) {
        errors.push(FieldError.invalid(`metadata.labels[${levelKey}]`, level, (err as Error).message));
        out[mode].level = mode === 'enforce' ? 'restricted' : 'privileged';
      }
    }
    const versionKey = `${LABEL_PREFIX}${mode}-version`;
    const version = map[versionKey];
    if (typeof version === 'string') {
      try {
        out[mode].version = parseVersion(version);
      } catch (err) {
        errors.push(FieldError.invalid(`metadata.labels[${versionKey}]`, version, (err as Error).message));
        out[mode].version = LATEST;
      }
    }
  }
  return { policy: out, errors };
}
