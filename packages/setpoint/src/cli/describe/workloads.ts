/**
 * describe for Deployments and ReplicaSets, after kubectl's: selector, the replica counts in one
 * line, the strategy, the pod template, conditions, and for a Deployment its old and new
 * ReplicaSets; for a ReplicaSet the pods' phases.
 */
import type { KubeObject } from '@setpoint/api';
import { controlledBy, writeContainers, writeVolumes } from './pod.js';
import { type DescribeWriter, formatTime, rec, recs, stringMap, text } from './writer.js';

type Obj = Record<string, unknown>;

/** A label selector as kubectl prints it: `app=web,tier in (a,b)`. */
export function selectorText(selector: unknown): string {
  const s = rec(selector);
  if (s === undefined) return '<none>';
  const parts = Object.entries(stringMap(s['matchLabels'])).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${v}`);
  for (const e of recs(s['matchExpressions'])) {
    const values = (Array.isArray(e['values']) ? e['values'] : []).map(text).join(',');
    switch (text(e['operator'])) {
      case 'In': parts.push(`${text(e['key'])} in (${values})`); break;
      case 'NotIn': parts.push(`${text(e['key'])} notin (${values})`); break;
      case 'Exists': parts.push(text(e['key'])); break;
      case 'DoesNotExist': parts.push(`!${text(e['key'])}`); break;
      default: parts.push(`${text(e['key'])} ${text(e['operator'])} (${values})`);
    }
  }
  return parts.length === 0 ? '<none>' : parts.join(',');
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : 0;
}

/** Pod Template: labels, annotations, containers, volumes. */
function writeTemplate(w: DescribeWriter, template: Obj | undefined): void {
  const meta = rec(template?.['metadata']);
  const spec = rec(template?.['spec']);
  w.line(0, 'Pod Template:');
  w.labels(1, 'Labels', stringMap(meta?.['labels']));
  const annotations = stringMap(meta?.['annotations']);
  if (Object.keys(annotations).length > 0) w.labels(1, 'Annotations', annotations, ': ');
  if (text(spec?.['serviceAccountName']) !== '') w.line(1, 'Service Account:', text(spec?.['serviceAccountName']));
  writeContainers(w, 1, 'Init Containers', recs(spec?.['initContainers']), undefined);
  writeContainers(w, 1, 'Containers', recs(spec?.['containers']), undefined);
  writeVolumes(w, 1, spec);
  const selector = stringMap(spec?.['nodeSelector']);
  if (Object.keys(selector).length > 0) w.labels(1, 'Node-Selectors', selector);
}

function writeConditions(w: DescribeWriter, conditions: readonly Obj[]): void {
  if (conditions.length === 0) return;
  w.line(0, 'Conditions:');
  w.table(1, ['Type', 'Status', 'Reason'], conditions.map((c) => [text(c['type']), text(c['status']), text(c['reason'])]));
}

/** `web-7d9c (2/2 replicas created)`. */
function replicaSetLine(rs: KubeObject): string {
  const spec = rec((rs as Obj)['spec']);
  const status = rec((rs as Obj)['status']);
  return `${rs.metadata?.name ?? ''} (${num(status?.['replicas'])}/${num(spec?.['replicas'])} replicas created)`;
}

/** The description of a Deployment (without events); `replicaSets` are those in its namespace. */
export function describeDeployment(d: KubeObject, replicaSets: readonly KubeObject[], w: DescribeWriter): void {
  const spec = rec((d as Obj)['spec']);
  const status = rec((d as Obj)['status']);
  w.line(0, 'Name:', d.metadata?.name ?? '');
  w.line(0, 'Namespace:', d.metadata?.namespace ?? '');
  w.line(0, 'CreationTimestamp:', formatTime(d.metadata?.creationTimestamp));
  w.labels(0, 'Labels', d.metadata?.labels);
  w.annotations(0, d.metadata?.annotations);
  w.line(0, 'Selector:', selectorText(spec?.['selector']));
  const desired = typeof spec?.['replicas'] === 'number' ? spec['replicas'] : 1;
  w.line(
    0,
    'Replicas:',
    `${desired} desired | ${num(status?.['updatedReplicas'])} updated | ${num(status?.['replicas'])} total | ${num(status?.['availableReplicas'])} available | ${num(status?.['unavailableReplicas'])} unavailable`,
  );
  const strategy = rec(spec?.['strategy']);
  const strategyType = text(strategy?.['type']) || 'RollingUpdate';
  w.line(0, 'StrategyType:', strategyType);
  w.line(0, 'MinReadySeconds:', num(spec?.['minReadySeconds']));
  if (strategyType === 'RollingUpdate') {
    const ru = rec(strategy?.['rollingUpdate']);
    w.line(0, 'RollingUpdateStrategy:', `${text(ru?.['maxUnavailable'] ?? '25%')} max unavailable, ${text(ru?.['maxSurge'] ?? '25%')} max surge`);
  }
  writeTemplate(w, rec(spec?.['template']));
  writeConditions(w, recs(status?.['conditions']));
  const owned = replicaSets.filter((rs) => recs(rs.metadata?.ownerReferences).some((o) => o['uid'] === d.metadata?.uid));
  const revision = d.metadata?.annotations?.['deployment.kubernetes.io/revision'];
  const current = owned.find((rs) => revision !== undefined && rs.metadata?.annotations?.['deployment.kubernetes.io/revision'] === revision);
  const old = owned.filter((rs) => rs !== current && num(rec((rs as Obj)['spec'])?.['replicas']) > 0);
  w.line(0, 'OldReplicaSets:', old.length === 0 ? '<none>' : old.map(replicaSetLine).join(', '));
  w.line(0, 'NewReplicaSet:', current === undefined ? '<none>' : replicaSetLine(current));
}

/** The description of a ReplicaSet (without events); `pods` are those it controls. */
export function describeReplicaSet(rs: KubeObject, pods: readonly KubeObject[], w: DescribeWriter): void {
  const spec = rec((rs as Obj)['spec']);
  const status = rec((rs as Obj)['status']);
  w.line(0, 'Name:', rs.metadata?.name ?? '');
  w.line(0, 'Namespace:', rs.metadata?.namespace ?? '');
  w.line(0, 'Selector:', selectorText(spec?.['selector']));
  w.labels(0, 'Labels', rs.metadata?.labels);
  w.annotations(0, rs.metadata?.annotations);
  const owner = controlledBy(rs);
  if (owner !== undefined) w.line(0, 'Controlled By:', owner);
  w.line(0, 'Replicas:', `${num(status?.['replicas'])} current / ${typeof spec?.['replicas'] === 'number' ? spec['replicas'] : 1} desired`);
  const phase = (p: string) => pods.filter((pod) => text(rec((pod as Obj)['status'])?.['phase']) === p).length;
  w.line(0, 'Pods Status:', `${phase('Running')} Running / ${phase('Pending')} Waiting / ${phase('Succeeded')} Succeeded / ${phase('Failed')} Failed`);
  writeTemplate(w, rec(spec?.['template']));
  writeConditions(w, recs(status?.['conditions']));
}

/** The description of a Namespace (without events). */
export function describeNamespace(ns: KubeObject, w: DescribeWriter): void {
  const status = rec((ns as Obj)['status']);
  w.line(0, 'Name:', ns.metadata?.name ?? '');
  w.labels(0, 'Labels', ns.metadata?.labels);
  w.annotations(0, ns.metadata?.annotations);
  w.line(0, 'Status:', text(status?.['phase']));
  const conditions = recs(status?.['conditions']);
  if (conditions.length > 0) {
    w.line(0, 'Conditions:');
    w.table(1, ['Type', 'Status', 'LastTransitionTime', 'Reason', 'Message'], conditions.map((c) => [text(c['type']), text(c['status']), formatTime(c['lastTransitionTime']), text(c['reason']), text(c['message'])]));
  }
}
