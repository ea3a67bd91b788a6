/**
 * What the Deployment controller knows about ReplicaSets (deploymentutil and controller_utils):
 * the annotations it keeps on them, revisions, which one is "new" (its template is the
 * Deployment's, ignoring the hash label), orderings, sums over a set, and the ReplicaSet a
 * Deployment's template makes. All pure: objects passed in are never modified.
 */
import { withoutNulls } from './hash.js';
import { jsonClone, jsonEqual, type Deployment, type LabelSelector, type PodTemplateSpec, type ReplicaSet } from '@setpoint/api';
import { desiredReplicas, maxSurge } from './fenceposts.js';

/** The rollout sequence number of a ReplicaSet (and the Deployment's current one). */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
/** Older revisions a ReplicaSet served (it was rolled back to), comma-separated. */
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
/** spec.replicas of the Deployment when the ReplicaSet was last scaled: tells scaling from rolling. */
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
/** spec.replicas + maxSurge then: the base of proportional scaling. */
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** Why a revision was made; copied from the Deployment, shown by `kubectl rollout history`. */
export const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';
/** The label that keeps the pods of a Deployment's ReplicaSets apart (apps.DefaultDeploymentUniqueLabelKey). */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** The longest revision-history annotation kept (~100 revisions). */
export const MAX_REVISION_HISTORY_CHARS = 2000;

/** Annotations of a Deployment that are not copied to its ReplicaSets. */
const ANNOTATIONS_NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

/** Whether a Deployment annotation stays off its ReplicaSets. */
export function skipCopyAnnotation(key: string): boolean {
  return ANNOTATIONS_NOT_COPIED.has(key);
}

/** spec.replicas of a ReplicaSet (the API server defaults it to 1). */
export function rsReplicas(rs: ReplicaSet | undefined): number {
  return rs === undefined ? 0 : (rs.spec?.replicas ?? 1);
}

/** The revision annotation as a number: 0 when absent, undefined when not an integer. */
export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): number | undefined {
  const v = obj.metadata.annotations?.[REVISION_ANNOTATION];
  if (v === undefined) return 0;
  return /^[+-]?[0-9]+$/.test(v) ? Number(v) : undefined;
}

/** MaxRevision: the highest parsable revision (0 for none). */
export function maxRevision(rss: readonly ReplicaSet[]): number {
  return rss.reduce((max, rs) => Math.max(max, revisionOf(rs) ?? 0), 0);
}

/** ReplicaSetsByCreationTimestamp: oldest first, ties by name. Returns a new array. */
export function byCreation(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort(compareCreation);
}

function compareCreation(a: ReplicaSet, b: ReplicaSet): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** ReplicaSetsByRevision: lowest revision first; unparsable or equal revisions by creation. */
export function byRevision(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => {
    const ra = revisionOf(a);
    const rb = revisionOf(b);
    if (ra === undefined || rb === undefined || ra === rb) return compareCreation(a, b);
    return ra - rb;
  });
}

/** ReplicaSetsBySizeNewer (scaling up): largest first, ties newest first. */
export function bySizeNewer(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => rsReplicas(b) - rsReplicas(a) || compareCreation(b, a));
}

/** ReplicaSetsBySizeOlder (scaling down): largest first, ties oldest first. */
export function bySizeOlder(rss: readonly ReplicaSet[]): ReplicaSet[] {
  return [...rss].sort((a, b) => rsReplicas(b) - rsReplicas(a) || compareCreation(a, b));
}

/** FilterActiveReplicaSets: those with spec.replicas > 0. */
export function activeReplicaSets(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs !== undefined && rsReplicas(rs) > 0);
}

/** Sum of spec.replicas (GetReplicaCountForReplicaSets). */
export function specReplicaCount(rss: readonly (ReplicaSet | undefined)[]): number {
  return rss.reduce((n, rs) => n + rsReplicas(rs), 0);
}

/** Sum of status.replicas (GetActualReplicaCountForReplicaSets). */
export function actualReplicaCount(rss: readonly (ReplicaSet | undefined)[]): number {
  return rss.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
}

/** Sum of status.readyReplicas. */
export function readyReplicaCount(rss: readonly (ReplicaSet | undefined)[]): number {
  return rss.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);
}

/** Sum of status.availableReplicas. */
export function availableReplicaCount(rss: readonly (ReplicaSet | undefined)[]): number {
  return rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);
}

/** A template without the pod-template-hash label, empty label/annotation maps dropped (Semantic.DeepEqual treats nil and empty alike). */
function withoutHash(template: PodTemplateSpec | undefined): PodTemplateSpec {
  const t = withoutNulls(template ?? {});
  const meta = { ...t.metadata };
  if (meta.labels !== undefined) {
    const { [POD_TEMPLATE_HASH_LABEL]: _hash, ...labels } = meta.labels;
    if (Object.keys(labels).length > 0) meta.labels = labels;
    else delete meta.labels;
  }
  if (meta.annotations !== undefined && Object.keys(meta.annotations).length === 0) delete meta.annotations;
  const out: PodTemplateSpec = { ...t };
  if (Object.keys(meta).length > 0) out.metadata = meta;
  else delete out.metadata;
  return out;
}

/** EqualIgnoreHash: the two templates are equal once the pod-template-hash label is set aside. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return jsonEqual(withoutHash(a), withoutHash(b));
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's, if any. */
export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return byCreation(rss).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** FindOldReplicaSets' second list: every ReplicaSet but the new one. */
export function findOldReplicaSets(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet[] {
  const newRS = findNewReplicaSet(d, rss);
  return rss.filter((rs) => newRS === undefined || rs.metadata.uid !== newRS.metadata.uid);
}

/** The labels with one more. */
function withLabel(labels: Readonly<Record<string, string>> | undefined, key: string, value: string): Record<string, string> {
  return { ...labels, [key]: value };
}

/** CloneSelectorAndAddLabel: the selector that also requires key=value. */
export function selectorWithLabel(selector: LabelSelector | undefined, key: string, value: string): LabelSelector {
  const out: LabelSelector = { matchLabels: withLabel(selector?.matchLabels, key, value) };
  if (selector?.matchExpressions !== undefined) out.matchExpressions = jsonClone(selector.matchExpressions);
  return out;
}

/** SetReplicasAnnotations on a copy: desired-replicas and max-replicas. Returns the copy and whether it changed. */
export function withReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): { rs: ReplicaSet; changed: boolean } {
  const annotations = { ...rs.metadata.annotations };
  const changed = annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) || annotations[MAX_REPLICAS_ANNOTATION] !== String(max);
  annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
  annotations[MAX_REPLICAS_ANNOTATION] = String(max);
  return { rs: { ...rs, metadata: { ...rs.metadata, annotations } }, changed };
}

/** ReplicasAnnotationsNeedUpdate for `d`: the annotations do not say spec.replicas and spec.replicas + maxSurge. */
export function replicasAnnotationsNeedUpdate(rs: ReplicaSet, d: Deployment): boolean {
  return withReplicasAnnotations(rs, desiredReplicas(d), desiredReplicas(d) + maxSurge(d)).changed;
}

/** An annotation map as a number (GetDesiredReplicasAnnotation / getMaxReplicasAnnotation). */
export function intAnnotation(rs: ReplicaSet, key: string): number | undefined {
  const v = rs.metadata.annotations?.[key];
  return v !== undefined && /^[+-]?[0-9]+$/.test(v) ? Number(v) : undefined;
}

/**
 * SetNewReplicaSetAnnotations on a copy of the new ReplicaSet: copies the Deployment's annotations
 * (but the skipped ones), raises the revision to `newRevision` when lower (remembering the old one
 * in revision-history, capped at MAX_REVISION_HISTORY_CHARS), and for a ReplicaSet about to be
 * created sets the replicas annotations. Returns the copy and whether anything changed.
 */
export function withNewReplicaSetAnnotations(d: Deployment, rs: ReplicaSet, newRevision: number, exists: boolean): { rs: ReplicaSet; changed: boolean } {
  const annotations: Record<string, string> = { ...rs.metadata.annotations };
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (skipCopyAnnotation(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  const oldRevision = annotations[REVISION_ANNOTATION];
  const oldRevisionNumber = oldRevision === undefined || oldRevision === '' ? 0 : /^[+-]?[0-9]+$/.test(oldRevision) ? Number(oldRevision) : undefined;
  if (oldRevisionNumber === undefined) return { rs: { ...rs, metadata: { ...rs.metadata, annotations } }, changed }; // not an integer: left alone
  if (oldRevisionNumber < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldRevision !== undefined) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      if (history === '') annotations[REVISION_HISTORY_ANNOTATION] = oldRevision;
      else {
        const revisions = history.split(',');
        let total = history.length + oldRevision.length + 1;
        let start = 0;
        while (total > MAX_REVISION_HISTORY_CHARS && start < revisions.length) total -= revisions[start++]!.length + 1;
        if (total <= MAX_REVISION_HISTORY_CHARS) annotations[REVISION_HISTORY_ANNOTATION] = [...revisions.slice(start), oldRevision].join(',');
      }
    }
  }
  let out: ReplicaSet = { ...rs, metadata: { ...rs.metadata, annotations } };
  if (!exists) {
    const r = withReplicasAnnotations(out, desiredReplicas(d), desiredReplicas(d) + maxSurge(d));
    out = r.rs;
    changed ||= r.changed;
  }
  return { rs: out, changed };
}

/**
 * The ReplicaSet a Deployment's template makes, before its annotations: named `<d>-<hash>`, the
 * hash label added to its labels, selector and template, controlled by `d`, `replicas` replicas.
 */
export function replicaSetFor(d: Deployment, hash: string, replicas: number): ReplicaSet {
  const template: PodTemplateSpec = jsonClone(d.spec?.template ?? {});
  const labels = withLabel(template.metadata?.labels, POD_TEMPLATE_HASH_LABEL, hash);
  template.metadata = { ...template.metadata, labels };
  const spec: NonNullable<ReplicaSet['spec']> = {
    replicas,
    selector: selectorWithLabel(d.spec?.selector, POD_TEMPLATE_HASH_LABEL, hash),
    template,
  };
  if (d.spec?.minReadySeconds) spec.minReadySeconds = d.spec.minReadySeconds; // 0 is omitted (omitempty)
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${d.metadata.name}-${hash}`,
      namespace: d.metadata.namespace,
      labels: { ...labels },
      ownerReferences: [controllerRef(d)],
    },
    spec,
  };
}

/** metav1.NewControllerRef(d, apps/v1 Deployment). */
export function controllerRef(d: Deployment): NonNullable<ReplicaSet['metadata']['ownerReferences']>[number] {
  return { apiVersion: 'apps/v1', kind: 'Deployment', name: d.metadata.name!, uid: d.metadata.uid!, controller: true, blockOwnerDeletion: true };
}
