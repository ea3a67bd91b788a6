/**
 * Which ReplicaSets a Deployment manages (Kubernetes' ReplicaSetControllerRefManager.ClaimReplicaSets):
 * those it controls whose labels match its selector; orphans that match are adopted (unless the
 * Deployment or the ReplicaSet is being deleted); those it controls that no longer match are
 * released. A ReplicaSet controlled by anyone else is never touched.
 */
import { ApiError, isApiError, labelSelectorAsSelector, type Deployment, type LabelsSelector, type ReplicaSet } from '@setpoint/api';
import { TerminalError } from '@setpoint/client';
import type { DeploymentCluster } from './cluster.js';
import { controllerRef } from './replicasets.js';

/** The three sets a claim sorts the namespace's ReplicaSets into. */
export interface ClaimPlan {
  /** Controlled by the Deployment and matching: its already. */
  readonly owned: ReplicaSet[];
  /** Orphans that match: to adopt. */
  readonly adopt: ReplicaSet[];
  /** Controlled by the Deployment but no longer matching: to release. */
  readonly release: ReplicaSet[];
}

/** The Deployment's selector; an invalid one is a TerminalError (retrying will not fix it). */
export function deploymentSelector(d: Deployment): LabelsSelector {
  try {
    return labelSelectorAsSelector(d.spec?.selector);
  } catch (err) {
    throw new TerminalError(`deployment ${d.metadata.namespace}/${d.metadata.name} has invalid label selector: ${(err as Error).message}`, { cause: err });
  }
}

/** ClaimObject for every ReplicaSet of the namespace. */
export function planClaims(d: Deployment, rss: readonly ReplicaSet[], selector: LabelsSelector): ClaimPlan {
  const plan: ClaimPlan = { owned: [], adopt: [], release: [] };
  const deleting = d.metadata.deletionTimestamp !== undefined;
  for (const rs of rss) {
    if (rs.metadata.namespace !== d.metadata.namespace) continue;
    const matches = !selector.isEmpty() && selector.matches(rs.metadata.labels ?? {});
    const ref = rs.metadata.ownerReferences?.find((r) => r.controller === true);
    if (ref !== undefined) {
      if (ref.uid !== d.metadata.uid) continue;
      if (matches) plan.owned.push(rs);
      else if (!deleting) plan.release.push(rs);
      continue;
    }
    if (deleting || !matches || rs.metadata.deletionTimestamp !== undefined) continue;
    plan.adopt.push(rs);
  }
  return plan;
}

/**
 * getReplicaSetsForDeployment: claims the namespace's ReplicaSets and returns those the Deployment
 * now manages. Before adopting, the Deployment is read again from the API (not the cache) to make
 * sure it still exists with the same uid and is not being deleted. A ReplicaSet gone meanwhile is
 * skipped; other errors are thrown (the sync is retried).
 */
export async function claimReplicaSets(cluster: DeploymentCluster, d: Deployment, selector: LabelsSelector): Promise<ReplicaSet[]> {
  const plan = planClaims(d, cluster.listReplicaSets(d.metadata.namespace ?? ''), selector);
  const claimed = [...plan.owned];
  for (const rs of plan.release) {
    const rest = (rs.metadata.ownerReferences ?? []).filter((r) => r.uid !== d.metadata.uid);
    await cluster.setReplicaSetOwners(rs, rest).catch(ignoreNotFound);
  }
  if (plan.adopt.length > 0) {
    const fresh = await cluster.getDeploymentFresh(d.metadata.namespace ?? '', d.metadata.name ?? '');
    if (fresh === undefined || fresh.metadata.uid !== d.metadata.uid) {
      throw new ApiError('NotFound', `original Deployment ${d.metadata.namespace}/${d.metadata.name} is gone: got uid ${fresh?.metadata.uid ?? ''}, wanted ${d.metadata.uid ?? ''}`);
    }
    if (fresh.metadata.deletionTimestamp !== undefined) return claimed; // being deleted: adopt nothing
    for (const rs of plan.adopt) {
      try {
        claimed.push(await cluster.setReplicaSetOwners(rs, [...(rs.metadata.ownerReferences ?? []), controllerRef(d)]));
      } catch (err) {
        if (!isApiError(err, 'NotFound')) throw err;
      }
    }
  }
  return claimed;
}

function ignoreNotFound(err: unknown): undefined {
  if (isApiError(err, 'NotFound')) return undefined;
  throw err;
}
