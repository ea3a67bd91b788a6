/**
 * ClusterCache: the nodes and the pods placed on them, as the next scheduling decision must see
 * them (kube-scheduler's internal cache, with its assume protocol).
 *
 * Expected flow: informer handlers call setNode/removeNode and setPod/removePod with what the API
 * says; the scheduler, having picked a node for a pod, calls assume(pod, node) before it sends the
 * binding, so the very next decision counts the pod there although no informer has seen the
 * binding yet; when the binding fails it calls forget(key).
 *
 * Guarantees: a pod is on at most one node. setPod of an assigned pod confirms an assumption (the
 * informer caught up) and moves the pod if it was bound elsewhere; forget only removes a pod that
 * is still only assumed, so a binding the informer has already confirmed is never forgotten.
 * Terminal pods (Succeeded, Failed) hold nothing and are not kept. Pods of a node the cache has not
 * seen are kept and count once the node appears.
 */
import type { Labels, Namespace, Node } from '@setpoint/api';
import { NodeInfo, withNodeName, type PodInfo } from './nodeinfo.js';

interface Placed {
  readonly info: PodInfo;
  assumed: boolean;
}

export class ClusterCache {
  /** Every entry: real nodes, and holders of pods whose node is unknown. */
  readonly #entries = new Map<string, NodeInfo>();
  /** Real nodes in the order they were first seen (rebuilt lazily). */
  #list: NodeInfo[] | undefined;
  readonly #placed = new Map<string, Placed>();
  /** Placed pods with required anti-affinity terms (the existing-anti-affinity check reads only these). */
  readonly #withAntiAffinity = new Set<string>();
  readonly #namespaces = new Map<string, Labels>();
  /** Bumped on every change a scheduling decision depends on. */
  generation = 0;

  /** The real nodes, in first-seen order. Do not modify. */
  nodes(): readonly NodeInfo[] {
    this.#list ??= [...this.#entries.values()].filter((n) => n.node !== undefined);
    return this.#list;
  }

  /** The NodeInfo of a real node, or undefined. */
  node(name: string): NodeInfo | undefined {
    const entry = this.#entries.get(name);
    return entry?.node === undefined ? undefined : entry;
  }

  /** Adds or updates a node (its pods already known stay on it). */
  setNode(node: Readonly<Node>): void {
    const name = node.metadata.name ?? '';
    const entry = this.#entries.get(name);
    if (entry === undefined) {
      this.#entries.set(name, new NodeInfo(name, node));
      this.#list = undefined;
    } else {
      if (entry.node === undefined) this.#list = undefined;
      entry.setNode(node);
    }
    this.generation++;
  }

  /** Removes a node from decisions; its pods stay accounted until they go. */
  removeNode(name: string): void {
    const entry = this.#entries.get(name);
    if (entry === undefined) return;
    if (entry.pods.size === 0) this.#entries.delete(name);
    else entry.node = undefined;
    this.#list = undefined;
    this.generation++;
  }

  /**
   * Records what the API says about an assigned pod (nodeName set): places it (confirming an
   * assumption), or removes it when it is terminal.
   */
  setPod(info: PodInfo): void {
    if (info.nodeName === '' || info.terminal) {
      this.removePod(info.key);
      return;
    }
    this.#place(info, false);
  }

  /** Removes a pod, assumed or not. Returns the removed PodInfo. */
  removePod(key: string): PodInfo | undefined {
    const placed = this.#placed.get(key);
    if (placed === undefined) return undefined;
    this.#placed.delete(key);
    this.#withAntiAffinity.delete(key);
    const entry = this.#entries.get(placed.info.nodeName);
    entry?.removePod(key);
    if (entry !== undefined && entry.node === undefined && entry.pods.size === 0) this.#entries.delete(entry.name);
    this.generation++;
    return placed.info;
  }

  /** Places a pod on `nodeName` before the API has confirmed it. */
  assume(info: PodInfo, nodeName: string): void {
    this.#place(withNodeName(info, nodeName), true);
  }

  /** Undoes assume(key) unless the informer has confirmed the pod meanwhile. Returns whether it did. */
  forget(key: string): boolean {
    const placed = this.#placed.get(key);
    if (placed === undefined || !placed.assumed) return false;
    this.removePod(key);
    return true;
  }

  /** Whether `key` is placed by assumption only (the informer has not shown it bound yet). */
  isAssumed(key: string): boolean {
    return this.#placed.get(key)?.assumed === true;
  }

  /** Whether `key` is placed (assumed or confirmed). */
  isPlaced(key: string): boolean {
    return this.#placed.has(key);
  }

  /** The placed pods that have required anti-affinity terms, with their nodes. */
  *podsWithRequiredAntiAffinity(): Iterable<PodInfo> {
    for (const key of this.#withAntiAffinity) {
      const placed = this.#placed.get(key);
      if (placed !== undefined) yield placed.info;
    }
  }

  /** Records a namespace's labels (namespaceSelector of pod affinity terms reads them). */
  setNamespace(ns: Readonly<Namespace>): void {
    this.#namespaces.set(ns.metadata.name ?? '', ns.metadata.labels ?? {});
    this.generation++;
  }

  /** Forgets a namespace's labels. */
  removeNamespace(name: string): void {
    this.#namespaces.delete(name);
  }

  /** A namespace's labels, or undefined when unknown. */
  namespaceLabels(name: string): Labels | undefined {
    return this.#namespaces.get(name);
  }

  #place(info: PodInfo, assumed: boolean): void {
    const old = this.#placed.get(info.key);
    if (old !== undefined && old.info.nodeName !== info.nodeName) this.removePod(info.key);
    let entry = this.#entries.get(info.nodeName);
    if (entry === undefined) this.#entries.set(info.nodeName, (entry = new NodeInfo(info.nodeName)));
    entry.addPod(info);
    this.#placed.set(info.key, { info, assumed });
    if (info.requiredAntiAffinity.length > 0) this.#withAntiAffinity.add(info.key);
    else this.#withAntiAffinity.delete(info.key);
    this.generation++;
  }
}
