import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FieldError, KubeObject } from '@setpoint/api';
import { cidrFamily, defaultNode, nodeResource, validateNode, validateNodeStatusUpdate, validateNodeUpdate } from './node.js';

const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

const messages = (errs: FieldError[]) => errs.map((e) => e.toString());
const node = (fields: Record<string, unknown> = {}): KubeObject => ({ metadata: { name: 'n1' }, ...fields });

describe('defaultNode', () => {
  it('defaults allocatable to capacity', () => {
    const obj = node({ status: { capacity: { cpu: '4', memory: '8Gi' } } });
    defaultNode(obj);
    assert.deepEqual(obj['status'], { capacity: { cpu: '4', memory: '8Gi' }, allocatable: { cpu: '4', memory: '8Gi' } });
  });

  it('keeps allocatable and adds no conditions', () => {
    const obj = node({ status: { capacity: { cpu: '4' }, allocatable: { cpu: '3' } } });
    defaultNode(obj);
    assert.deepEqual(obj['status'], { capacity: { cpu: '4' }, allocatable: { cpu: '3' } });
    const bare = node();
    defaultNode(bare);
    assert.deepEqual(bare, node());
  });

  it('keeps podCIDR and podCIDRs in step', () => {
    const a = node({ spec: { podCIDR: '10.0.1.0/24' } });
    defaultNode(a);
    assert.deepEqual(a['spec'], { podCIDR: '10.0.1.0/24', podCIDRs: ['10.0.1.0/24'] });
    const b = node({ spec: { podCIDRs: ['10.0.2.0/24', 'fd00::/64'] } });
    defaultNode(b);
    assert.deepEqual(b['spec'], { podCIDRs: ['10.0.2.0/24', 'fd00::/64'], podCIDR: '10.0.2.0/24' });
  });
});

describe('cidrFamily', () => {
  const cases: Array<[string, 4 | 6 | undefined]> = [
    ['10.0.0.0/8', 4],
    ['192.168.001.0/24', 4],
    ['fd00::/64', 6],
    ['::/0', 6],
    ['2001:db8:0:0:0:0:0:0/32', 6],
    ['::ffff:10.0.0.0/104', 6],
    ['10.0.0.0', undefined],
    ['10.0.0.256/24', undefined],
    ['10.0.0.0/33', undefined],
    ['fd00::/129', undefined],
    ['fd00:::/64', undefined],
    ['x/8', undefined],
  ];
  for (const [cidr, want] of cases) it(cidr, () => assert.equal(cidrFamily(cidr), want));
});

describe('validateNode', () => {
  const taints = (...t: unknown[]) => node({ spec: { taints: t } });
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'empty node', obj: node(), want: [] },
    {
      name: 'valid taints',
      obj: taints({ key: 'example.com/gpu', value: 'true', effect: 'NoSchedule' }, { key: 'example.com/gpu', effect: 'NoExecute' }),
      want: [],
    },
    {
      name: 'taint effect required',
      obj: taints({ key: 'a' }),
      want: ['metadata.taints[0].effect: Required value'],
    },
    {
      name: 'taint effect supported',
      obj: taints({ key: 'a', effect: 'NoAdmit' }),
      want: ['metadata.taints[0].effect: Unsupported value: "NoAdmit": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"'],
    },
    {
      name: 'taint key a qualified name, value a label value',
      obj: taints({ key: 'a b', value: '-x', effect: 'NoSchedule' }),
      want: [`metadata.taints[0].key: Invalid value: "a b": ${NAME_PART_MSG}`, `metadata.taints[0].value: Invalid value: "-x": ${LABEL_VALUE_MSG}`],
    },
    {
      name: 'taints unique by key and effect',
      obj: taints({ key: 'a', effect: 'NoSchedule' }, { key: 'a', value: 'v', effect: 'NoSchedule' }),
      want: ['metadata.taints[1]: Duplicate value: core.Taint{Key:"a", Value:"v", Effect:"NoSchedule", TimeAdded:(*v1.Time)(nil)}: taints must be unique by key and effect pair'],
    },
    {
      name: 'capacity not negative, counts whole',
      obj: node({ status: { capacity: { cpu: '-1', pods: '1500m', 'example.com/gpu': '0.5', memory: 1024 }, allocatable: { memory: 'lots' } } }),
      want: [
        'status.capacity.cpu: Invalid value: "-1": must be greater than or equal to 0',
        'status.capacity.pods: Invalid value: "1500m": must be an integer',
        'status.capacity.example.com/gpu: Invalid value: "500m": must be an integer',
        "status.allocatable.memory: Invalid value: \"lots\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ],
    },
    { name: 'dual-stack pod CIDRs', obj: node({ spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'] } }), want: [] },
    {
      name: 'invalid pod CIDR',
      obj: node({ spec: { podCIDRs: ['10.0.0.0'] } }),
      want: ['spec.podCIDRs[0]: Invalid value: []string{"10.0.0.0"}: must be valid CIDR'],
    },
    {
      name: 'one CIDR per family, no duplicates',
      obj: node({ spec: { podCIDRs: ['10.0.0.0/24', '10.0.0.0/24'] } }),
      want: [
        'spec.podCIDRs: Invalid value: []string{"10.0.0.0/24", "10.0.0.0/24"}: may specify no more than one CIDR for each IP family',
        'spec.podCIDRs[1]: Duplicate value: "10.0.0.0/24"',
      ],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateNode(c.obj)), c.want));
});

describe('validateNodeUpdate', () => {
  const old = node({ spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'setpoint://n1' } });
  const cases: Array<{ name: string; obj: KubeObject; old?: KubeObject; want: string[] }> = [
    { name: 'unchanged', obj: node({ spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'setpoint://n1', unschedulable: true } }), want: [] },
    { name: 'pod CIDRs and providerID may be set once', obj: node({ spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'x://y' } }), old: node(), want: [] },
    {
      name: 'pod CIDRs may not change',
      obj: node({ spec: { podCIDRs: ['10.0.1.0/24'], providerID: 'setpoint://n1' } }),
      want: ['spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid'],
    },
    {
      name: 'providerID may not change',
      obj: node({ spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'other://n1' } }),
      want: ['spec.providerID: Forbidden: node updates may not change providerID except from "" to valid'],
    },
    {
      name: 'no duplicate addresses',
      obj: node({
        spec: { podCIDRs: ['10.0.0.0/24'], providerID: 'setpoint://n1' },
        status: { addresses: [{ type: 'InternalIP', address: '10.1.0.5' }, { type: 'Hostname', address: 'n1' }, { type: 'InternalIP', address: '10.1.0.5' }] },
      }),
      want: ['status.addresses[2]: Duplicate value: core.NodeAddress{Type:"InternalIP", Address:"10.1.0.5"}'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(messages(validateNodeUpdate(c.obj, c.old ?? old)), c.want));

  it('status updates check resources and addresses', () => {
    const obj = node({ status: { capacity: { cpu: '-2' }, addresses: [{ type: 'Hostname', address: 'n1' }, { type: 'Hostname', address: 'n1' }] } });
    assert.deepEqual(messages(validateNodeStatusUpdate(obj)), [
      'status.capacity.cpu: Invalid value: "-2": must be greater than or equal to 0',
      'status.addresses[1]: Duplicate value: core.NodeAddress{Type:"Hostname", Address:"n1"}',
    ]);
  });
});

describe('nodeResource', () => {
  it('is cluster-scoped with a status subresource and spec.unschedulable', () => {
    assert.equal(nodeResource.namespaced, false);
    assert.deepEqual(nodeResource.shortNames, ['no']);
    assert.deepEqual(nodeResource.subresources, { status: true });
    const select = nodeResource.fieldSelectors!['spec.unschedulable']!;
    assert.equal(select(node({ spec: { unschedulable: true } })), 'true');
    assert.equal(select(node()), 'false');
  });
});
