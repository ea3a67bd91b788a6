import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { nodePrinter, nodeRoles, nodeStatus } from './table.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');

function node(fields: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', creationTimestamp: '2026-02-26T08:00:00Z', ...(labels ? { labels } : {}) }, ...fields };
}
const ready = (status: string) => ({ status: { conditions: [{ type: 'MemoryPressure', status: 'False' }, { type: 'Ready', status }] } });

describe('node STATUS (kubectl printNode)', () => {
  it('is Ready, NotReady (False or Unknown), or Unknown without a Ready condition', () => {
    assert.equal(nodeStatus(node(ready('True'))), 'Ready');
    assert.equal(nodeStatus(node(ready('False'))), 'NotReady');
    assert.equal(nodeStatus(node(ready('Unknown'))), 'NotReady');
    assert.equal(nodeStatus(node()), 'Unknown');
    assert.equal(nodeStatus(node({ status: { conditions: [{ type: 'DiskPressure', status: 'True' }] } })), 'Unknown');
  });

  it('adds SchedulingDisabled for a cordoned node', () => {
    assert.equal(nodeStatus(node({ ...ready('True'), spec: { unschedulable: true } })), 'Ready,SchedulingDisabled');
    assert.equal(nodeStatus(node({ spec: { unschedulable: true } })), 'Unknown,SchedulingDisabled');
  });
});

describe('node ROLES', () => {
  it('collects node-role.kubernetes.io/<role> labels and kubernetes.io/role, sorted', () => {
    assert.equal(nodeRoles(node({}, { 'node-role.kubernetes.io/worker': '', 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'worker' })), 'control-plane,worker');
    assert.equal(nodeRoles(node({}, { 'node-role.kubernetes.io/': 'x', 'kubernetes.io/role': '' })), '<none>');
    assert.equal(nodeRoles(node()), '<none>');
  });
});

describe('nodePrinter', () => {
  it('prints NAME STATUS ROLES AGE VERSION and the wide columns', () => {
    const n = node({
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [
          { type: 'Hostname', address: 'n1' },
          { type: 'InternalIP', address: '10.0.0.1' },
        ],
        nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'setpoint://0.1.0' },
      },
    });
    assert.deepEqual(nodePrinter.row(n, NOW).cells, ['n1', 'Ready', '<none>', '3d4h', 'v1.32.0', '10.0.0.1', '<none>', 'Debian GNU/Linux 12', '6.1.0', 'setpoint://0.1.0']);
    assert.deepEqual(nodePrinter.row(node(), NOW).cells, ['n1', 'Unknown', '<none>', '3d4h', '', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    assert.deepEqual(
      nodePrinter.columns.map((c) => [c.name, c.priority]),
      [['Name', 0], ['Status', 0], ['Roles', 0], ['Age', 0], ['Version', 0], ['Internal-IP', 1], ['External-IP', 1], ['OS-Image', 1], ['Kernel-Version', 1], ['Container-Runtime', 1]],
    );
  });
});
