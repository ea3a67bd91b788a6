/**
 * describe: a readable account of one object — kind-specific for pods, deployments, replicasets,
 * nodes and namespaces, the generic field tree for every other kind — followed by its Events.
 * Reads what each describer needs besides the object (ReplicaSets of a Deployment, pods of a node
 * or ReplicaSet, a node's Lease); a failure to read those extras leaves them out rather than fail.
 */
import type { KubeObject } from '@setpoint/api';
import { builtin, type Client } from '@setpoint/client';
import type { ResolvedType } from '../resources.js';
import { eventsFor, writeEvents } from './events.js';
import { describeGeneric } from './generic.js';
import { describeNode } from './node.js';
import { describePod } from './pod.js';
import { describeDeployment, describeNamespace, describeReplicaSet } from './workloads.js';
import { DescribeWriter } from './writer.js';

export { DescribeWriter, formatTime } from './writer.js';
export { smartLabel } from './generic.js';

async function orEmpty<T>(read: Promise<T[]>): Promise<T[]> {
  try {
    return await read;
  } catch {
    // Extras (owned ReplicaSets, a node's pods) are context; without them the description is still right.
    return [];
  }
}

/** The description of `obj` (of `type`), events included unless `showEvents` is false. */
export async function describeObject(client: Client, type: ResolvedType, obj: KubeObject, options: { showEvents: boolean; now: number }): Promise<string> {
  const w = new DescribeWriter();
  const key = `${type.ref.group}/${type.ref.resource}`;
  const namespace = obj.metadata?.namespace ?? '';
  switch (key) {
    case '/pods':
      describePod(obj, w);
      break;
    case 'apps/deployments': {
      const replicaSets = await orEmpty(client.replicaSets().listAll({ namespace }).then((l) => l.items));
      describeDeployment(obj, replicaSets, w);
      break;
    }
    case 'apps/replicasets': {
      const pods = await orEmpty(client.pods().listAll({ namespace }).then((l) => l.items));
      describeReplicaSet(obj, pods.filter((p) => (p.metadata.ownerReferences ?? []).some((o) => o.uid === obj.metadata?.uid)), w);
      break;
    }
    case '/nodes': {
      const name = obj.metadata?.name ?? '';
      const pods = await orEmpty(client.pods().listAll({ fieldSelector: `spec.nodeName=${name}` }).then((l) => l.items));
      const lease = (await orEmpty(client.resource(builtin.leases).list({ namespace: 'kube-node-lease', fieldSelector: `metadata.name=${name}` }).then((l) => l.items)))[0];
      describeNode(obj, pods, lease, options.now, w);
      break;
    }
    case '/namespaces':
      describeNamespace(obj, w);
      break;
    default:
      describeGeneric(obj, w);
  }
  if (options.showEvents) writeEvents(w, await orEmpty(eventsFor(client, obj)), options.now);
  return w.toString();
}
