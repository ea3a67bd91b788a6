/**
 * The dashboard's browser-independent parts, run in Node: the reflector against a real API server
 * (list, watch, resume after a disconnect, relist after 410), metrics parsing and the figures of
 * the Controllers page, and finding a field's line in the editor's YAML.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startControlPlane } from '@setpoint/testing';
import { ApiClient } from '../src/api/client.js';
import { controllerStats, parsePrometheus, quantile } from '../src/api/metrics.js';
import { Reflector } from '../src/api/reflector.js';
import { isTableRow, type KubeObject } from '../src/api/types.js';
import { applyConfiguration, lineOfField, yamlProblems } from '../src/api/yaml.js';
import { waitFor } from './support.js';

const names = (r: Reflector<KubeObject>) => [...r.items.values()].map((o) => o.metadata.name).sort();

describe('Reflector', () => {
  it('lists, watches, resumes from its resourceVersion after a disconnect, and relists after 410', async () => {
    // A watch cache window of one event: a watch from an older resourceVersion is served from the
    // store's history, which compaction removes.
    await using cp = await startControlPlane({ watchCache: { windowSize: 1 } });
    const cms = cp.client.configMaps();
    await cp.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'r' } });
    for (const name of ['a', 'b', 'c']) await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'r' } });
    let changes = 0;
    const reflector = new Reflector<KubeObject>(new ApiClient('unused', () => {}, cp.url), { path: '/api/v1/namespaces/r/configmaps', pageSize: 2, throttleMs: 5 }, () => changes++);
    reflector.start();
    try {
      await waitFor('the first list (two pages)', () => reflector.synced && reflector.phase === 'watching');
      assert.deepEqual(names(reflector), ['a', 'b', 'c']);
      await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd', namespace: 'r' } });
      await cms.delete('a', { namespace: 'r' });
      await waitFor('the watched changes', () => names(reflector).join() === 'b,c,d');
      assert.ok(changes > 0);

      // The server restarts: the watch resumes from the last resourceVersion, no relist.
      await cp.restart();
      await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'e', namespace: 'r' } });
      await waitFor('the change after the restart', () => names(reflector).join() === 'b,c,d,e', 20_000);
      assert.equal(reflector.lists, 1, 'resumed, not relisted');
      assert.ok(reflector.watches >= 2);

      // Down while history is compacted past its resourceVersion: 410, then a fresh list.
      await cp.server.stop();
      await waitFor('the reflector to wait before retrying (1 s)', () => reflector.phase === 'retrying');
      await cp.restart();
      await cms.delete('b', { namespace: 'r' });
      await cms.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'f', namespace: 'r' } });
      await cp.store.compact(await cp.store.currentRevision());
      await waitFor('the relist', () => reflector.lists === 2 && names(reflector).join() === 'c,d,e,f', 30_000);
      assert.equal(reflector.error, undefined);
    } finally {
      reflector.stop();
    }
  });

  it('keeps Tables in table mode, and stops on a 400', async () => {
    await using cp = await startControlPlane();
    await cp.client.configMaps().create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' }, data: { k: 'v' } });
    const client = new ApiClient('unused', () => {}, cp.url);
    const table = new Reflector(client, { path: '/api/v1/namespaces/default/configmaps', table: true, throttleMs: 5 }, () => {});
    const bad = new Reflector(client, { path: '/api/v1/configmaps', labelSelector: 'app in (', throttleMs: 5 }, () => {});
    table.start();
    bad.start();
    try {
      await waitFor('the table', () => table.synced && table.items.size === 1);
      assert.deepEqual(
        table.columns.map((c) => c.name),
        ['Name', 'Data', 'Age'],
      );
      const [row] = [...table.items.values()];
      assert.ok(row !== undefined && isTableRow(row));
      assert.equal(row.cells[0], 'x');
      assert.equal(row.object?.metadata.name, 'x');
      await waitFor('the 400 to end it', () => bad.phase === 'failed');
      assert.match(String((bad.error as Error).message), /unable to parse requirement|found|selector/i);
    } finally {
      table.stop();
      bad.stop();
    }
  });
});

describe('metrics', () => {
  const text = (total: number, errors: number, sum: number, count: number, le005: number) => `# HELP workqueue_depth Current depth.
# TYPE workqueue_depth gauge
workqueue_depth{name="replicaset"} 4
controller_runtime_reconcile_total{controller="replicaset",result="success"} ${total - errors}
controller_runtime_reconcile_total{controller="replicaset",result="error"} ${errors}
controller_runtime_reconcile_errors_total{controller="replicaset"} ${errors}
controller_runtime_reconcile_time_seconds_bucket{le="0.001",controller="replicaset"} 0
controller_runtime_reconcile_time_seconds_bucket{le="0.005",controller="replicaset"} ${le005}
controller_runtime_reconcile_time_seconds_bucket{le="+Inf",controller="replicaset"} ${count}
controller_runtime_reconcile_time_seconds_sum{controller="replicaset"} ${sum}
controller_runtime_reconcile_time_seconds_count{controller="replicaset"} ${count}
controller_runtime_active_workers{controller="replicaset"} 1
controller_runtime_max_concurrent_reconciles{controller="replicaset"} 5
leader_election_master_status{name="setpoint-controller-manager"} 1
label_escapes{a="x\\"y",b="line\\nbreak"} 2.5e-3
`;

  it('parses the exposition format, labels with escapes included', () => {
    const samples = parsePrometheus(text(10, 1, 0.02, 10, 9));
    assert.equal(samples.find((s) => s.name === 'workqueue_depth')?.value, 4);
    assert.deepEqual(samples.find((s) => s.name === 'label_escapes'), { name: 'label_escapes', labels: { a: 'x"y', b: 'line\nbreak' }, value: 0.0025 });
  });

  it('computes rates, error rate and latency between two scrapes', () => {
    const before = { at: 0, samples: parsePrometheus(text(10, 1, 0.02, 10, 9)) };
    const after = { at: 10_000, samples: parsePrometheus(text(110, 11, 0.52, 110, 109)) };
    const { controllers, leading } = controllerStats(after, before);
    assert.deepEqual(leading, { 'setpoint-controller-manager': true });
    const rs = controllers[0]!;
    assert.equal(rs.name, 'replicaset');
    assert.equal(rs.queueDepth, 4);
    assert.equal(rs.activeWorkers, 1);
    assert.equal(rs.maxWorkers, 5);
    assert.equal(rs.reconcilesPerSecond, 10);
    assert.equal(rs.errorRate, 0.1);
    assert.ok(Math.abs(rs.meanLatency! - 0.005) < 1e-12);
    assert.equal(rs.p95Latency, 0.005, 'the bound of the bucket holding the 95th percentile');
    // One scrape: totals, and rates not yet known.
    const first = controllerStats(before).controllers[0]!;
    assert.equal(first.reconcilesPerSecond, undefined);
    assert.equal(first.errorRate, 0.1);
    // An interval with no reconciles falls back to the figures since the start.
    const idle = controllerStats({ at: 20_000, samples: after.samples }, after).controllers[0]!;
    assert.equal(idle.reconcilesPerSecond, 0);
    assert.equal(idle.errorRate, undefined);
    assert.ok(idle.meanLatency !== undefined);
  });

  it('bounds quantiles by their bucket', () => {
    assert.equal(quantile([], 0.95), undefined);
    assert.equal(quantile([[0.1, 0], [Infinity, 0]], 0.5), undefined);
    assert.equal(quantile([[0.1, 10], [1, 100], [Infinity, 100]], 0.5), 1);
    assert.equal(quantile([[0.1, 10], [1, 10], [Infinity, 100]], 0.5), 1, 'in +Inf: the last finite bound');
  });
});

describe('editor YAML', () => {
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u', resourceVersion: '5', labels: { app: 'web', 'app.kubernetes.io/name': 'web' }, managedFields: [{ manager: 'x' }] },
    spec: { containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 80, protocol: 'TCP' }] }, { name: 'b', image: 'j' }], finalizers: ['x'] },
    status: { phase: 'Running' },
  };
  const text = applyConfiguration(pod);
  const line = (needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

  it('leaves out what the server keeps', () => {
    assert.doesNotMatch(text, /uid|resourceVersion|managedFields|status|phase/);
    assert.match(text, /^apiVersion: v1\nkind: Pod\nmetadata:\n {2}name: web\n/);
  });

  it('finds the line of a field the server names', () => {
    assert.equal(lineOfField(text, '.metadata.labels.app'), line('app: web'));
    assert.equal(lineOfField(text, '.metadata.labels.app.kubernetes.io/name'), line('app.kubernetes.io/name'));
    assert.equal(lineOfField(text, 'metadata.labels'), line('labels:'));
    assert.equal(lineOfField(text, 'spec.containers[1].image'), line('image: j'));
    assert.equal(lineOfField(text, '.spec.containers[name="b"].image'), line('image: j'));
    assert.equal(lineOfField(text, '.spec.containers[name="a"].ports[containerPort=80,protocol="TCP"].protocol'), line('protocol: TCP'));
    assert.equal(lineOfField(text, 'spec.containers[0].resources'), line('name: a'), 'a missing field: its nearest parent');
    assert.equal(lineOfField(text, 'nothing.here'), undefined);
    assert.equal(lineOfField('a: [', 'a'), undefined);
  });

  it('reports syntax errors with their lines', () => {
    assert.deepEqual(yamlProblems(text), []);
    const problems = yamlProblems('a: 1\nb: [\nc: 2\n');
    assert.ok(problems.length > 0);
    assert.ok(problems[0]!.line >= 2);
  });
});
