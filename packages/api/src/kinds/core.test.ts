import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease } from './coordination.js';
import type { ConfigMap, Event, Namespace, Node, Secret, ServiceAccount } from './core.js';

// These objects are written as kubectl prints them; the `satisfies` checks are the test (tsc), the
// assertions only that the shapes survive JSON unchanged.
const namespace = {
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', labels: { 'kubernetes.io/metadata.name': 'team-a' } },
  spec: { finalizers: ['kubernetes'] },
  status: { phase: 'Active', conditions: [{ type: 'NamespaceContentRemaining', status: 'False', lastTransitionTime: '2026-01-01T00:00:00Z' }] },
} satisfies Namespace;

const configMap = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'cfg', namespace: 'default' },
  data: { 'app.properties': 'a=1' },
  binaryData: { 'logo.png': 'iVBORw0KGgo=' },
  immutable: true,
} satisfies ConfigMap;

const secret = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'tls', namespace: 'default' },
  type: 'kubernetes.io/tls',
  data: { 'tls.crt': 'Y2VydA==', 'tls.key': 'a2V5' },
  stringData: { extra: 'plain' },
} satisfies Secret;

const event = {
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'p.17a2', namespace: 'default' },
  involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p', uid: 'u1', fieldPath: 'spec.containers{c}' },
  reason: 'Scheduled',
  message: 'Successfully assigned default/p to n1',
  source: { component: 'default-scheduler' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:00:00Z',
  count: 1,
  type: 'Normal',
  eventTime: '2026-01-01T00:00:00.000000Z',
  series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.000000Z' },
  action: 'Binding',
  reportingComponent: 'default-scheduler',
  reportingInstance: 'sched-1',
} satisfies Event;

const serviceAccount = {
  apiVersion: 'v1',
  kind: 'ServiceAccount',
  metadata: { name: 'default', namespace: 'default' },
  secrets: [{ name: 'token' }],
  imagePullSecrets: [{ name: 'registry' }],
  automountServiceAccountToken: false,
} satisfies ServiceAccount;

const node = {
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: 'n1' },
  spec: { podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24'], providerID: 'setpoint://n1', unschedulable: false, taints: [{ key: 'k', effect: 'NoSchedule' }] },
  status: {
    capacity: { cpu: '4', memory: '8Gi', pods: '110' },
    allocatable: { cpu: '3800m', memory: '7Gi', pods: '110' },
    phase: 'Running',
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'KubeletReady' }],
    addresses: [{ type: 'InternalIP', address: '10.1.0.5' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: 'm',
      systemUUID: 's',
      bootID: 'b',
      kernelVersion: '6.1',
      osImage: 'Linux',
      containerRuntimeVersion: 'setpoint://0.1.0',
      kubeletVersion: 'v1.32.0',
      kubeProxyVersion: '',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
    images: [{ names: ['nginx:1.27'], sizeBytes: 1000 }],
  },
} satisfies Node;

const lease = {
  apiVersion: 'coordination.k8s.io/v1',
  kind: 'Lease',
  metadata: { name: 'n1', namespace: 'kube-node-lease' },
  spec: { holderIdentity: 'n1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.123456Z', acquireTime: '2026-01-01T00:00:00.000000Z', leaseTransitions: 0 },
} satisfies Lease;

describe('kinds', () => {
  for (const [name, obj] of Object.entries({ namespace, configMap, secret, event, serviceAccount, node, lease })) {
    it(`${name} round-trips through JSON`, () => assert.deepEqual(JSON.parse(JSON.stringify(obj)), obj));
  }

  it('keeps fields a newer Kubernetes adds', () => {
    const future: Node = { metadata: { name: 'n2' }, spec: {}, newField: { x: 1 } };
    assert.deepEqual(future['newField'], { x: 1 });
  });
});
