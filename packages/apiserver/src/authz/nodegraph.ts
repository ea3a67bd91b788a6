/**
 * NodeGraph: which objects each node may read because a pod bound to it references them — the
 * part of Kubernetes' node authorizer graph Setpoint needs: node ← pod ← secret | configmap |
 * serviceaccount. Fed by the pods' watch cache: every change of a pod replaces its edges.
 *
 * Guarantees: `references(node, kind, namespace, name)` is O(1) and reflects the cache as of the
 * last change it reported. The cache reports every object again after a relist, but not the
 * objects that went while it was away; the graph notices (it then holds more pods than the cache)
 * and rebuilds itself from the cache at the next question.
 */
import type { KubeObject } from '@setpoint/api';
import type { WatchCache } from '../watchcache/cache.js';

/** The kinds of object a pod makes readable to its node. */
export type ReferenceKind = 'secret' | 'configmap' | 'serviceaccount';

interface PodEdges {
  readonly node: string;
  readonly refs: readonly string[];
}

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? v.map(obj).filter((x): x is Json => x !== undefined) : [];
}

function nameAt(v: unknown, field = 'name'): string | undefined {
  const n = obj(v)?.[field];
  return typeof n === 'string' && n !== '' ? n : undefined;
}

/** The secrets, configmaps and service account a pod references (Kubernetes' VisitPodSecretNames and VisitPodConfigmapNames). */
export function podReferences(pod: KubeObject): { secrets: Set<string>; configMaps: Set<string>; serviceAccount: string } {
  const spec = obj(pod['spec']) ?? {};
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  const add = (set: Set<string>, name: string | undefined) => {
    if (name !== undefined) set.add(name);
  };
  for (const ref of arr(spec['imagePullSecrets'])) add(secrets, nameAt(ref));
  for (const field of ['initContainers', 'containers', 'ephemeralContainers']) {
    for (const c of arr(spec[field])) {
      for (const from of arr(c['envFrom'])) {
        add(secrets, nameAt(from['secretRef']));
        add(configMaps, nameAt(from['configMapRef']));
      }
      for (const env of arr(c['env'])) {
        const valueFrom = obj(env['valueFrom']);
        add(secrets, nameAt(valueFrom?.['secretKeyRef']));
        add(configMaps, nameAt(valueFrom?.['configMapKeyRef']));
      }
    }
  }
  for (const volume of arr(spec['volumes'])) {
    add(secrets, nameAt(volume['secret'], 'secretName'));
    add(configMaps, nameAt(volume['configMap']));
    add(secrets, nameAt(volume['azureFile'], 'secretName'));
    for (const source of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos']) add(secrets, nameAt(obj(volume[source])?.['secretRef']));
    add(secrets, nameAt(obj(volume['csi'])?.['nodePublishSecretRef']));
    for (const source of arr(obj(volume['projected'])?.['sources'])) {
      add(secrets, nameAt(source['secret']));
      add(configMaps, nameAt(source['configMap']));
    }
  }
  // The account the pod runs as: Kubernetes' ServiceAccount admission writes "default" into pods
  // that name none; Setpoint has no such admission, and its agent reads the pod the same way.
  const named = [spec['serviceAccountName'], spec['serviceAccount']].find((v): v is string => typeof v === 'string' && v !== '');
  return { secrets, configMaps, serviceAccount: named ?? 'default' };
}

function refKey(node: string, kind: ReferenceKind, namespace: string, name: string): string {
  return `${node}\u0000${kind}\u0000${namespace}\u0000${name}`;
}

function podKey(pod: KubeObject): string {
  return `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
}

export class NodeGraph {
  /** Every cached pod (unbound ones with node ''), so the count can be compared with the cache's. */
  private readonly podEdges = new Map<string, PodEdges>();
  /** node/kind/namespace/name → how many pods of that node reference it. */
  private readonly refs = new Map<string, number>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly pods: WatchCache) {}

  /** Builds the graph from the cache and follows its changes. */
  start(): void {
    this.unsubscribe ??= this.pods.onChange((pod) => {
      const ns = pod.metadata.namespace ?? '';
      const name = pod.metadata.name ?? '';
      this.set(`${ns}/${name}`, this.pods.get(ns, name));
    });
    this.rebuild();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Whether a pod bound to `node` references the object. */
  references(node: string, kind: ReferenceKind, namespace: string, name: string): boolean {
    if (this.podEdges.size !== this.pods.size) this.rebuild();
    return (this.refs.get(refKey(node, kind, namespace, name)) ?? 0) > 0;
  }

  /** Whether the pod namespace/name is bound to `node` (read from the cache). */
  podOnNode(node: string, namespace: string, name: string): boolean {
    const pod = this.pods.get(namespace, name);
    return pod !== undefined && obj(pod['spec'])?.['nodeName'] === node;
  }

  private rebuild(): void {
    this.podEdges.clear();
    this.refs.clear();
    for (const pod of this.pods.snapshot()) this.set(podKey(pod), pod);
  }

  private set(key: string, pod: KubeObject | undefined): void {
    const old = this.podEdges.get(key);
    if (old !== undefined) {
      for (const ref of old.refs) {
        const n = (this.refs.get(ref) ?? 1) - 1;
        if (n <= 0) this.refs.delete(ref);
        else this.refs.set(ref, n);
      }
      this.podEdges.delete(key);
    }
    if (pod === undefined) return;
    const nodeName = obj(pod['spec'])?.['nodeName'];
    const node = typeof nodeName === 'string' ? nodeName : '';
    const refs: string[] = [];
    if (node !== '') {
      const ns = pod.metadata.namespace ?? '';
      const found = podReferences(pod);
      for (const s of found.secrets) refs.push(refKey(node, 'secret', ns, s));
      for (const c of found.configMaps) refs.push(refKey(node, 'configmap', ns, c));
      refs.push(refKey(node, 'serviceaccount', ns, found.serviceAccount));
      for (const ref of refs) this.refs.set(ref, (this.refs.get(ref) ?? 0) + 1);
    }
    this.podEdges.set(key, { node, refs });
  }
}
