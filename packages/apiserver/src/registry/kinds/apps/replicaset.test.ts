import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, Schema } from '@setpoint/api';
import { replicaSetSchema } from '../../schemas/workloads.js';
import type { StrategyContext } from '../../types.js';
import { replicasets } from './replicaset.js';

const ctx: StrategyContext = { now: '2026-11-29T15:47:44Z', namespace: 'default' };
const strategy = replicasets.strategy;

/** A ReplicaSet selecting app=web, `spec` fields merged over it. */
function rs(spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      ...spec,
    },
  };
}

function createErrors(obj: KubeObject): string[] {
  strategy.defaults!(obj);
  strategy.prepareForCreate!(obj, ctx);
  return strategy.validate!(obj, ctx).map(String);
}

describe('replicasets ResourceDef', () => {
  it('names, scope and subresources', () => {
    assert.deepEqual(
      [replicasets.group, replicasets.version, replicasets.resource, replicasets.singular, replicasets.kind, replicasets.listKind, replicasets.namespaced],
      ['apps', 'v1', 'replicasets', 'replicaset', 'ReplicaSet', 'ReplicaSetList', true],
    );
    assert.deepEqual(replicasets.shortNames, ['rs']);
    assert.deepEqual(replicasets.categories, ['all']);
    assert.deepEqual(replicasets.subresources, {
      status: true,
      scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'status.selector' },
    });
    assert.equal(replicasets.fieldSelectors, undefined);
    assert.equal(replicasets.deletion, undefined);
  });
});

describe('replicaset defaults', () => {
  const cases: Array<{ name: string; spec: Record<string, unknown>; want: (spec: Record<string, unknown>) => void }> = [
    { name: 'replicas 1', spec: {}, want: (s) => assert.equal(s['replicas'], 1) },
    { name: 'replicas kept, 0 included', spec: { replicas: 0 }, want: (s) => assert.equal(s['replicas'], 0) },
    {
      name: 'the template gets pod spec defaults but not pod-only ones',
      spec: {},
      want: (s) =>
        assert.deepEqual((s['template'] as Record<string, unknown>)['spec'], {
          containers: [
            { name: 'web', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {} },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          schedulerName: 'default-scheduler',
        }),
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const obj = rs(c.spec);
      strategy.defaults!(obj);
      c.want(obj['spec'] as Record<string, unknown>);
    });
  }

  it('a new ReplicaSet starts with an empty status', () => {
    const obj = rs();
    obj['status'] = { replicas: 3 };
    strategy.prepareForCreate!(obj, ctx);
    assert.deepEqual(obj['status'], {});
  });
});

describe('replicaset validation', () => {
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'a valid ReplicaSet', obj: rs(), want: [] },
    {
      name: 'selector required (and then it matches no labels)',
      obj: rs({ selector: undefined }),
      want: ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
    },
    { name: 'selector non-empty', obj: rs({ selector: {} }), want: ['spec.selector: Invalid value: {}: empty selector is invalid for deployment'] },
    {
      name: 'selector matches the template labels',
      obj: rs({ selector: { matchLabels: { app: 'api' } } }),
      want: ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
    },
    {
      name: 'replicas and minReadySeconds not negative',
      obj: rs({ replicas: -1, minReadySeconds: -5 }),
      want: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0', 'spec.minReadySeconds: Invalid value: -5: must be greater than or equal to 0'],
    },
    {
      name: 'the template restarts Always',
      obj: rs({ template: { metadata: { labels: { app: 'web' } }, spec: { restartPolicy: 'OnFailure', containers: [{ name: 'web', image: 'x' }] } } }),
      want: ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"'],
    },
    {
      name: 'the template spec is validated at spec.template.spec',
      obj: rs({ template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } } }),
      want: ['spec.template.spec.containers: Required value'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(createErrors(c.obj), c.want));

  it('the selector is immutable', () => {
    const old = rs();
    strategy.defaults!(old);
    const next = structuredClone(old);
    (next['spec'] as Record<string, unknown>)['selector'] = { matchLabels: { app: 'web', tier: 'fe' } };
    assert.deepEqual(strategy.validateUpdate!(next, old, ctx).map(String), ['spec.selector: Invalid value: {"matchLabels":{"app":"web","tier":"fe"}}: field is immutable']);
    const scaled = structuredClone(old);
    (scaled['spec'] as Record<string, unknown>)['replicas'] = 5;
    assert.deepEqual(strategy.validateUpdate!(scaled, old, ctx), []);
  });

  it('status counts are consistent', () => {
    const obj = rs();
    obj['status'] = { replicas: 2, readyReplicas: 3, availableReplicas: -1 };
    assert.deepEqual(strategy.validateStatusUpdate!(obj, rs(), ctx).map(String), [
      'status.availableReplicas: Invalid value: -1: must be greater than or equal to 0',
      'status.readyReplicas: Invalid value: 3: cannot be greater than status.replicas',
    ]);
  });
});

describe('replicaset schema', () => {
  it('has its group-version-kind and Kubernetes list metadata', () => {
    assert.deepEqual(replicaSetSchema['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'ReplicaSet' }]);
    const props = (s: Schema | undefined) => s?.properties ?? {};
    const spec = props(replicaSetSchema)['spec']!;
    assert.deepEqual(spec.required, ['selector']);
    const containers = props(props(props(spec)['template'])['spec'])['containers']!;
    assert.equal(containers['x-kubernetes-patch-merge-key'], 'name');
    const conditions = props(props(replicaSetSchema)['status'])['conditions']!;
    assert.deepEqual([conditions['x-kubernetes-patch-merge-key'], conditions['x-kubernetes-patch-strategy']], ['type', 'merge']);
  });
});
