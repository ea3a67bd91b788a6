/**
 * describe for pods (and the pod template sections of workloads), after kubectl's pod describer:
 * where the pod runs, its status and IP, who controls it, each container (image, command, ports,
 * state, readiness, restarts, environment, mounts), conditions, volumes, QoS, node selectors and
 * tolerations.
 */
import type { KubeObject } from '@setpoint/api';
import { type DescribeWriter, formatTime, rec, recs, stringMap, text } from './writer.js';

type Obj = Record<string, unknown>;

/** "ReplicaSet/web-7d9c" of the controller owner reference, if any. */
export function controlledBy(obj: KubeObject): string | undefined {
  const owner = recs(obj.metadata?.ownerReferences).find((o) => o['controller'] === true);
  return owner === undefined ? undefined : `${text(owner['kind'])}/${text(owner['name'])}`;
}

function ports(container: Obj, key: 'containerPort' | 'hostPort'): string {
  const list = recs(container['ports']).map((p) => `${text(p[key] ?? 0)}/${text(p['protocol'] ?? 'TCP')}`);
  return list.length === 0 ? '<none>' : list.join(', ');
}

function writeState(w: DescribeWriter, level: number, label: string, state: Obj | undefined): void {
  const running = rec(state?.['running']);
  const waiting = rec(state?.['waiting']);
  const terminated = rec(state?.['terminated']);
  if (running !== undefined) {
    w.line(level, `${label}:`, 'Running');
    w.line(level + 1, 'Started:', formatTime(running['startedAt']));
  } else if (waiting !== undefined) {
    w.line(level, `${label}:`, 'Waiting');
    w.line(level + 1, 'Reason:', text(waiting['reason']));
    if (text(waiting['message']) !== '') w.line(level + 1, 'Message:', text(waiting['message']));
  } else if (terminated !== undefined) {
    w.line(level, `${label}:`, 'Terminated');
    w.line(level + 1, 'Reason:', text(terminated['reason']));
    if (text(terminated['message']) !== '') w.line(level + 1, 'Message:', text(terminated['message']));
    w.line(level + 1, 'Exit Code:', text(terminated['exitCode'] ?? 0));
    w.line(level + 1, 'Started:', formatTime(terminated['startedAt']));
    w.line(level + 1, 'Finished:', formatTime(terminated['finishedAt']));
  } else {
    w.line(level, `${label}:`, 'Waiting');
  }
}

function envText(env: Obj): string {
  if (env['value'] !== undefined) return text(env['value']);
  const from = rec(env['valueFrom']);
  const field = rec(from?.['fieldRef']);
  if (field !== undefined) return `(${text(field['apiVersion'] ?? 'v1')}:${text(field['fieldPath'])})`;
  const cm = rec(from?.['configMapKeyRef']);
  if (cm !== undefined) return `<set to the key '${text(cm['key'])}' of config map '${text(cm['name'])}'>`;
  const secret = rec(from?.['secretKeyRef']);
  if (secret !== undefined) return `<set to the key '${text(secret['key'])}' in secret '${text(secret['name'])}'>`;
  return '';
}

/** The Containers (or Init Containers) section; `statuses` adds state, readiness and restarts. */
export function writeContainers(w: DescribeWriter, level: number, title: string, containers: readonly Obj[], statuses: readonly Obj[] | undefined): void {
  if (containers.length === 0) return;
  w.line(level, `${title}:`);
  for (const c of containers) {
    const name = text(c['name']);
    const status = statuses?.find((s) => s['name'] === name);
    w.line(level + 1, `${name}:`);
    const at = level + 2;
    if (status !== undefined) w.line(at, 'Container ID:', text(status['containerID']));
    w.line(at, 'Image:', text(c['image']));
    if (status !== undefined) w.line(at, 'Image ID:', text(status['imageID']));
    w.line(at, recs(c['ports']).length > 1 ? 'Ports:' : 'Port:', ports(c, 'containerPort'));
    w.line(at, recs(c['ports']).length > 1 ? 'Host Ports:' : 'Host Port:', ports(c, 'hostPort'));
    for (const [label, key] of [['Command', 'command'], ['Args', 'args']] as const) {
      const list = Array.isArray(c[key]) ? (c[key] as unknown[]) : [];
      if (list.length === 0) continue;
      w.line(at, `${label}:`);
      for (const part of list) w.line(at + 1, text(part));
    }
    if (status !== undefined) {
      writeState(w, at, 'State', rec(status['state']));
      const last = rec(status['lastState']);
      if (last !== undefined && Object.keys(last).length > 0) writeState(w, at, 'Last State', last);
      w.line(at, 'Ready:', status['ready'] === true ? 'True' : 'False');
      w.line(at, 'Restart Count:', text(status['restartCount'] ?? 0));
    }
    const resources = rec(c['resources']);
    for (const [label, key] of [['Limits', 'limits'], ['Requests', 'requests']] as const) {
      const map = stringMap(resources?.[key]);
      if (Object.keys(map).length === 0) continue;
      w.line(at, `${label}:`);
      for (const k of Object.keys(map).sort()) w.line(at + 1, `${k}:`, map[k]!);
    }
    const probe = rec(c['readinessProbe']);
    if (probe !== undefined) w.line(at, 'Readiness:', probeText(probe));
    const liveness = rec(c['livenessProbe']);
    if (liveness !== undefined) w.line(at, 'Liveness:', probeText(liveness));
    const env = recs(c['env']);
    if (env.length === 0) w.line(at, 'Environment:', '<none>');
    else {
      w.line(at, 'Environment:');
      for (const e of env) w.line(at + 1, `${text(e['name'])}:`, envText(e));
    }
    const mounts = recs(c['volumeMounts']);
    if (mounts.length === 0) w.line(at, 'Mounts:', '<none>');
    else {
      w.line(at, 'Mounts:');
      for (const m of mounts) w.line(at + 1, `${text(m['mountPath'])} from ${text(m['name'])} (${m['readOnly'] === true ? 'ro' : 'rw'})`);
    }
  }
}

function probeText(probe: Obj): string {
  const http = rec(probe['httpGet']);
  const tcp = rec(probe['tcpSocket']);
  const exec = rec(probe['exec']);
  const action = http !== undefined
    ? `http-get ${text(http['scheme'] ?? 'HTTP').toLowerCase()}://${text(http['host'] ?? '')}:${text(http['port'])}${text(http['path'] ?? '')}`
    : tcp !== undefined
      ? `tcp-socket :${text(tcp['port'])}`
      : exec !== undefined
        ? `exec [${(Array.isArray(exec['command']) ? exec['command'] : []).map(text).join(' ')}]`
        : 'unknown';
  const n = (k: string, d: number) => (typeof probe[k] === 'number' ? (probe[k] as number) : d);
  return `${action} delay=${n('initialDelaySeconds', 0)}s timeout=${n('timeoutSeconds', 1)}s period=${n('periodSeconds', 10)}s #success=${n('successThreshold', 1)} #failure=${n('failureThreshold', 3)}`;
}

/** Volumes of a pod spec, one line each with its source kind. */
export function writeVolumes(w: DescribeWriter, level: number, spec: Obj | undefined): void {
  const volumes = recs(spec?.['volumes']);
  if (volumes.length === 0) {
    w.line(level, 'Volumes:', '<none>');
    return;
  }
  w.line(level, 'Volumes:');
  for (const v of volumes) {
    w.line(level + 1, `${text(v['name'])}:`);
    const source = Object.keys(v).find((k) => k !== 'name');
    if (source !== undefined) w.line(level + 2, 'Type:', source);
  }
}

function qosClass(pod: KubeObject): string {
  const status = rec((pod as Obj)['status']);
  if (text(status?.['qosClass']) !== '') return text(status?.['qosClass']);
  const containers = recs(rec((pod as Obj)['spec'])?.['containers']);
  const any = containers.some((c) => Object.keys(stringMap(rec(c['resources'])?.['requests'])).length > 0 || Object.keys(stringMap(rec(c['resources'])?.['limits'])).length > 0);
  return any ? 'Burstable' : 'BestEffort';
}

/** The description of a pod (without its events). */
export function describePod(pod: KubeObject, w: DescribeWriter): void {
  const spec = rec((pod as Obj)['spec']);
  const status = rec((pod as Obj)['status']);
  w.line(0, 'Name:', pod.metadata?.name ?? '');
  w.line(0, 'Namespace:', pod.metadata?.namespace ?? '');
  if (typeof spec?.['priority'] === 'number') w.line(0, 'Priority:', spec['priority']);
  if (text(spec?.['serviceAccountName']) !== '') w.line(0, 'Service Account:', text(spec?.['serviceAccountName']));
  const node = text(spec?.['nodeName']);
  w.line(0, 'Node:', node === '' ? '<none>' : `${node}/${text(status?.['hostIP'])}`);
  if (text(status?.['startTime']) !== '') w.line(0, 'Start Time:', formatTime(status?.['startTime']));
  w.labels(0, 'Labels', pod.metadata?.labels);
  w.annotations(0, pod.metadata?.annotations);
  const phase = text(status?.['phase']);
  w.line(0, 'Status:', pod.metadata?.deletionTimestamp !== undefined && phase !== 'Failed' && phase !== 'Succeeded' ? 'Terminating' : phase);
  if (text(status?.['reason']) !== '') w.line(0, 'Reason:', text(status?.['reason']));
  if (text(status?.['message']) !== '') w.line(0, 'Message:', text(status?.['message']));
  w.line(0, 'IP:', text(status?.['podIP']));
  const ips = recs(status?.['podIPs']);
  if (ips.length === 0) w.line(0, 'IPs:', '<none>');
  else {
    w.line(0, 'IPs:');
    for (const ip of ips) w.line(1, 'IP:', text(ip['ip']));
  }
  const owner = controlledBy(pod);
  if (owner !== undefined) w.line(0, 'Controlled By:', owner);
  writeContainers(w, 0, 'Init Containers', recs(spec?.['initContainers']), recs(status?.['initContainerStatuses']));
  writeContainers(w, 0, 'Containers', recs(spec?.['containers']), recs(status?.['containerStatuses']));
  const conditions = recs(status?.['conditions']);
  if (conditions.length > 0) {
    w.line(0, 'Conditions:');
    w.line(1, 'Type', 'Status');
    for (const c of conditions) w.line(1, text(c['type']), text(c['status']));
  }
  writeVolumes(w, 0, spec);
  w.line(0, 'QoS Class:', qosClass(pod));
  w.labels(0, 'Node-Selectors', stringMap(spec?.['nodeSelector']));
  const tolerations = recs(spec?.['tolerations']).map((t) => {
    const key = text(t['key']);
    const op = text(t['operator']) === 'Exists' ? (key === '' ? 'op=Exists' : `${key}:${text(t['effect'])} op=Exists`) : `${key}=${text(t['value'])}:${text(t['effect'])}`;
    return typeof t['tolerationSeconds'] === 'number' ? `${op} for ${t['tolerationSeconds']}s` : op;
  });
  if (tolerations.length === 0) w.line(0, 'Tolerations:', '<none>');
  else tolerations.forEach((t, i) => w.line(0, i === 0 ? 'Tolerations:' : '', t));
}
