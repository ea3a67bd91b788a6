/**
 * A stand-in for a node agent in controller tests: every pod that exists (bound or not) is bound
 * to `nodeName` if unbound, then marked Running and Ready, after an optional delay. Pods being
 * deleted are removed at once (as an agent would after stopping them). Until the node agent and
 * the scheduler exist, this is what makes a ReplicaSet's pods become ready.
 */
import type { Pod } from '@setpoint/api';
import type { Client } from '@setpoint/client';

export interface FakeNodeOptions {
  readonly nodeName?: string;
  /** Only pods in this namespace. Default all. */
  readonly namespace?: string;
  /** Decides whether a pod becomes Ready (default: every pod). */
  readonly ready?: (pod: Pod) => boolean;
}

/** Runs until `signal` aborts. */
export async function runFakeNode(client: Client, signal: AbortSignal, options: FakeNodeOptions = {}): Promise<void> {
  const nodeName = options.nodeName ?? 'fake-node';
  const pods = client.pods();
  const handle = async (pod: Pod) => {
    const { name, namespace } = pod.metadata;
    if (name === undefined || namespace === undefined) return;
    try {
      if (pod.metadata.deletionTimestamp !== undefined) {
        await pods.delete(name, { namespace, gracePeriodSeconds: 0 });
        return;
      }
      if (!pod.spec?.nodeName) {
        await pods.createSubresource(name, 'binding', { apiVersion: 'v1', kind: 'Binding', metadata: { name, namespace }, target: { kind: 'Node', name: nodeName } }, { namespace });
        return;
      }
      const ready = options.ready?.(pod) ?? true;
      const phase = pod.status?.phase;
      const isReady = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === (ready ? 'True' : 'False'));
      if (phase === 'Running' && isReady) return;
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      await pods.updateStatus({
        ...pod,
        status: {
          ...pod.status,
          phase: 'Running',
          startTime: pod.status?.startTime ?? now,
          conditions: [
            { type: 'PodScheduled', status: 'True', lastTransitionTime: now },
            { type: 'Initialized', status: 'True', lastTransitionTime: now },
            { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: now },
            { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now },
          ],
        },
      });
    } catch {
      // A conflict or a pod gone meanwhile: the next event for it comes through the watch.
    }
  };
  for (;;) {
    if (signal.aborted) return;
    try {
      const list = await pods.list({ ...(options.namespace ? { namespace: options.namespace } : {}) });
      for (const pod of list.items) void handle(pod);
      for await (const event of pods.watch({ ...(options.namespace ? { namespace: options.namespace } : {}), resourceVersion: list.metadata.resourceVersion, signal })) {
        if (event.type === 'ADDED' || event.type === 'MODIFIED') void handle(event.object);
      }
    } catch {
      if (signal.aborted) return;
    }
  }
}
