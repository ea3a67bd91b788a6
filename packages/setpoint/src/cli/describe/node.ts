/**
 * describe for Nodes, after kubectl's: roles, taints, its Lease, conditions, addresses, capacity and
 * allocatable, system info, and the pods bound to it that have not finished.
 */
import type { KubeObject } from '@setpoint/api';
import { since } from '../duration.js';
import { type DescribeWriter, formatTime, rec, recs, stringMap, text } from './writer.js';

type Obj = Record<string, unknown>;

const ROLE_PREFIX = 'node-role.kubernetes.io/';

function roles(node: KubeObject): string {
  const labels = node.metadata?.labels ?? {};
  const out = Object.keys(labels).filter((k) => k.startsWith(ROLE_PREFIX) && k.length > ROLE_PREFIX.length).map((k) => k.slice(ROLE_PREFIX.length));
  if (labels['kubernetes.io/role'] !== undefined && labels['kubernetes.io/role'] !== '') out.push(labels['kubernetes.io/role']);
  return out.length === 0 ? '<none>' : out.sort().join(',');
}

function writeResources(w: DescribeWriter, title: string, list: Record<string, string>): void {
  const keys = Object.keys(list).sort();
  if (keys.length === 0) return;
  w.line(0, `${title}:`);
  for (const k of keys) w.line(1, `${k}:`, list[k]!);
}

/** The description of a Node (without events); `pods` are those bound to it, `lease` its Lease if found. */
export function describeNode(node: KubeObject, pods: readonly KubeObject[], lease: KubeObject | undefined, now: number, w: DescribeWriter): void {
  const spec = rec((node as Obj)['spec']);
  const status = rec((node as Obj)['status']);
  w.line(0, 'Name:', node.metadata?.name ?? '');
  w.line(0, 'Roles:', roles(node));
  w.labels(0, 'Labels', node.metadata?.labels);
  w.annotations(0, node.metadata?.annotations);
  w.line(0, 'CreationTimestamp:', formatTime(node.metadata?.creationTimestamp));
  const taints = recs(spec?.['taints']).map((t) => `${text(t['key'])}${text(t['value']) === '' ? '' : `=${text(t['value'])}`}:${text(t['effect'])}`);
  if (taints.length === 0) w.line(0, 'Taints:', '<none>');
  else taints.forEach((t, i) => w.line(0, i === 0 ? 'Taints:' : '', t));
  w.line(0, 'Unschedulable:', spec?.['unschedulable'] === true ? 'true' : 'false');
  if (lease !== undefined) {
    const ls = rec((lease as Obj)['spec']);
    w.line(0, 'Lease:');
    w.line(1, 'HolderIdentity:', text(ls?.['holderIdentity']) || '<unset>');
    w.line(1, 'AcquireTime:', formatTime(ls?.['acquireTime']));
    w.line(1, 'RenewTime:', formatTime(ls?.['renewTime']));
  }
  const conditions = recs(status?.['conditions']);
  if (conditions.length > 0) {
    w.line(0, 'Conditions:');
    w.table(
      1,
      ['Type', 'Status', 'LastHeartbeatTime', 'LastTransitionTime', 'Reason', 'Message'],
      conditions.map((c) => [text(c['type']), text(c['status']), formatTime(c['lastHeartbeatTime']), formatTime(c['lastTransitionTime']), text(c['reason']), text(c['message'])]),
    );
  }
  const addresses = recs(status?.['addresses']);
  if (addresses.length > 0) {
    w.line(0, 'Addresses:');
    for (const a of addresses) w.line(1, `${text(a['type'])}:`, text(a['address']));
  }
  writeResources(w, 'Capacity', stringMap(status?.['capacity']));
  writeResources(w, 'Allocatable', stringMap(status?.['allocatable']));
  const info = rec(status?.['nodeInfo']);
  if (info !== undefined) {
    w.line(0, 'System Info:');
    const labels: Array<[string, string]> = [
      ['Machine ID', 'machineID'],
      ['System UUID', 'systemUUID'],
      ['Boot ID', 'bootID'],
      ['Kernel Version', 'kernelVersion'],
      ['OS Image', 'osImage'],
      ['Operating System', 'operatingSystem'],
      ['Architecture', 'architecture'],
      ['Container Runtime Version', 'containerRuntimeVersion'],
      ['Kubelet Version', 'kubeletVersion'],
    ];
    for (const [label, key] of labels) w.line(1, `${label}:`, text(info[key]));
  }
  if (text(spec?.['podCIDR']) !== '') w.line(0, 'PodCIDR:', text(spec?.['podCIDR']));
  const running = pods.filter((p) => {
    const phase = text(rec((p as Obj)['status'])?.['phase']);
    return phase !== 'Succeeded' && phase !== 'Failed';
  });
  w.line(0, 'Non-terminated Pods:', `(${running.length} in total)`);
  if (running.length > 0) {
    const rows = running.map((p) => {
      const containers = recs(rec((p as Obj)['spec'])?.['containers']);
      const sum = (kind: 'requests' | 'limits', res: string) => {
        const values = containers.map((c) => stringMap(rec(c['resources'])?.[kind])[res]).filter((v): v is string => v !== undefined);
        return values.length === 0 ? '0 (0%)' : values.join('+');
      };
      return [p.metadata?.namespace ?? '', p.metadata?.name ?? '', sum('requests', 'cpu'), sum('limits', 'cpu'), sum('requests', 'memory'), sum('limits', 'memory'), since(p.metadata?.creationTimestamp, now)];
    });
    w.table(1, ['Namespace', 'Name', 'CPU Requests', 'CPU Limits', 'Memory Requests', 'Memory Limits', 'Age'], rows);
  }
}
