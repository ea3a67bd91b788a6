/**
 * An in-memory DeploymentCluster for the controller's unit tests: objects kept as an API server
 * keeps them (uids, resourceVersions checked on every write, generation bumped by spec changes,
 * AlreadyExists on a taken name), a clock the test sets, a log of every write, and `settle()`,
 * which plays the ReplicaSet controller and the kubelets in one step.
 */
import { ApiError, jsonClone, type Deployment, type DeploymentStatus, type DeploymentStrategy, type LabelsSelector, type OwnerReference, type Pod, type ReplicaSet } from '@setpoint/api';
import type { EventType } from '@setpoint/client';
import type { DeploymentCluster } from './cluster.js';
import { reconcileDeployment } from './reconcile.js';

const rsGR = { group: 'apps', resource: 'replicasets' };
const dGR = { group: 'apps', resource: 'deployments' };

export interface FakeDeploymentOptions {
  readonly replicas?: number;
  readonly image?: string;
  readonly strategy?: DeploymentStrategy;
  readonly revisionHistoryLimit?: number;
  readonly progressDeadlineSeconds?: number;
  readonly paused?: boolean;
  readonly annotations?: Record<string, string>;
}

/** A Deployment as the API server would store it (defaults applied). */
export function makeDeployment(name: string, o: FakeDeploymentOptions = {}): Deployment {
  const d: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, generation: 1, resourceVersion: '1', creationTimestamp: '2025-01-01T00:00:00Z' },
    spec: {
      replicas: o.replicas ?? 3,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'app', image: o.image ?? 'nginx:1' }] } },
      strategy: o.strategy ?? { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: o.revisionHistoryLimit ?? 10,
      progressDeadlineSeconds: o.progressDeadlineSeconds ?? 600,
    },
    status: {},
  };
  if (o.paused) d.spec!.paused = true;
  if (o.annotations) d.metadata.annotations = { ...o.annotations };
  return d;
}

export class FakeCluster implements DeploymentCluster {
  clock = Date.parse('2025-01-01T00:00:00Z');
  readonly deployments = new Map<string, Deployment>();
  readonly replicaSets = new Map<string, ReplicaSet>();
  readonly log: string[] = [];
  readonly events: Array<{ type: EventType; reason: string; message: string }> = [];
  private rv = 10;
  private uids = 0;

  now(): number {
    return this.clock;
  }

  /** Adds (or replaces) a Deployment; a spec change bumps its generation as the API server does. */
  putDeployment(d: Deployment): Deployment {
    const old = this.deployments.get(d.metadata.name!);
    const next = jsonClone(d);
    if (old !== undefined && JSON.stringify(old.spec) !== JSON.stringify(next.spec)) next.metadata.generation = (old.metadata.generation ?? 1) + 1;
    next.metadata.resourceVersion = String(++this.rv);
    this.deployments.set(d.metadata.name!, next);
    return jsonClone(next);
  }

  deployment(name: string): Deployment {
    return jsonClone(this.deployments.get(name)!);
  }

  /** Changes a Deployment's spec like `kubectl edit` would. */
  editDeployment(name: string, edit: (d: Deployment) => void): void {
    const d = this.deployment(name);
    edit(d);
    this.putDeployment(d);
  }

  /** One sync of the Deployment, from a copy of what is stored. */
  sync(name: string): ReturnType<typeof reconcileDeployment> {
    return reconcileDeployment(this, this.deployment(name));
  }

  /** The ReplicaSet controller and the kubelets: every ReplicaSet gets status = spec, `ready(rs)` of them ready. */
  settle(ready: (rs: ReplicaSet) => number = (rs) => rs.spec?.replicas ?? 1): void {
    for (const rs of this.replicaSets.values()) {
      const n = rs.spec?.replicas ?? 1;
      const r = Math.min(n, ready(rs));
      rs.status = { replicas: n, readyReplicas: r, availableReplicas: r, observedGeneration: rs.metadata.generation ?? 1 };
      for (const k of ['replicas', 'readyReplicas', 'availableReplicas'] as const) if (rs.status[k] === 0) delete rs.status[k];
      rs.metadata.resourceVersion = String(++this.rv);
    }
  }

  /** Sets one ReplicaSet's status by hand (a ReplicaSet controller that lags). */
  setStatus(name: string, status: NonNullable<ReplicaSet['status']>): void {
    const rs = this.replicaSets.get(name)!;
    rs.status = { ...status };
    rs.metadata.resourceVersion = String(++this.rv);
  }

  rsList(): ReplicaSet[] {
    return [...this.replicaSets.values()].map((rs) => jsonClone(rs));
  }

  listReplicaSets(namespace: string): ReplicaSet[] {
    return this.rsList().filter((rs) => rs.metadata.namespace === namespace);
  }

  getReplicaSet(_namespace: string, name: string): ReplicaSet | undefined {
    const rs = this.replicaSets.get(name);
    return rs === undefined ? undefined : jsonClone(rs);
  }

  /** Pods: Running ones for every ReplicaSet's status.replicas, each controlled by its ReplicaSet. */
  listPods(namespace: string, selector: LabelsSelector): Pod[] {
    const pods: Pod[] = [];
    for (const rs of this.replicaSets.values()) {
      for (let i = 0; i < (rs.status?.replicas ?? 0); i++) {
        pods.push({
          metadata: {
            name: `${rs.metadata.name}-${i}`,
            namespace,
            labels: { ...rs.spec?.template?.metadata?.labels },
            ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name!, uid: rs.metadata.uid!, controller: true }],
          },
          status: { phase: 'Running' },
        });
      }
    }
    return pods.filter((p) => selector.matches(p.metadata.labels ?? {}));
  }

  async listPodsFresh(namespace: string, selector: LabelsSelector): Promise<Pod[]> {
    return this.listPods(namespace, selector);
  }

  async getDeploymentFresh(_namespace: string, name: string): Promise<Deployment | undefined> {
    const d = this.deployments.get(name);
    return d === undefined ? undefined : jsonClone(d);
  }

  async createReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    const name = rs.metadata.name!;
    if (this.replicaSets.has(name)) throw ApiError.alreadyExists(rsGR, name);
    const stored: ReplicaSet = jsonClone(rs);
    stored.metadata = {
      ...stored.metadata,
      uid: `rs-uid-${++this.uids}`,
      resourceVersion: String(++this.rv),
      generation: 1,
      creationTimestamp: new Date(this.clock).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    };
    stored.status = { replicas: 0 };
    this.replicaSets.set(name, stored);
    this.log.push(`create ${name} ${stored.spec?.replicas ?? 1}`);
    return jsonClone(stored);
  }

  private current(rs: ReplicaSet): ReplicaSet {
    const stored = this.replicaSets.get(rs.metadata.name!);
    if (stored === undefined) throw ApiError.notFound(rsGR, rs.metadata.name!);
    if (rs.metadata.resourceVersion !== stored.metadata.resourceVersion) throw ApiError.conflict(rsGR, rs.metadata.name!);
    return stored;
  }

  async updateReplicaSet(rs: ReplicaSet): Promise<ReplicaSet> {
    const stored = this.current(rs);
    const next: ReplicaSet = { ...jsonClone(rs), status: stored.status };
    next.metadata.resourceVersion = String(++this.rv);
    next.metadata.generation = (stored.metadata.generation ?? 1) + (JSON.stringify(stored.spec) === JSON.stringify(rs.spec) ? 0 : 1);
    this.replicaSets.set(rs.metadata.name!, next);
    if ((stored.spec?.replicas ?? 1) !== (rs.spec?.replicas ?? 1)) this.log.push(`scale ${rs.metadata.name} ${stored.spec?.replicas ?? 1}->${rs.spec?.replicas ?? 1}`);
    else this.log.push(`annotate ${rs.metadata.name}`);
    return jsonClone(next);
  }

  async setReplicaSetOwners(rs: ReplicaSet, ownerReferences: OwnerReference[]): Promise<ReplicaSet> {
    const stored = this.current(rs);
    if (ownerReferences.length > 0) stored.metadata.ownerReferences = jsonClone(ownerReferences);
    else delete stored.metadata.ownerReferences;
    stored.metadata.resourceVersion = String(++this.rv);
    this.log.push(`owners ${rs.metadata.name} [${ownerReferences.map((r) => r.name).join(',')}]`);
    return jsonClone(stored);
  }

  async deleteReplicaSet(rs: ReplicaSet): Promise<void> {
    if (this.replicaSets.delete(rs.metadata.name!)) this.log.push(`delete ${rs.metadata.name}`);
  }

  async updateDeploymentStatus(d: Deployment, status: DeploymentStatus): Promise<Deployment> {
    const stored = this.deployments.get(d.metadata.name!);
    if (stored === undefined) throw ApiError.notFound(dGR, d.metadata.name!);
    if (stored.metadata.resourceVersion !== d.metadata.resourceVersion) throw ApiError.conflict(dGR, d.metadata.name!);
    stored.status = jsonClone(status);
    stored.metadata.resourceVersion = String(++this.rv);
    this.log.push(`status ${d.metadata.name}`);
    return jsonClone(stored);
  }

  async setDeploymentRevision(d: Deployment, revision: string): Promise<void> {
    const stored = this.deployments.get(d.metadata.name!);
    if (stored === undefined) throw ApiError.notFound(dGR, d.metadata.name!);
    stored.metadata.annotations = { ...stored.metadata.annotations, 'deployment.kubernetes.io/revision': revision };
    stored.metadata.resourceVersion = String(++this.rv);
    this.log.push(`revision ${d.metadata.name} ${revision}`);
  }

  event(_d: Deployment, type: EventType, reason: string, message: string): void {
    this.events.push({ type, reason, message });
  }
}

export interface FakeReplicaSetOptions {
  readonly replicas?: number;
  /** status.availableReplicas (and readyReplicas). Default: replicas. */
  readonly available?: number;
  /** status.replicas. Default: replicas. */
  readonly actual?: number;
  readonly revision?: number;
  /** creationTimestamp's seconds past 2025-01-01T00:00:00Z. */
  readonly created?: number;
  readonly desired?: number;
  readonly max?: number;
  readonly image?: string;
  readonly owner?: string;
}

/** A ReplicaSet of Deployment `owner` (default "web") as stored, for decision tables. */
export function makeReplicaSet(name: string, o: FakeReplicaSetOptions = {}): ReplicaSet {
  const replicas = o.replicas ?? 0;
  const annotations: Record<string, string> = {};
  if (o.revision !== undefined) annotations['deployment.kubernetes.io/revision'] = String(o.revision);
  if (o.desired !== undefined) annotations['deployment.kubernetes.io/desired-replicas'] = String(o.desired);
  if (o.max !== undefined) annotations['deployment.kubernetes.io/max-replicas'] = String(o.max);
  const owner = o.owner ?? 'web';
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: 'default',
      uid: `uid-${name}`,
      resourceVersion: '1',
      generation: 1,
      creationTimestamp: new Date(Date.parse('2025-01-01T00:00:00Z') + (o.created ?? 0) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      labels: { app: owner, 'pod-template-hash': name },
      annotations,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner, uid: `uid-${owner}`, controller: true }],
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: owner, 'pod-template-hash': name } },
      template: { metadata: { labels: { app: owner, 'pod-template-hash': name } }, spec: { containers: [{ name: 'app', image: o.image ?? name }] } },
    },
    status: { replicas: o.actual ?? replicas, readyReplicas: o.available ?? replicas, availableReplicas: o.available ?? replicas, observedGeneration: 1 },
  };
}
