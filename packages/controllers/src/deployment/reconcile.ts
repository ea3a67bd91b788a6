/**
 * One sync of one Deployment (Kubernetes' syncDeployment and what it calls), on a DeploymentCluster.
 *
 * Expected flow: claim the ReplicaSets (adopt/release); a Deployment being deleted only gets its
 * status; a paused one, or one whose spec.replicas changed (a ReplicaSet's desired-replicas
 * annotation disagrees), is scaled proportionally without rollout progress; otherwise one rollout
 * step of its strategy is taken (RollingUpdate: scale the new ReplicaSet up, else old ones down;
 * Recreate: old to 0, wait for their pods to be gone, then the new one up), old revisions beyond
 * revisionHistoryLimit are deleted once the rollout is complete, and the status is written.
 *
 * Every scale-up (and the size of a new ReplicaSet) is capped by the surge headroom counted from
 * the pods that exist right now (see rolling.ts), so that spec.replicas + maxSurge holds for the
 * pods themselves and not only for the ReplicaSets' specs.
 *
 * Guarantees: idempotent — a sync of a settled Deployment writes nothing. Side effects come before
 * their record: ReplicaSets are created and scaled before the status (and the Deployment's revision
 * annotation, written last) says so. Status is written only when it changed. Every write carries
 * the resourceVersion it was computed from; a 409 is thrown and the runtime retries the sync.
 *
 * Returns when to look again: `{ requeueAfterMs }` while a progress deadline is pending,
 * `{ requeue: true }` after bumping collisionCount on a hash collision.
 */
import { isApiError, jsonClone, jsonEqual, type Deployment, type DeploymentStatus, type LabelsSelector, type ReplicaSet } from '@setpoint/api';
import type { ReconcileResult } from '@setpoint/client';
import { claimReplicaSets, deploymentSelector } from './claim.js';
import type { DeploymentCluster } from './cluster.js';
import { PROGRESSING, Reasons, getCondition, newCondition, setCondition } from './conditions.js';
import { desiredReplicas, isRollingUpdate, maxSurge } from './fenceposts.js';
import { computePodTemplateHash } from './hash.js';
import { replicaSetsToCleanUp } from './history.js';
import { calculateStatus, deploymentComplete, hasProgressDeadline, pausedStatus, progressCheckDelayMs, rolloutStatus } from './progress.js';
import { oldPodsRunning, planRecreateScaleDown, podsByReplicaSet } from './recreate.js';
import {
  REVISION_ANNOTATION,
  equalIgnoreHash,
  findNewReplicaSet,
  findOldReplicaSets,
  maxRevision,
  replicaSetFor,
  rsReplicas,
  withNewReplicaSetAnnotations,
  withReplicasAnnotations,
} from './replicasets.js';
import {
  capScaleUps,
  newReplicaSetReplicas,
  planNewReplicaSetScale,
  planOldReplicaSetsScaleDown,
  replicaSetsObserved,
  surgeHeadroom,
  withReplicas,
  type ScaleChange,
} from './rolling.js';
import { isScalingEvent, planProportionalScale } from './scale.js';

/** Syncs `deployment` (a copy this function may change) and says when to look again. */
export async function reconcileDeployment(cluster: DeploymentCluster, deployment: Deployment): Promise<ReconcileResult> {
  return new DeploymentSync(cluster, deployment).run();
}

/** Thrown inside a sync when the new ReplicaSet's name is taken by another template. */
class HashCollision extends Error {
  override readonly name = 'HashCollision';
}

class DeploymentSync {
  readonly #d: Deployment;
  /** The status as stored (the base of "changed?"). */
  #stored: DeploymentStatus | undefined;
  /** The revision the Deployment's annotation should say, once the sync is done. */
  #revision: string | undefined;
  #rsList: ReplicaSet[] = [];
  #selector: LabelsSelector | undefined;

  readonly #cluster: DeploymentCluster;

  constructor(cluster: DeploymentCluster, deployment: Deployment) {
    this.#cluster = cluster;
    this.#d = { ...deployment, apiVersion: 'apps/v1', kind: 'Deployment', status: jsonClone(deployment.status ?? {}) };
    this.#stored = deployment.status;
  }

  async run(): Promise<ReconcileResult> {
    const d = this.#d;
    const selector = deploymentSelector(d);
    this.#selector = selector;
    if (selector.isEmpty()) {
      this.#cluster.event(d, 'Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status!.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) await this.#writeStatus({ ...d.status, observedGeneration: d.metadata.generation ?? 0 });
      return undefined;
    }
    this.#rsList = await claimReplicaSets(this.#cluster, d, selector);
    let result: ReconcileResult;
    try {
      result = await this.#sync(selector);
    } catch (err) {
      if (err instanceof HashCollision) return { requeue: true };
      throw err;
    }
    await this.#syncRevision();
    return result;
  }

  async #sync(selector: LabelsSelector): Promise<ReconcileResult> {
    const d = this.#d;
    if (d.metadata.deletionTimestamp !== undefined) return this.#syncStatusOnly();
    const paused = pausedStatus(d, this.#now);
    if (paused !== undefined) d.status = paused;
    if (d.spec?.paused === true) return this.#scaleOnly();
    const { newRS, oldRSs } = await this.#replicaSets(false);
    if (isScalingEvent(d, [...oldRSs, newRS])) return this.#scaleOnly();
    if (isRollingUpdate(d)) return this.#rolloutRolling();
    return this.#rolloutRecreate(selector);
  }

  get #now(): number {
    return this.#cluster.now();
  }

  /** syncStatusOnly: a Deployment being deleted gets its status, nothing else. */
  async #syncStatusOnly(): Promise<ReconcileResult> {
    const { newRS, oldRSs } = await this.#replicaSets(false);
    await this.#writeStatus(calculateStatus(present([...oldRSs, newRS]), newRS, this.#d, this.#now));
    return undefined;
  }

  /** `sync`: proportional scaling (scaling event or paused), history cleanup when paused, status. */
  async #scaleOnly(): Promise<ReconcileResult> {
    const { newRS, oldRSs } = await this.#replicaSets(false);
    await this.#apply(planProportionalScale(this.#d, newRS, oldRSs));
    if (this.#d.spec?.paused === true) await this.#cleanupHistory();
    const after = await this.#replicaSets(false);
    await this.#writeStatus(calculateStatus(present([...after.oldRSs, after.newRS]), after.newRS, this.#d, this.#now));
    return undefined;
  }

  /** rolloutRolling: scale the new ReplicaSet up, else old ones down; when complete, clean up history. */
  async #rolloutRolling(): Promise<ReconcileResult> {
    const { newRS, oldRSs } = await this.#replicaSets(true);
    const target = planNewReplicaSetScale(this.#d, [...oldRSs, newRS!], newRS!);
    if (target !== undefined && (await this.#apply([{ rs: newRS!, replicas: target }])) > 0) return this.#finishRollout();
    const scaledDown = await this.#apply(planOldReplicaSetsScaleDown(this.#d, [...oldRSs, newRS!], oldRSs, newRS!));
    if (scaledDown === 0 && deploymentComplete(this.#d, this.#d.status!)) await this.#cleanupHistory();
    return this.#finishRollout();
  }

  /** rolloutRecreate: old to 0; once no old pod runs, the new ReplicaSet (created now if need be) to spec.replicas. */
  async #rolloutRecreate(selector: LabelsSelector): Promise<ReconcileResult> {
    let { newRS, oldRSs } = await this.#replicaSets(false);
    if ((await this.#apply(planRecreateScaleDown(oldRSs))) > 0) return this.#finishRollout();
    const pods = podsByReplicaSet(this.#rsList, this.#cluster.listPods(this.#d.metadata.namespace ?? '', selector));
    if (oldPodsRunning(newRS, oldRSs, pods)) return this.#finishRollout();
    if (newRS === undefined) ({ newRS, oldRSs } = await this.#replicaSets(true));
    await this.#apply([{ rs: newRS!, replicas: desiredReplicas(this.#d) }]);
    if (deploymentComplete(this.#d, this.#d.status!)) await this.#cleanupHistory();
    return this.#finishRollout();
  }

  /** syncRolloutStatus: the status with progress estimated; when to check the deadline again. */
  async #finishRollout(): Promise<ReconcileResult> {
    const { newRS, oldRSs } = await this.#replicaSets(false);
    const status = rolloutStatus(this.#d, present([...oldRSs, newRS]), newRS, this.#now);
    await this.#writeStatus(status);
    const delay = progressCheckDelayMs(this.#d, status, this.#now);
    return delay === undefined ? undefined : { requeueAfterMs: delay };
  }

  /**
   * getAllReplicaSetsAndSyncRevision: the new ReplicaSet (created when `create` and missing) with
   * its annotations synced, and the old ones.
   */
  async #replicaSets(create: boolean): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
    const oldRSs = findOldReplicaSets(this.#d, this.#rsList);
    const newRS = await this.#newReplicaSet(oldRSs, create);
    return { newRS, oldRSs: newRS === undefined ? oldRSs : oldRSs.filter((rs) => rs.metadata.uid !== newRS.metadata.uid) };
  }

  /** getNewReplicaSet. */
  async #newReplicaSet(oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
    const d = this.#d;
    const existing = findNewReplicaSet(d, this.#rsList);
    const newRevision = maxRevision(oldRSs) + 1;
    if (existing !== undefined) {
      let rs = existing;
      const annotated = withNewReplicaSetAnnotations(d, existing, newRevision, true);
      const minReady = d.spec?.minReadySeconds ?? 0;
      if (annotated.changed || (existing.spec?.minReadySeconds ?? 0) !== minReady) {
        const spec = { ...annotated.rs.spec! };
        if (minReady !== 0) spec.minReadySeconds = minReady;
        else delete spec.minReadySeconds; // 0 is omitted on the wire (omitempty)
        rs = this.#replace(await this.#cluster.updateReplicaSet({ ...annotated.rs, spec }));
      }
      this.#revision = rs.metadata.annotations?.[REVISION_ANNOTATION];
      if (hasProgressDeadline(d) && getCondition(d.status, PROGRESSING) === undefined) {
        setCondition(d.status!, newCondition(PROGRESSING, 'True', Reasons.FoundNewReplicaSet, `Found new replica set "${rs.metadata.name}"`, this.#now));
      }
      return rs;
    }
    if (!create) return undefined;

    const hash = computePodTemplateHash(d.spec?.template, d.status?.collisionCount);
    const draft = replicaSetFor(d, hash, 0);
    const wantedReplicas = newReplicaSetReplicas(d, [...oldRSs, draft], draft);
    const replicas = wantedReplicas > 0 ? Math.min(wantedReplicas, await this.#headroom()) : 0;
    const wanted = withNewReplicaSetAnnotations(d, withReplicas(draft, replicas), newRevision, false).rs;
    let created: ReplicaSet;
    let alreadyExisted = false;
    try {
      created = await this.#cluster.createReplicaSet(wanted);
    } catch (err) {
      if (!isApiError(err, 'AlreadyExists')) return this.#createFailed(wanted, err);
      const found = this.#cluster.getReplicaSet(d.metadata.namespace ?? '', wanted.metadata.name!);
      if (found === undefined) throw err; // not in the cache yet: look again later
      const owner = found.metadata.ownerReferences?.find((r) => r.controller === true);
      if (owner?.uid !== d.metadata.uid || !equalIgnoreHash(d.spec?.template, found.spec?.template)) {
        // A hash collision: another template has this name. Count it, so the next hash differs.
        await this.#writeStatus({ ...d.status, collisionCount: (d.status?.collisionCount ?? 0) + 1 });
        throw new HashCollision(`ReplicaSet ${wanted.metadata.name} exists with another template`);
      }
      created = found;
      alreadyExisted = true;
    }
    this.#rsList.push(created);
    if (!alreadyExisted && replicas > 0) this.#cluster.event(d, 'Normal', 'ScalingReplicaSet', `Scaled up replica set ${created.metadata.name} to ${replicas}`);
    this.#revision = String(newRevision);
    if (!alreadyExisted && hasProgressDeadline(d)) {
      setCondition(d.status!, newCondition(PROGRESSING, 'True', Reasons.NewReplicaSetCreated, `Created new replica set "${created.metadata.name}"`, this.#now));
      await this.#writeStatus(d.status!); // the record of the creation, right after it
    }
    return created;
  }

  /** A create that failed for another reason: Progressing=False ReplicaSetCreateError, a Warning, and the error. */
  async #createFailed(rs: ReplicaSet, err: unknown): Promise<never> {
    const message = `Failed to create new replica set "${rs.metadata.name}": ${(err as Error).message}`;
    if (hasProgressDeadline(this.#d) && !(isApiError(err) && err.details?.causes?.some((c) => c.reason === 'NamespaceTerminating'))) {
      setCondition(this.#d.status!, newCondition(PROGRESSING, 'False', Reasons.FailedRSCreate, message, this.#now));
      await this.#writeStatus(this.#d.status!).catch(() => undefined); // the create's error is the one to report
    }
    this.#cluster.event(this.#d, 'Warning', Reasons.FailedRSCreate, message);
    throw err;
  }

  /**
   * Writes the scale changes in order (scaleReplicaSet): the size with the replicas annotations, or
   * only the annotations when `refreshAnnotations` and they are stale. Scale-ups are first capped by
   * the surge headroom. Returns how many were resized.
   */
  async #apply(planned: readonly ScaleChange[]): Promise<number> {
    const d = this.#d;
    const current = (rs: ReplicaSet) => this.#rsList.find((r) => r.metadata.uid === rs.metadata.uid) ?? rs;
    const grows = planned.some((c) => c.replicas > rsReplicas(current(c.rs)));
    const changes = grows ? capScaleUps(planned.map((c) => ({ ...c, rs: current(c.rs) })), await this.#headroom()) : planned;
    let resized = 0;
    for (const change of changes) {
      const rs = this.#rsList.find((r) => r.metadata.uid === change.rs.metadata.uid) ?? change.rs;
      const from = rsReplicas(rs);
      const next = withReplicasAnnotations(withReplicas(rs, change.replicas), desiredReplicas(d), desiredReplicas(d) + maxSurge(d));
      if (from === change.replicas && !(change.refreshAnnotations === true && next.changed)) continue;
      this.#replace(await this.#cluster.updateReplicaSet(next.rs));
      if (from !== change.replicas) {
        resized++;
        const direction = from < change.replicas ? 'up' : 'down';
        this.#cluster.event(d, 'Normal', 'ScalingReplicaSet', `Scaled ${direction} replica set ${rs.metadata.name} to ${change.replicas} from ${from}`);
      }
    }
    return resized;
  }

  /**
   * The pods that may still be added (surgeHeadroom), from the pods that exist right now (read from
   * the API, not the cache); 0 without reading while a ReplicaSet's controller lags behind its spec.
   */
  async #headroom(): Promise<number> {
    if (!replicaSetsObserved(this.#rsList)) return 0;
    const pods = await this.#cluster.listPodsFresh(this.#d.metadata.namespace ?? '', this.#selector!);
    const active = new Map<string, number>();
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp !== undefined || pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
      const owner = pod.metadata.ownerReferences?.find((r) => r.controller === true)?.uid;
      if (owner !== undefined) active.set(owner, (active.get(owner) ?? 0) + 1);
    }
    return surgeHeadroom(this.#d, this.#rsList, active);
  }

  /** cleanupDeployment: deletes the old ReplicaSets beyond revisionHistoryLimit. */
  async #cleanupHistory(): Promise<void> {
    const { oldRSs } = await this.#replicaSets(false);
    for (const rs of replicaSetsToCleanUp(this.#d, oldRSs)) {
      await this.#cluster.deleteReplicaSet(rs);
      this.#rsList = this.#rsList.filter((r) => r.metadata.uid !== rs.metadata.uid);
    }
  }

  /** Puts a written ReplicaSet in place of the one read. */
  #replace(rs: ReplicaSet): ReplicaSet {
    const i = this.#rsList.findIndex((r) => r.metadata.uid === rs.metadata.uid);
    if (i >= 0) this.#rsList[i] = rs;
    else this.#rsList.push(rs);
    return rs;
  }

  /** Writes `status` when it differs from the stored one; later writes carry the new resourceVersion. */
  async #writeStatus(status: DeploymentStatus): Promise<void> {
    this.#d.status = status;
    if (jsonEqual(this.#stored ?? {}, status)) return;
    const written = await this.#cluster.updateDeploymentStatus(this.#d, status);
    this.#stored = status;
    // Keep what this sync decided from (spec, generation); take only the new resourceVersion.
    this.#d.metadata = { ...this.#d.metadata, resourceVersion: written.metadata.resourceVersion };
  }

  /** SetDeploymentRevision: the Deployment's annotation says the new ReplicaSet's revision (written last). */
  async #syncRevision(): Promise<void> {
    if (this.#revision === undefined || this.#d.metadata.annotations?.[REVISION_ANNOTATION] === this.#revision) return;
    await this.#cluster.setDeploymentRevision(this.#d, this.#revision);
  }
}

function present(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs !== undefined);
}
