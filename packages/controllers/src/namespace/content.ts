/**
 * Deleting a namespace's content, as Kubernetes' namespaced_resources_deleter.go does it: every
 * served namespaced kind that supports delete, by deletecollection where discovery lists it (else
 * list + delete each), with propagationPolicy Background; then a list of what is left, and why.
 *
 * Guarantees: one pass touches every kind even when some fail; what failed is reported, never
 * thrown. A pass that leaves objects held by finalizers (or pods in their grace period) reports an
 * estimate > 0 (come back later); objects left for no visible reason are a content failure
 * (`unexpected items still remain …`).
 */
import { isApiError, type KubeObject, type Namespace } from '@setpoint/api';
import type { Client } from '@setpoint/client';
import { supportsVerbs, type DiscoveredResource, type DiscoveryResult } from '../gc/discovery.js';
import { groupDiscoveryFailureMessage, type ContentObservation } from './conditions.js';

/** How long, in seconds, objects held by finalizers are assumed to need (Kubernetes' finalizerEstimateSeconds). */
export const FINALIZER_ESTIMATE_SECONDS = 15;

/** The outcome of one content-deletion pass. */
export interface ContentDeletion {
  /** Seconds before the remaining content is expected gone; 0 when nothing is expected to remain. */
  readonly estimateSeconds: number;
  readonly observation: ContentObservation;
  /** Every error of the pass (discovery, parsing, content); none means the pass completed. */
  readonly errors: readonly Error[];
}

interface ResourceOutcome {
  readonly estimateSeconds: number;
  readonly remaining: number;
  readonly finalizers: ReadonlyMap<string, number>;
  readonly error?: Error;
}

/** Deletes what `namespace` holds (see the file comment). `now` is epoch ms. */
export async function deleteAllContent(client: Client, namespace: Namespace, discover: () => Promise<DiscoveryResult>, now: number): Promise<ContentDeletion> {
  const name = namespace.metadata.name ?? '';
  const deletedAt = Date.parse(namespace.metadata.deletionTimestamp ?? '') || now;
  const errors: Error[] = [];
  let discoveryFailure: string | undefined;
  let groupVersionFailure: string | undefined;
  let resources: readonly DiscoveredResource[] = [];
  try {
    const found = await discover();
    resources = found.resources;
    if (found.failedGroupVersions.size > 0) {
      discoveryFailure = groupDiscoveryFailureMessage(found.failedGroupVersions);
      errors.push(new Error(discoveryFailure));
    }
    const invalid = found.invalidGroupVersions[0];
    if (invalid !== undefined) {
      // Kubernetes' GroupVersionResources gives up on the whole list at the first bad group version.
      groupVersionFailure = invalid.message;
      errors.push(invalid);
      resources = [];
    }
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    discoveryFailure = error.message;
    errors.push(error);
  }
  const deletable = resources.filter((r) => r.namespaced && supportsVerbs(r, 'delete'));
  const outcomes = await Promise.all(deletable.map(async (r) => ({ r, outcome: await deleteResourceContent(client, r, name, deletedAt, now) })));
  let estimateSeconds = 0;
  const contentFailures: string[] = [];
  const remaining: { resource: string; group: string; count: number }[] = [];
  const finalizers = new Map<string, number>();
  for (const { r, outcome } of outcomes) {
    if (outcome.error !== undefined) {
      errors.push(outcome.error);
      contentFailures.push(outcome.error.message);
    }
    estimateSeconds = Math.max(estimateSeconds, outcome.estimateSeconds);
    if (outcome.remaining > 0) {
      remaining.push({ resource: r.resource, group: r.group, count: outcome.remaining });
      for (const [f, n] of outcome.finalizers) finalizers.set(f, (finalizers.get(f) ?? 0) + n);
    }
  }
  const observation: ContentObservation = {
    ...(discoveryFailure === undefined ? {} : { discoveryFailure }),
    ...(groupVersionFailure === undefined ? {} : { groupVersionFailure }),
    contentFailures,
    remaining,
    finalizers,
  };
  return { estimateSeconds, observation, errors };
}

/** One kind's content in one namespace: delete it, then see what is left. */
async function deleteResourceContent(client: Client, r: DiscoveredResource, namespace: string, deletedAt: number, now: number): Promise<ResourceOutcome> {
  const api = client.resource(r);
  const canList = supportsVerbs(r, 'list');
  let estimateSeconds = 0;
  try {
    if (r.group === '' && r.resource === 'pods') estimateSeconds = await podsGraceEstimate(client, namespace, deletedAt, now);
    let collected = false;
    if (supportsVerbs(r, 'deletecollection')) {
      try {
        await api.deleteCollection({ namespace, propagationPolicy: 'Background' });
        collected = true;
      } catch (err) {
        if (!isApiError(err, 'MethodNotAllowed') && !isApiError(err, 'NotFound')) throw err;
      }
    }
    if (!collected && canList) {
      const items = (await api.list({ namespace })).items;
      for (const item of items) {
        try {
          await api.delete(item.metadata.name ?? '', { namespace, propagationPolicy: 'Background' });
        } catch (err) {
          if (!isApiError(err, 'NotFound') && !isApiError(err, 'MethodNotAllowed')) throw err;
        }
      }
    }
    if (!canList) return { estimateSeconds, remaining: 0, finalizers: new Map() };
    const left: KubeObject[] = (await api.list({ namespace })).items;
    if (left.length === 0) return { estimateSeconds: 0, remaining: 0, finalizers: new Map() };
    const finalizers = new Map<string, number>();
    for (const item of left) for (const f of item.metadata.finalizers ?? []) finalizers.set(f, (finalizers.get(f) ?? 0) + 1);
    if (estimateSeconds > 0) return { estimateSeconds, remaining: left.length, finalizers };
    if (finalizers.size > 0) return { estimateSeconds: FINALIZER_ESTIMATE_SECONDS, remaining: left.length, finalizers };
    return {
      estimateSeconds,
      remaining: left.length,
      finalizers,
      error: new Error(`unexpected items still remain in namespace: ${namespace} for gvr: ${r.group}/${r.version}, Resource=${r.resource}`),
    };
  } catch (err) {
    return { estimateSeconds, remaining: 0, finalizers: new Map(), error: err instanceof Error ? err : new Error(String(err)) };
  }
}

/**
 * The longest terminationGracePeriodSeconds of the namespace's pods that are not finished, or 0
 * once that long has passed since the namespace's deletion (Kubernetes' estimateGracefulTermination).
 */
async function podsGraceEstimate(client: Client, namespace: string, deletedAt: number, now: number): Promise<number> {
  let estimate = 0;
  for (const pod of (await client.pods().list({ namespace })).items) {
    const phase = pod.status?.phase;
    if (phase === 'Succeeded' || phase === 'Failed') continue;
    const grace = (pod.spec as { terminationGracePeriodSeconds?: number } | undefined)?.terminationGracePeriodSeconds;
    if (grace !== undefined && grace > estimate) estimate = grace;
  }
  return now - deletedAt >= estimate * 1000 ? 0 : estimate;
}
