import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { builtinResources } from '../registry/builtin.js';
import type { ResourceDef } from '../registry/types.js';
import { defaultPrinter, printerFor as printerOf } from './printers.js';
import type { TablePrinter } from './table.js';

/** The printer of the built-in resource `group`/`resource` (NAME and AGE for one not built in). */
function printerFor(def: Pick<ResourceDef, 'group' | 'resource'>, subresource?: string): TablePrinter {
  return printerOf(builtinResources.find((d) => d.group === def.group && d.resource === def.resource) ?? {}, subresource);
}

const NOW = Date.parse('2026-03-01T12:00:00Z');
const CREATED = '2026-03-01T11:55:00Z'; // 5m before NOW

function obj(fields: Record<string, unknown>, name = 'x'): KubeObject {
  return { metadata: { name, namespace: 'default', creationTimestamp: CREATED }, ...fields };
}
const headers = (p: TablePrinter) => p.columns.filter((c) => c.priority === 0).map((c) => c.name.toUpperCase());
const wide = (p: TablePrinter) => p.columns.filter((c) => c.priority > 0).map((c) => c.name.toUpperCase());
const cells = (p: TablePrinter, o: KubeObject) => p.row(o, NOW).cells;

describe('printerFor', () => {
  it('has the columns kubectl users know', () => {
    const cases: Array<[string, string, string[], string[]]> = [
      ['', 'pods', ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE'], ['IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']],
      ['apps', 'deployments', ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'], ['CONTAINERS', 'IMAGES', 'SELECTOR']],
      ['apps', 'replicasets', ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE'], ['CONTAINERS', 'IMAGES', 'SELECTOR']],
      ['', 'nodes', ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'], ['INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']],
      ['', 'namespaces', ['NAME', 'STATUS', 'AGE'], []],
      ['coordination.k8s.io', 'leases', ['NAME', 'HOLDER', 'AGE'], []],
      ['', 'events', ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'], ['SUBOBJECT', 'SOURCE', 'FIRST SEEN', 'COUNT', 'NAME']],
      ['', 'configmaps', ['NAME', 'DATA', 'AGE'], []],
      ['', 'secrets', ['NAME', 'TYPE', 'DATA', 'AGE'], []],
      ['', 'serviceaccounts', ['NAME', 'SECRETS', 'AGE'], []],
      ['example.com', 'widgets', ['NAME', 'AGE'], []],
    ];
    for (const [group, resource, normal, extra] of cases) {
      const p = printerFor({ group, resource });
      assert.deepEqual(headers(p), normal, resource);
      assert.deepEqual(wide(p), extra, resource);
      assert.equal(p.columns.filter((c) => c.format === 'name').length, 1, `${resource}: one name column`);
    }
    assert.equal(printerFor({ group: 'example.com', resource: 'widgets' }), defaultPrinter);
    assert.deepEqual(headers(printerFor({ group: 'apps', resource: 'deployments' }, 'scale')), ['NAME', 'DESIRED', 'AVAILABLE', 'AGE']);
  });
});

describe('workload printers', () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1' }, { name: 'log', image: 'fluentd' }] } };
  it('deployments: READY ready/desired, UP-TO-DATE, AVAILABLE, containers, images, selector', () => {
    const d = obj({ spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template }, status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } }, 'web');
    assert.deepEqual(cells(printerFor({ group: 'apps', resource: 'deployments' }), d), ['web', '2/3', 3, 2, '5m', 'app,log', 'nginx:1,fluentd', 'app=web']);
    const fresh = obj({ spec: { replicas: 1, selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }, template } }, 'new');
    assert.deepEqual(cells(printerFor({ group: 'apps', resource: 'deployments' }), fresh).slice(1, 4), ['0/1', 0, 0]);
    assert.equal(cells(printerFor({ group: 'apps', resource: 'deployments' }), fresh)[7], 'tier in (a,b)');
  });
  it('replicasets: DESIRED CURRENT READY as integers; SELECTOR "<none>" when empty', () => {
    const rs = obj({ spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template }, status: { replicas: 2, readyReplicas: 1 } }, 'web-abc');
    assert.deepEqual(cells(printerFor({ group: 'apps', resource: 'replicasets' }), rs), ['web-abc', 2, 2, 1, '5m', 'app,log', 'nginx:1,fluentd', 'app=web']);
    assert.equal(cells(printerFor({ group: 'apps', resource: 'replicasets' }), obj({ spec: { selector: {} } }))[7], '<none>');
  });
});

describe('core printers', () => {
  it('namespaces show status.phase', () => {
    const p = printerFor({ group: '', resource: 'namespaces' });
    assert.deepEqual(cells(p, obj({ status: { phase: 'Active' } }, 'ns1')), ['ns1', 'Active', '5m']);
    assert.deepEqual(cells(p, obj({ status: { phase: 'Terminating' } }, 'ns2')), ['ns2', 'Terminating', '5m']);
  });
  it('configmaps count data and binaryData; secrets show type and count data; serviceaccounts count secrets', () => {
    assert.deepEqual(cells(printerFor({ group: '', resource: 'configmaps' }), obj({ data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } })), ['x', 3, '5m']);
    assert.deepEqual(cells(printerFor({ group: '', resource: 'configmaps' }), obj({})), ['x', 0, '5m']);
    assert.deepEqual(cells(printerFor({ group: '', resource: 'secrets' }), obj({ type: 'Opaque', data: { a: 'MQ==' } })), ['x', 'Opaque', 1, '5m']);
    assert.deepEqual(cells(printerFor({ group: '', resource: 'serviceaccounts' }), obj({ secrets: [{ name: 's' }] })), ['x', 1, '5m']);
  });
  it('leases show the holder ("" when free)', () => {
    const p = printerFor({ group: 'coordination.k8s.io', resource: 'leases' });
    assert.deepEqual(cells(p, obj({ spec: { holderIdentity: 'node-a' } })), ['x', 'node-a', '5m']);
    assert.deepEqual(cells(p, obj({ spec: {} })), ['x', '', '5m']);
  });
  it('events: LAST SEEN, TYPE, REASON, kind/name, message, and the wide columns', () => {
    const p = printerFor({ group: '', resource: 'events' });
    const e = obj(
      {
        involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{app}' },
        reason: 'Pulled',
        message: ' Pulled image "nginx" \n',
        type: 'Normal',
        source: { component: 'kubelet', host: 'n1' },
        firstTimestamp: '2026-03-01T11:00:00Z',
        lastTimestamp: '2026-03-01T11:58:00Z',
        count: 4,
      },
      'web-1.abc',
    );
    assert.deepEqual(cells(p, e), ['2m', 'Normal', 'Pulled', 'pod/web-1', 'spec.containers{app}', 'kubelet, n1', 'Pulled image "nginx"', '60m', 4, 'web-1.abc']);
    const micro = obj({ involvedObject: { kind: 'Node' }, eventTime: '2026-03-01T11:59:30.000000Z', reportingComponent: 'setpoint-agent', type: 'Warning', reason: 'X' });
    assert.deepEqual(cells(p, micro), ['30s', 'Warning', 'X', 'node', '', 'setpoint-agent', '', '30s', 1, 'x']);
    const series = obj({ involvedObject: { kind: 'Pod', name: 'p' }, eventTime: '2026-03-01T11:00:00.000000Z', series: { count: 7, lastObservedTime: '2026-03-01T11:59:00.000000Z' } });
    const row = cells(p, series);
    assert.equal(row[0], '60s');
    assert.equal(row[8], 7);
  });
  it('any other kind: NAME and AGE', () => {
    assert.deepEqual(cells(defaultPrinter, obj({}, 'w')), ['w', '5m']);
    assert.deepEqual(cells(defaultPrinter, { metadata: { name: 'no-time' } }), ['no-time', '<unknown>']);
  });
});
