/**
 * DefaultTolerationSeconds admission (Kubernetes' plugin/pkg/admission/defaulttolerationseconds):
 * a pod created without a toleration for the node lifecycle controller's NoExecute taints gets
 *
 *   { key: node.kubernetes.io/not-ready,   operator: Exists, effect: NoExecute, tolerationSeconds: 300 }
 *   { key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300 }
 *
 * so that a node that stops answering evicts its pods after five minutes, not at once.
 *
 * A toleration counts as one for a taint when its key is the taint's or empty and its effect is
 * NoExecute or empty (operator, value and tolerationSeconds are not looked at, as in Kubernetes).
 * Only pods proper: the API server calls this on create, before validation.
 */
import type { KubeObject, Toleration } from '@setpoint/api';

export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';
/** Kubernetes' --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
export const DEFAULT_TOLERATION_SECONDS = 300;

export interface DefaultTolerationOptions {
  /** tolerationSeconds of the added not-ready toleration. Default 300. */
  readonly notReadySeconds?: number;
  /** tolerationSeconds of the added unreachable toleration. Default 300. */
  readonly unreachableSeconds?: number;
}

function record(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function tolerates(t: unknown, key: string): boolean {
  if (!record(t)) return false;
  const k = typeof t['key'] === 'string' ? t['key'] : '';
  const effect = typeof t['effect'] === 'string' ? t['effect'] : '';
  return (k === key || k === '') && (effect === 'NoExecute' || effect === '');
}

/**
 * Appends the default not-ready and unreachable tolerations to `pod.spec.tolerations` where the
 * pod has none for those taints. Mutates `pod` in place and returns whether it changed. A pod
 * without a spec object, or whose spec.tolerations is present but not an array, is left for
 * validation to reject.
 */
export function addDefaultTolerations(pod: KubeObject, options: DefaultTolerationOptions = {}): boolean {
  const spec = pod['spec'];
  if (!record(spec)) return false;
  const current = spec['tolerations'];
  if (current !== undefined && current !== null && !Array.isArray(current)) return false;
  const tolerations: unknown[] = Array.isArray(current) ? current : [];
  const added: Toleration[] = [];
  if (!tolerations.some((t) => tolerates(t, TAINT_NODE_NOT_READY))) {
    added.push({ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: options.notReadySeconds ?? DEFAULT_TOLERATION_SECONDS });
  }
  if (!tolerations.some((t) => tolerates(t, TAINT_NODE_UNREACHABLE))) {
    added.push({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: options.unreachableSeconds ?? DEFAULT_TOLERATION_SECONDS });
  }
  if (added.length === 0) return false;
  spec['tolerations'] = [...tolerations, ...added];
  return true;
}
