/**
 * `setpoint describe` against an in-process control plane: the generic field tree with kubectl's
 * labels and alignment, the Events found through involvedObject field selectors, and the pod,
 * deployment and node sections.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ConfigMap, Deployment, Event, Node, Pod, ReplicaSet } from '@setpoint/api';
import { smartLabel } from '../src/cli/describe/index.js';
import { startCliFixture, type CliFixture } from './cli-support.js';

describe('setpoint describe', () => {
  let f: CliFixture;
  before(async () => {
    f = await startCliFixture();
  });
  after(async () => {
    await f[Symbol.asyncDispose]();
  });

  const event = async (name: string, involved: { kind: string; name: string; namespace?: string; uid?: string }, extra: Partial<Event> = {}) => {
    const now = Date.now();
    await f.cp.client.events().create({
      metadata: { name, namespace: involved.namespace ?? 'default' },
      involvedObject: { ...involved, namespace: involved.namespace ?? 'default' },
      reason: 'Tested',
      message: 'it happened  ',
      type: 'Normal',
      source: { component: 'tester' },
      // 15 minutes prints as "15m" for a whole minute (kubectl's HumanDuration), however slow the machine.
      firstTimestamp: new Date(now - 15 * 60_000).toISOString(),
      lastTimestamp: new Date(now - 30_000).toISOString(),
      count: 3,
      ...extra,
    } as Event);
  };

  it('describes any kind as kubectl does: labels, annotations, the field tree, then its events', async () => {
    const obj = await f.cp.client.configMaps().create({
      metadata: { name: 'settings', namespace: 'default', labels: { app: 'web', tier: 'front' }, annotations: { 'example.com/note': 'keep' } },
      data: { logLevel: 'debug' },
    } as ConfigMap);
    await event('settings.1', { kind: 'ConfigMap', name: 'settings', uid: obj.metadata.uid! });
    await event('other.1', { kind: 'ConfigMap', name: 'settings', uid: 'another-object-of-that-name' });
    const r = await f.run(['describe', 'configmap', 'settings']);
    assert.equal(r.code, 0);
    const expected = [
      'Name:         settings',
      'Namespace:    default',
      'Labels:       app=web',
      '              tier=front',
      'Annotations:  example.com/note: keep',
      'API Version:  v1',
      'Data:',
      '  Log Level:  debug',
      'Kind:         ConfigMap',
      'Metadata:',
      `  Creation Timestamp:  ${obj.metadata.creationTimestamp}`,
      '  Generation:          1',
      `  Resource Version:    ${obj.metadata.resourceVersion}`,
      `  UID:                 ${obj.metadata.uid}`,
      'Events:',
      '  Type    Reason  Age                From    Message',
      '  ----    ------  ----               ----    -------',
      '  Normal  Tested  30s (x3 over 15m)  tester  it happened',
      '',
    ].join('\n');
    assert.equal(r.stdout.replace(/\b3[0-9]s \(x3/, '30s (x3'), expected);
  });

  it('describes pods: node, status, containers, conditions', async () => {
    await f.cp.client.pods().create({
      metadata: { name: 'web-1', namespace: 'default', labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'example/web:1', command: ['node', 'server.js'], ports: [{ containerPort: 8080 }], env: [{ name: 'MODE', value: 'prod' }] }] },
    } as Pod);
    const r = await f.run(['describe', 'pod/web-1', '--no-show-events']);
    assert.equal(r.code, 0);
    for (const line of [/^Name:\s+web-1$/m, /^Node:\s+<none>$/m, /^Status:\s+Pending$/m, /^Containers:\n {2}web:\n {4}Image:\s+example\/web:1\n {4}Port:\s+8080\/TCP\n/m, /^ {4}Command:\n {6}node\n {6}server\.js$/m, /^ {6}MODE:\s+prod$/m, /^QoS Class:\s+BestEffort$/m]) {
      assert.match(r.stdout, line);
    }
    assert.doesNotMatch(r.stdout, /Events:/);
  });

  it('describes deployments with their replica counts and new ReplicaSet', async () => {
    const d = await f.cp.client.deployments().create({
      metadata: { name: 'web', namespace: 'default', annotations: { 'deployment.kubernetes.io/revision': '1' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'example/web:1' }] } } },
    } as Deployment);
    await f.cp.client.replicaSets().create({
      metadata: { name: 'web-abc', namespace: 'default', annotations: { 'deployment.kubernetes.io/revision': '1' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d.metadata.uid!, controller: true }] },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'example/web:1' }] } } },
    } as ReplicaSet);
    const r = await f.run(['describe', 'deploy', 'web']);
    assert.match(r.stdout, /^Selector:\s+app=web$/m);
    assert.match(r.stdout, /^Replicas:\s+2 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m);
    assert.match(r.stdout, /^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m);
    assert.match(r.stdout, /^NewReplicaSet:\s+web-abc \(0\/2 replicas created\)$/m);
    assert.match(r.stdout, /^Events:\s+<none>\n$/m);
    const rs = await f.run(['describe', 'rs', 'web-abc']);
    assert.match(rs.stdout, /^Controlled By:\s+Deployment\/web$/m);
  });

  it('describes nodes with their taints, conditions and pods', async () => {
    await f.cp.client.nodes().create({ metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/worker': '' } }, spec: { taints: [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }] } } as Node);
    const node = await f.cp.client.nodes().get('n1');
    await f.cp.client.nodes().updateStatus({ ...node, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready' }], capacity: { cpu: '4', pods: '110' } } } as Node);
    await f.cp.client.pods().create({ metadata: { name: 'on-n1', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: '100m' } } }] } } as Pod);
    const r = await f.run(['describe', 'node', 'n1']);
    assert.match(r.stdout, /^Roles:\s+worker$/m);
    assert.match(r.stdout, /^Taints:\s+dedicated=db:NoSchedule$/m);
    assert.match(r.stdout, /^ {2}Ready\s+True\s+<unset>\s+<unset>\s+KubeletReady\s+ready$/m);
    assert.match(r.stdout, /^Capacity:\n {2}cpu:\s+4\n {2}pods:\s+110$/m);
    assert.match(r.stdout, /^Non-terminated Pods:\s+\(1 in total\)$/m);
    assert.match(r.stdout, /^ {2}default\s+on-n1\s+100m\s+0 \(0%\)/m);
  });

  it('describes every object of a type, a blank line between, and reports a missing one', async () => {
    const all = await f.run(['describe', 'namespaces', '--no-show-events']);
    assert.equal(all.code, 0);
    assert.equal(all.stdout.split('\n\n\nName:').length, 4, 'default, kube-node-lease, kube-public, kube-system');
    const missing = await f.run(['describe', 'cm', 'nope']);
    assert.deepEqual([missing.code, missing.stderr], [1, 'error: configmaps "nope" not found\n']);
  });

  it('spells fields as kubectl does', () => {
    assert.equal(smartLabel('creationTimestamp'), 'Creation Timestamp');
    assert.equal(smartLabel('apiVersion'), 'API Version');
    assert.equal(smartLabel('uid'), 'UID');
    assert.equal(smartLabel('podIP'), 'Pod IP');
    assert.equal(smartLabel('example.com/key'), 'example.com/key');
  });
});
