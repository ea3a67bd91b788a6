import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, Schema } from '@setpoint/api';
import { deploymentSchema, scaleSchema } from '../../schemas/workloads.js';
import type { StrategyContext } from '../../types.js';
import { findUnknownFields } from '../../unknownfields.js';
import { deployments } from './deployment.js';
import { workloadResources } from '../workloads.js';

const ctx: StrategyContext = { now: '2026-11-29T15:47:44Z', namespace: 'default' };
const strategy = deployments.strategy;

const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** A Deployment selecting app=web, `spec` fields merged over it. */
function deployment(spec: Record<string, unknown> = {}): KubeObject {
  return {
    metadata: { name: 'web', namespace: 'default' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
      ...spec,
    },
  };
}

const specOf = (obj: KubeObject) => obj['spec'] as Record<string, unknown>;

function createErrors(obj: KubeObject): string[] {
  strategy.defaults!(obj);
  strategy.prepareForCreate!(obj, ctx);
  return strategy.validate!(obj, ctx).map(String);
}

describe('deployments ResourceDef', () => {
  it('names, scope and subresources', () => {
    assert.deepEqual(
      [deployments.group, deployments.version, deployments.resource, deployments.singular, deployments.kind, deployments.listKind, deployments.namespaced],
      ['apps', 'v1', 'deployments', 'deployment', 'Deployment', 'DeploymentList', true],
    );
    assert.deepEqual(deployments.shortNames, ['deploy']);
    assert.deepEqual(deployments.categories, ['all']);
    assert.deepEqual(deployments.subresources, {
      status: true,
      scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: 'status.replicas', labelSelectorPath: 'status.selector' },
    });
  });

  it('workloadResources lists pods, replicasets, deployments and controllerrevisions', () => {
    assert.deepEqual(
      workloadResources.map((r) => `${r.group}/${r.version}/${r.resource}`),
      ['/v1/pods', 'apps/v1/replicasets', 'apps/v1/deployments', 'apps/v1/controllerrevisions'],
    );
  });
});

describe('deployment defaults', () => {
  const cases: Array<{ name: string; spec: Record<string, unknown>; want: Record<string, unknown> }> = [
    {
      name: 'everything unset',
      spec: {},
      want: { replicas: 1, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 },
    },
    {
      name: 'a partial rolling update keeps what is set',
      spec: { replicas: 3, strategy: { rollingUpdate: { maxSurge: 1 } }, revisionHistoryLimit: 0 },
      want: { replicas: 3, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: 1 } }, revisionHistoryLimit: 0, progressDeadlineSeconds: 600 },
    },
    {
      name: 'Recreate gets no rollingUpdate',
      spec: { strategy: { type: 'Recreate' }, progressDeadlineSeconds: 60 },
      want: { replicas: 1, strategy: { type: 'Recreate' }, revisionHistoryLimit: 10, progressDeadlineSeconds: 60 },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const obj = deployment(c.spec);
      strategy.defaults!(obj);
      const { selector: _s, template: _t, ...rest } = specOf(obj);
      assert.deepEqual(rest, c.want);
    });
  }

  it('the template gets the pod spec defaults', () => {
    const obj = deployment();
    strategy.defaults!(obj);
    const podSpec = (specOf(obj)['template'] as Record<string, Record<string, unknown>>)['spec']!;
    assert.deepEqual(
      [podSpec['restartPolicy'], podSpec['dnsPolicy'], podSpec['terminationGracePeriodSeconds'], podSpec['schedulerName'], podSpec['enableServiceLinks']],
      ['Always', 'ClusterFirst', 30, 'default-scheduler', undefined],
    );
  });

  it('a new Deployment starts with an empty status', () => {
    const obj = deployment();
    obj['status'] = { replicas: 3 };
    strategy.prepareForCreate!(obj, ctx);
    assert.deepEqual(obj['status'], {});
  });
});

describe('deployment validation', () => {
  const rolling = (rollingUpdate: Record<string, unknown>) => ({ strategy: { type: 'RollingUpdate', rollingUpdate } });
  const cases: Array<{ name: string; obj: KubeObject; want: string[] }> = [
    { name: 'a valid Deployment', obj: deployment(), want: [] },
    {
      name: 'selector required',
      obj: deployment({ selector: null }),
      want: ['spec.selector: Required value', 'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
    },
    { name: 'selector non-empty', obj: deployment({ selector: { matchLabels: {} } }), want: ['spec.selector: Invalid value: {"matchLabels":{}}: empty selector is invalid for deployment'] },
    {
      name: 'selector matches template labels',
      obj: deployment({ selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['api'] }] } }),
      want: ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
    },
    {
      name: 'selector expressions valid',
      obj: deployment({ selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } }),
      want: [
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        'spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"In"}]}: invalid label selector',
      ],
    },
    { name: 'replicas not negative', obj: deployment({ replicas: -1 }), want: ['spec.replicas: Invalid value: -1: must be greater than or equal to 0'] },
    {
      name: 'template restartPolicy Always',
      obj: deployment({ template: { metadata: { labels: { app: 'web' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'web', image: 'x' }] } } }),
      want: ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
    },
    {
      name: 'an invalid selector is reported once; the template is not checked against it',
      obj: deployment({ selector: { matchLabels: { 'a b': 'x' } } }),
      want: [
        `spec.selector.matchLabels: Invalid value: "a b": ${NAME_PART_MSG}`,
        'spec.selector: Invalid value: {"matchLabels":{"a b":"x"}}: invalid label selector',
      ],
    },
    {
      name: 'template labels are validated at spec.template.labels',
      obj: deployment({ template: { metadata: { labels: { app: 'web', 'a b': 'x' } }, spec: { containers: [{ name: 'web', image: 'x' }] } } }),
      want: [`spec.template.labels: Invalid value: "a b": ${NAME_PART_MSG}`],
    },
    {
      name: 'maxSurge and maxUnavailable not both zero',
      obj: deployment(rolling({ maxSurge: 0, maxUnavailable: '0%' })),
      want: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "0%": may not be 0 when `maxSurge` is 0'],
    },
    {
      name: 'maxUnavailable at most 100%',
      obj: deployment(rolling({ maxSurge: '200%', maxUnavailable: '120%' })),
      want: ['spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "120%": must not be greater than 100%'],
    },
    {
      name: 'int or percent',
      obj: deployment(rolling({ maxSurge: 'ten', maxUnavailable: -1 })),
      want: [
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: -1: must be greater than or equal to 0',
        `spec.strategy.rollingUpdate.maxSurge: Invalid value: "ten": ${PERCENT_MSG}`,
      ],
    },
    {
      name: 'Recreate has no rollingUpdate',
      obj: deployment({ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }),
      want: ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
    },
    {
      name: 'strategy type',
      obj: deployment({ strategy: { type: 'BlueGreen' } }),
      want: ['spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"'],
    },
    {
      name: 'revisionHistoryLimit not negative',
      obj: deployment({ revisionHistoryLimit: -1 }),
      want: ['spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0'],
    },
    {
      name: 'progressDeadlineSeconds above minReadySeconds',
      obj: deployment({ minReadySeconds: 30, progressDeadlineSeconds: 30 }),
      want: ['spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds'],
    },
    {
      name: 'the template pod spec is validated',
      obj: deployment({ template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: '', ports: [{ containerPort: 0 }] }] } } }),
      want: ['spec.template.spec.containers[0].image: Required value', 'spec.template.spec.containers[0].ports[0].containerPort: Required value'],
    },
    {
      name: 'no ephemeral containers in templates',
      obj: deployment({
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'x' }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] } },
      }),
      want: ['spec.template.spec.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(createErrors(c.obj), c.want));

  it('the selector is immutable', () => {
    const old = deployment();
    strategy.defaults!(old);
    const next = structuredClone(old);
    specOf(next)['selector'] = { matchLabels: { app: 'api' } };
    assert.deepEqual(strategy.validateUpdate!(next, old, ctx).map(String), ['spec.selector: Invalid value: {"matchLabels":{"app":"api"}}: field is immutable']);
  });

  it('status counts are consistent and collisionCount only grows', () => {
    const old = deployment();
    old['status'] = { collisionCount: 2 };
    const next = deployment();
    next['status'] = { replicas: 1, updatedReplicas: 2, collisionCount: 1 };
    assert.deepEqual(strategy.validateStatusUpdate!(next, old, ctx).map(String), [
      'status.updatedReplicas: Invalid value: 2: cannot be greater than status.replicas',
      'status.collisionCount: Invalid value: 1: cannot be decremented',
    ]);
  });
});

describe('deployment and scale schemas', () => {
  const props = (s: Schema | undefined) => s?.properties ?? {};

  it('have their group-version-kind', () => {
    assert.deepEqual(deploymentSchema['x-kubernetes-group-version-kind'], [{ group: 'apps', version: 'v1', kind: 'Deployment' }]);
    assert.deepEqual(scaleSchema['x-kubernetes-group-version-kind'], [{ group: 'autoscaling', version: 'v1', kind: 'Scale' }]);
  });

  it('declare Kubernetes patch metadata and IntOrString bounds', () => {
    const spec = props(deploymentSchema)['spec']!;
    assert.deepEqual(spec.required, ['selector', 'template']);
    const strategySchema = props(spec)['strategy']!;
    assert.equal(strategySchema['x-kubernetes-patch-strategy'], 'retainKeys');
    const rollingUpdate = props(strategySchema)['rollingUpdate'];
    assert.equal(props(rollingUpdate)['maxSurge']!['x-kubernetes-int-or-string'], true);
    assert.equal(props(rollingUpdate)['maxUnavailable']!['x-kubernetes-int-or-string'], true);
    const podSpec = props(props(spec)['template'])['spec'];
    assert.deepEqual(
      [props(podSpec)['volumes']!['x-kubernetes-patch-merge-key'], props(podSpec)['volumes']!['x-kubernetes-patch-strategy']],
      ['name', 'merge,retainKeys'],
    );
    const conditions = props(props(deploymentSchema)['status'])['conditions']!;
    assert.deepEqual([conditions['x-kubernetes-patch-merge-key'], conditions['x-kubernetes-list-type']], ['type', 'map']);
  });

  it('know every field of a typical manifest', () => {
    const manifest = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '0%' } },
        minReadySeconds: 5,
        template: {
          metadata: { labels: { app: 'web' }, annotations: { a: 'b' } },
          spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m' } } }] },
        },
      },
      status: { replicas: 3, conditions: [{ type: 'Available', status: 'True', lastUpdateTime: ctx.now, reason: 'MinimumReplicasAvailable' }] },
    };
    assert.deepEqual(findUnknownFields(manifest, deploymentSchema), []);
    assert.deepEqual(findUnknownFields({ spec: { replica: 3 } }, deploymentSchema), ['spec.replica']);
    assert.deepEqual(findUnknownFields({ spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=web' } }, scaleSchema), []);
  });
});
