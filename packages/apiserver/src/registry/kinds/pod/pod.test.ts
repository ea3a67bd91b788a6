import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isApiError, type KubeObject, type Schema } from '@setpoint/api';
import { imagePullPolicyFor } from './defaults.js';
import { bindingSchema, podSchema } from '../../schemas/workloads.js';
import type { StrategyContext } from '../../types.js';
import { findUnknownFields } from '../../unknownfields.js';
import { POD_UPDATE_FORBIDDEN_MSG } from './validation.js';
import { bindPod, computePodQOS, pods, validateBinding } from './pod.js';
import { podPrinter } from './table.js';

const ctx: StrategyContext = { now: '2026-11-29T15:47:44Z', namespace: 'default' };
const strategy = pods.strategy;

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const QUANTITY_MSG = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

/** A pod with one container, `spec` fields merged over it. */
function pod(spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'web', image: 'nginx:1.27', ...container }], ...spec } };
}

/** Defaults, prepares and validates a new pod; returns the errors as Kubernetes prints them. */
function createErrors(obj: KubeObject): string[] {
  strategy.defaults!(obj);
  strategy.prepareForCreate!(obj, ctx);
  return strategy.validate!(obj, ctx).map(String);
}

function defaulted(obj: KubeObject): KubeObject {
  strategy.defaults!(obj);
  return obj;
}

const specOf = (obj: KubeObject) => obj['spec'] as Record<string, unknown>;
const containerOf = (obj: KubeObject, i = 0) => (specOf(obj)['containers'] as Array<Record<string, unknown>>)[i]!;

describe('pods ResourceDef', () => {
  it('names, scope, subresources and deletion', () => {
    // pods/log is answered by a handler of its own (reading from the node agent: test/podlog.test.ts).
    const { more, ...subresources } = pods.subresources!;
    assert.deepEqual(Object.keys(more ?? {}), ['log']);
    assert.deepEqual(more!.log!.verbs, ['get']);
    assert.equal(typeof more!.log!.handler, 'function');
    assert.deepEqual(
      { ...pods, subresources, schema: undefined, strategy: undefined, fieldSelectors: undefined, nameValidator: undefined },
      {
        group: '',
        version: 'v1',
        resource: 'pods',
        singular: 'pod',
        kind: 'Pod',
        listKind: 'PodList',
        namespaced: true,
        shortNames: ['po'],
        categories: ['all'],
        subresources: { status: true, binding: true },
        deletion: 'graceful',
        printer: podPrinter,
        protobuf: true,
        schema: undefined,
        strategy: undefined,
        fieldSelectors: undefined,
        nameValidator: undefined,
      },
    );
  });

  it('field selectors read the pod fields Kubernetes supports', () => {
    const p: KubeObject = {
      metadata: { name: 'p' },
      spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa' },
      status: { phase: 'Running', podIP: '10.0.0.9', podIPs: [{ ip: '10.0.0.1' }], nominatedNodeName: 'n2' },
    };
    const read = (label: string, obj: KubeObject = p) => pods.fieldSelectors![label]!(obj);
    assert.deepEqual(
      Object.keys(pods.fieldSelectors!).sort(),
      ['spec.hostNetwork', 'spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.nominatedNodeName', 'status.phase', 'status.podIP'],
    );
    assert.equal(read('spec.nodeName'), 'n1');
    assert.equal(read('spec.restartPolicy'), 'Always');
    assert.equal(read('spec.schedulerName'), 'default-scheduler');
    assert.equal(read('spec.serviceAccountName'), 'sa');
    assert.equal(read('spec.hostNetwork'), 'false');
    assert.equal(read('spec.hostNetwork', { metadata: {}, spec: { hostNetwork: true } }), 'true');
    assert.equal(read('status.phase'), 'Running');
    assert.equal(read('status.podIP'), '10.0.0.1');
    assert.equal(read('status.podIP', { metadata: {}, status: { podIP: '10.0.0.9' } }), '10.0.0.9');
    assert.equal(read('status.nominatedNodeName'), 'n2');
    assert.equal(read('spec.nodeName', { metadata: {} }), '');
  });
});

describe('pod defaults', () => {
  it('fills a minimal pod as Kubernetes does', () => {
    const p = defaulted({ metadata: { name: 'web' }, spec: { containers: [{ name: 'web', image: 'nginx' }] } });
    assert.deepEqual(p['spec'], {
      containers: [
        {
          name: 'web',
          image: 'nginx',
          imagePullPolicy: 'Always',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          resources: {},
        },
      ],
      enableServiceLinks: true,
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
    });
  });

  const cases: Array<{ name: string; spec?: Record<string, unknown>; container?: Record<string, unknown>; check: (p: KubeObject) => void }> = [
    {
      name: 'ports get protocol TCP; under hostNetwork hostPort = containerPort',
      spec: { hostNetwork: true },
      container: { ports: [{ containerPort: 80 }, { containerPort: 53, protocol: 'UDP', hostPort: 5353 }] },
      check: (p) =>
        assert.deepEqual(containerOf(p)['ports'], [
          { containerPort: 80, protocol: 'TCP', hostPort: 80 },
          { containerPort: 53, protocol: 'UDP', hostPort: 5353 },
        ]),
    },
    {
      name: 'probes get timeouts, thresholds, httpGet path and scheme, grpc service',
      container: {
        livenessProbe: { httpGet: { port: 8080 } },
        readinessProbe: { grpc: { port: 9090 }, periodSeconds: 5 },
        startupProbe: { exec: { command: ['true'] }, failureThreshold: 0 },
      },
      check: (p) => {
        const c = containerOf(p);
        assert.deepEqual(c['livenessProbe'], {
          httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
          timeoutSeconds: 1,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 3,
        });
        assert.deepEqual(c['readinessProbe'], { grpc: { port: 9090, service: '' }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
        assert.equal((c['startupProbe'] as Record<string, unknown>)['failureThreshold'], 3);
      },
    },
    {
      name: 'lifecycle httpGet handlers get path and scheme',
      container: { lifecycle: { preStop: { httpGet: { port: 80, scheme: 'HTTPS' } } } },
      check: (p) => assert.deepEqual(containerOf(p)['lifecycle'], { preStop: { httpGet: { port: 80, scheme: 'HTTPS', path: '/' } } }),
    },
    {
      name: 'requests are copied from limits, quantities rounded to milli and canonical',
      container: { resources: { limits: { cpu: 0.5, memory: '1024Mi', 'example.com/gpu': 1 }, requests: { memory: '0.5Gi' } } },
      check: (p) =>
        assert.deepEqual(containerOf(p)['resources'], {
          limits: { cpu: '500m', memory: '1Gi', 'example.com/gpu': '1' },
          requests: { memory: '512Mi', cpu: '500m', 'example.com/gpu': '1' },
        }),
    },
    {
      name: 'sub-milli quantities round up, 1000m becomes 1',
      container: { resources: { requests: { cpu: '0.1m', memory: '1000m' } } },
      check: (p) => assert.deepEqual(containerOf(p)['resources'], { requests: { cpu: '1m', memory: '1' } }),
    },
    {
      name: 'env fieldRef gets apiVersion v1',
      container: { env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }] },
      check: (p) => assert.deepEqual(containerOf(p)['env'], [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName', apiVersion: 'v1' } } }]),
    },
    {
      name: 'volumes: emptyDir when no source, default modes, hostPath type, token expiry',
      spec: {
        volumes: [
          { name: 'scratch' },
          { name: 's', secret: { secretName: 's' } },
          { name: 'c', configMap: { name: 'c', defaultMode: 256 } },
          { name: 'h', hostPath: { path: '/var/log' } },
          { name: 'd', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
          { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
          { name: 'e', emptyDir: { sizeLimit: '1024Mi' } },
        ],
      },
      check: (p) =>
        assert.deepEqual(specOf(p)['volumes'], [
          { name: 'scratch', emptyDir: {} },
          { name: 's', secret: { secretName: 's', defaultMode: 420 } },
          { name: 'c', configMap: { name: 'c', defaultMode: 256 } },
          { name: 'h', hostPath: { path: '/var/log', type: '' } },
          { name: 'd', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels', apiVersion: 'v1' } }], defaultMode: 420 } },
          { name: 'p', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }], defaultMode: 420 } },
          { name: 'e', emptyDir: { sizeLimit: '1Gi' } },
        ]),
    },
    {
      name: 'init and ephemeral containers get container defaults; init requests from limits',
      spec: { initContainers: [{ name: 'init', image: 'busybox:1.36', resources: { limits: { cpu: '1' } } }], ephemeralContainers: [{ name: 'dbg', image: 'busybox' }] },
      check: (p) => {
        const spec = specOf(p);
        const init = (spec['initContainers'] as Array<Record<string, unknown>>)[0]!;
        const dbg = (spec['ephemeralContainers'] as Array<Record<string, unknown>>)[0]!;
        assert.equal(init['imagePullPolicy'], 'IfNotPresent');
        assert.deepEqual(init['resources'], { limits: { cpu: '1' }, requests: { cpu: '1' } });
        assert.equal(dbg['imagePullPolicy'], 'Always');
        assert.equal(dbg['terminationMessagePolicy'], 'File');
      },
    },
    {
      name: 'set values are kept',
      spec: { restartPolicy: 'Never', dnsPolicy: 'Default', terminationGracePeriodSeconds: 5, schedulerName: 'mine', enableServiceLinks: false, securityContext: { runAsUser: 1000 } },
      container: { imagePullPolicy: 'Never', terminationMessagePolicy: 'FallbackToLogsOnError', terminationMessagePath: '/tmp/t' },
      check: (p) => {
        const spec = specOf(p);
        assert.deepEqual(
          [spec['restartPolicy'], spec['dnsPolicy'], spec['terminationGracePeriodSeconds'], spec['schedulerName'], spec['enableServiceLinks'], spec['securityContext']],
          ['Never', 'Default', 5, 'mine', false, { runAsUser: 1000 }],
        );
        const c = containerOf(p);
        assert.deepEqual([c['imagePullPolicy'], c['terminationMessagePolicy'], c['terminationMessagePath']], ['Never', 'FallbackToLogsOnError', '/tmp/t']);
      },
    },
  ];
  for (const c of cases) it(c.name, () => c.check(defaulted(pod(c.spec, c.container))));

  describe('imagePullPolicy from the image reference', () => {
    const digest = `sha256:${'a'.repeat(64)}`;
    const images: Array<[string, string]> = [
      ['nginx', 'Always'],
      ['nginx:latest', 'Always'],
      ['nginx:1.27', 'IfNotPresent'],
      ['docker.io/library/nginx:1.27-alpine', 'IfNotPresent'],
      ['localhost:5000/team/app', 'Always'],
      ['localhost:5000/team/app:v2', 'IfNotPresent'],
      [`nginx@${digest}`, 'IfNotPresent'],
      [`nginx:latest@${digest}`, 'Always'],
      ['Nginx', 'IfNotPresent'],
      ['', 'IfNotPresent'],
    ];
    for (const [image, want] of images) it(JSON.stringify(image), () => assert.equal(imagePullPolicyFor(image), want));
  });
});

describe('pod prepareForCreate', () => {
  it('starts Pending with a QoS class, drops any status sent, sets priority and preemptionPolicy', () => {
    const p = pod({}, { resources: { limits: { cpu: '1', memory: '1Gi' } } });
    p['status'] = { phase: 'Running', podIP: '1.2.3.4' };
    strategy.defaults!(p);
    strategy.prepareForCreate!(p, ctx);
    assert.deepEqual(p['status'], { phase: 'Pending', qosClass: 'Guaranteed' });
    assert.equal(specOf(p)['priority'], 0);
    assert.equal(specOf(p)['preemptionPolicy'], 'PreemptLowerPriority');
  });

  it('system priority classes get their priority', () => {
    const p = pod({ priorityClassName: 'system-node-critical', preemptionPolicy: 'Never' });
    strategy.prepareForCreate!(p, ctx);
    assert.equal(specOf(p)['priority'], 2000001000);
    assert.equal(specOf(p)['preemptionPolicy'], 'Never');
  });

  it('scheduling gates add PodScheduled=False, reason SchedulingGated', () => {
    const p = pod({ schedulingGates: [{ name: 'example.com/wait' }] });
    strategy.prepareForCreate!(p, ctx);
    assert.deepEqual((p['status'] as Record<string, unknown>)['conditions'], [
      {
        type: 'PodScheduled',
        status: 'False',
        lastProbeTime: null,
        lastTransitionTime: null,
        reason: 'SchedulingGated',
        message: 'Scheduling is blocked due to non-empty scheduling gates',
      },
    ]);
  });
});

describe('QoS class (ComputePodQOS)', () => {
  const res = (requests?: Record<string, string>, limits?: Record<string, string>) => ({ ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) });
  const cases: Array<[string, Array<Record<string, unknown>>, string, Record<string, unknown>?]> = [
    ['no resources', [{}], 'BestEffort'],
    ['only other resources', [res({ 'ephemeral-storage': '1Gi' })], 'BestEffort'],
    ['zero requests', [res({ cpu: '0' })], 'BestEffort'],
    ['requests = limits for cpu and memory', [res({ cpu: '1', memory: '1Gi' }, { cpu: '1000m', memory: '1024Mi' })], 'Guaranteed'],
    ['every container guaranteed', [res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }), res({ cpu: '2', memory: '2Gi' }, { cpu: '2', memory: '2Gi' })], 'Guaranteed'],
    ['only a cpu limit', [res({ cpu: '1' }, { cpu: '1' })], 'Burstable'],
    ['requests below limits', [res({ cpu: '500m', memory: '1Gi' }, { cpu: '1', memory: '1Gi' })], 'Burstable'],
    ['one container without resources', [res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }), {}], 'Burstable'],
    ['only requests', [res({ memory: '64Mi' })], 'Burstable'],
    ['pod-level resources decide', [{}], 'Guaranteed', { resources: res({ cpu: '1', memory: '1Gi' }, { cpu: '1', memory: '1Gi' }) }],
  ];
  for (const [name, resources, want, extra] of cases) {
    it(name, () => {
      const spec = { containers: resources.map((r, i) => ({ name: `c${i}`, image: 'x', resources: r })), ...(extra ?? {}) };
      assert.equal(computePodQOS(spec), want);
    });
  }

  it('init containers count; the class is computed after requests default from limits', () => {
    const p = pod({ initContainers: [{ name: 'init', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' } } }] }, { resources: { limits: { cpu: '1', memory: '1Gi' } } });
    strategy.defaults!(p);
    strategy.prepareForCreate!(p, ctx);
    assert.equal((p['status'] as Record<string, unknown>)['qosClass'], 'Guaranteed');
  });
});

describe('pod validation', () => {
  const cases: Array<{ name: string; spec?: Record<string, unknown>; container?: Record<string, unknown>; obj?: KubeObject; want: string[] }> = [
    { name: 'a valid pod', want: [] },
    { name: 'containers required', obj: { metadata: { name: 'p' }, spec: {} }, want: ['spec.containers: Required value'] },
    { name: 'container name is a DNS label', container: { name: 'Web' }, want: [`spec.containers[0].name: Invalid value: "Web": ${LABEL_MSG}`] },
    { name: 'container name required', container: { name: '' }, want: ['spec.containers[0].name: Required value'] },
    {
      name: 'container names unique',
      spec: { containers: [{ name: 'a', image: 'x' }, { name: 'a', image: 'y' }] },
      want: ['spec.containers[1].name: Duplicate value: "a"'],
    },
    {
      name: 'init and app container names unique',
      spec: { initContainers: [{ name: 'web', image: 'x' }] },
      want: ['spec.initContainers[0].name: Duplicate value: "web"'],
    },
    { name: 'image required', container: { image: '' }, want: ['spec.containers[0].image: Required value'] },
    { name: 'image without surrounding spaces', container: { image: ' nginx' }, want: ['spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace'] },
    {
      name: 'ports 1-65535',
      container: { ports: [{ containerPort: 70000 }, { containerPort: 80, hostPort: -1 }] },
      want: [
        'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
        'spec.containers[0].ports[1].hostPort: Invalid value: -1: must be between 1 and 65535, inclusive',
      ],
    },
    { name: 'containerPort required', container: { ports: [{ name: 'http' }] }, want: ['spec.containers[0].ports[0].containerPort: Required value'] },
    {
      name: 'port names unique and IANA service names',
      container: { ports: [{ name: 'http', containerPort: 80 }, { name: 'http', containerPort: 81 }, { name: 'HTTP', containerPort: 82 }] },
      want: [
        'spec.containers[0].ports[1].name: Duplicate value: "http"',
        'spec.containers[0].ports[2].name: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.containers[0].ports[2].name: Invalid value: "HTTP": must contain at least one letter (a-z)',
      ],
    },
    {
      name: 'port protocol',
      container: { ports: [{ containerPort: 80, protocol: 'ICMP' }] },
      want: ['spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'],
    },
    {
      name: 'host ports unique across containers',
      spec: { containers: [{ name: 'a', image: 'x', ports: [{ containerPort: 80, hostPort: 8080 }] }, { name: 'b', image: 'x', ports: [{ containerPort: 81, hostPort: 8080 }] }] },
      want: ['spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"'],
    },
    {
      name: 'with hostNetwork, hostPort must equal containerPort',
      spec: { hostNetwork: true },
      container: { ports: [{ containerPort: 80, hostPort: 81 }] },
      want: ['spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true'],
    },
    {
      name: 'requests at most limits',
      container: { resources: { limits: { cpu: '500m' }, requests: { cpu: '1' } } },
      want: ['spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m'],
    },
    {
      name: 'quantities must parse',
      container: { resources: { requests: { memory: '1 Gi' } } },
      want: [`spec.containers[0].resources.requests[memory]: Invalid value: "1 Gi": ${QUANTITY_MSG}`],
    },
    {
      name: 'quantities not negative',
      container: { resources: { requests: { cpu: '-1' } } },
      want: ['spec.containers[0].resources.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0'],
    },
    {
      name: 'resource names',
      container: { resources: { limits: { foo: '1', 'example.com/gpu': '1' }, requests: { 'example.com/gpu': '2' } } },
      want: [
        'spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.limits[foo]: Invalid value: "foo": must be a standard resource for containers',
        'spec.containers[0].resources.requests: Invalid value: "2": must be equal to example.com/gpu limit of 1',
        'spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.requests[foo]: Invalid value: "foo": must be a standard resource for containers',
      ],
    },
    {
      name: 'restartPolicy',
      spec: { restartPolicy: 'Sometimes' },
      want: ['spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'],
    },
    {
      name: 'dnsPolicy',
      spec: { dnsPolicy: 'Google' },
      want: ['spec.dnsPolicy: Unsupported value: "Google": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"'],
    },
    {
      name: 'dnsPolicy None needs dnsConfig',
      spec: { dnsPolicy: 'None' },
      want: ['spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None'],
    },
    {
      name: 'imagePullPolicy',
      container: { imagePullPolicy: 'Sometimes' },
      want: ['spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"'],
    },
    {
      name: 'env var names',
      container: { env: [{ name: 'A=B', value: 'x' }, { name: '' }, { name: 'my.var-1', value: 'ok' }] },
      want: [
        "spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '='",
        'spec.containers[0].env[1].name: Required value',
      ],
    },
    {
      name: 'env valueFrom needs exactly one source and no value',
      container: {
        env: [
          { name: 'A', valueFrom: {} },
          { name: 'B', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
          { name: 'C', valueFrom: { configMapKeyRef: { name: 'c', key: '' } } },
          { name: 'D', valueFrom: { fieldRef: { fieldPath: 'status.phase' } } },
        ],
      },
      want: [
        'spec.containers[0].env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        'spec.containers[0].env[1].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
        'spec.containers[0].env[2].valueFrom.configMapKeyRef.key: Required value',
        'spec.containers[0].env[3].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": supported values: "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"',
      ],
    },
    {
      name: 'volume names unique, one source per volume',
      spec: { volumes: [{ name: 'data', emptyDir: {} }, { name: 'data', emptyDir: {} }, { name: 'two', emptyDir: {}, configMap: { name: 'c' } }] },
      want: ['spec.volumes[1].name: Duplicate value: "data"', 'spec.volumes[2].configMap: Forbidden: may not specify more than 1 volume type'],
    },
    {
      name: 'volume sources have their required fields',
      spec: { volumes: [{ name: 'a', secret: {} }, { name: 'b', persistentVolumeClaim: {} }, { name: 'c', hostPath: { path: '' } }, { name: 'D', emptyDir: {} }] },
      want: [
        'spec.volumes[0].secret.secretName: Required value',
        'spec.volumes[1].persistentVolumeClaim.claimName: Required value',
        'spec.volumes[2].hostPath.path: Required value',
        `spec.volumes[3].name: Invalid value: "D": ${LABEL_MSG}`,
      ],
    },
    {
      name: 'volume mounts refer to a volume, unique mount paths',
      spec: { volumes: [{ name: 'data', emptyDir: {} }] },
      container: { volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'missing', mountPath: '/data' }, { name: 'data', mountPath: '' }] },
      want: [
        'spec.containers[0].volumeMounts[1].name: Not found: "missing"',
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/data": must be unique',
        'spec.containers[0].volumeMounts[2].mountPath: Required value',
      ],
    },
    {
      name: 'a mount of an invalid volume is not found',
      spec: { volumes: [{ name: 'cfg', configMap: {} }] },
      container: { volumeMounts: [{ name: 'cfg', mountPath: '/etc/cfg' }] },
      want: ['spec.volumes[0].configMap.name: Required value', 'spec.containers[0].volumeMounts[0].name: Not found: "cfg"'],
    },
    {
      name: 'probes need one valid handler',
      container: {
        livenessProbe: {},
        readinessProbe: { httpGet: { port: 0 }, exec: { command: ['x'] } },
        startupProbe: { tcpSocket: { port: 'HTTP' }, successThreshold: 2, periodSeconds: -1 },
      },
      want: [
        'spec.containers[0].livenessProbe: Required value: must specify a handler type',
        'spec.containers[0].readinessProbe.httpGet: Forbidden: may not specify more than 1 handler type',
        'spec.containers[0].startupProbe.tcpSocket.port: Invalid value: "HTTP": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
        'spec.containers[0].startupProbe.tcpSocket.port: Invalid value: "HTTP": must contain at least one letter (a-z)',
        'spec.containers[0].startupProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0',
        'spec.containers[0].startupProbe.successThreshold: Invalid value: 2: must be 1',
      ],
    },
    {
      name: 'httpGet port is a number or a port name',
      container: { livenessProbe: { httpGet: { port: 0 } } },
      want: ['spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive'],
    },
    {
      name: 'init containers may not have probes unless restartPolicy Always',
      spec: { initContainers: [{ name: 'init', image: 'x', readinessProbe: { exec: { command: ['true'] } } }, { name: 'side', image: 'x', restartPolicy: 'Never' }] },
      want: [
        'spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always',
        'spec.initContainers[1].restartPolicy: Unsupported value: "Never": supported values: "Always"',
      ],
    },
    {
      name: 'app containers may not set restartPolicy',
      container: { restartPolicy: 'Always' },
      want: ['spec.containers[0].restartPolicy: Forbidden: may not be set for non-init containers'],
    },
    {
      name: 'tolerations',
      spec: { tolerations: [{ operator: 'Equal', value: 'x' }, { key: 'k', operator: 'Exists', value: 'v' }, { key: 'k', tolerationSeconds: 5, effect: 'NoSchedule' }] },
      want: [
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
        "spec.tolerations[1].operator: Invalid value: \"v\": value must be empty when `operator` is 'Exists'",
        "spec.tolerations[2].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
      ],
    },
    {
      name: 'activeDeadlineSeconds at least 1',
      spec: { activeDeadlineSeconds: 0 },
      want: ['spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive'],
    },
    {
      name: 'node affinity terms',
      spec: {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In' }] }] },
            preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: {} }],
          },
        },
      },
      want: [
        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
        'spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: Invalid value: 0: must be in the range 1-100',
      ],
    },
    {
      name: 'topology spread constraints',
      spec: {
        topologySpreadConstraints: [
          { maxSkew: 0, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
          { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
          { maxSkew: 1, topologyKey: '', whenUnsatisfiable: 'Maybe' },
        ],
      },
      want: [
        'spec.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero',
        'spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: "{zone, DoNotSchedule}"',
        'spec.topologySpreadConstraints[2].topologyKey: Required value: can not be empty',
        'spec.topologySpreadConstraints[2].whenUnsatisfiable: Unsupported value: "Maybe": supported values: "DoNotSchedule", "ScheduleAnyway"',
      ],
    },
    {
      name: 'imagePullSecrets carry only a name; nodeName a DNS subdomain',
      spec: { imagePullSecrets: [{ name: 'reg', other: 1 }], nodeName: 'Node_1' },
      want: [
        'spec.imagePullSecrets[0]: Invalid value: {"name":"reg","other":1}: only name may be set',
        "spec.nodeName: Invalid value: \"Node_1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      ],
    },
    {
      name: 'projected service account tokens need a service account',
      spec: { volumes: [{ name: 'tok', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] },
      want: ['spec.volumes[0].projected.sources[0].serviceAccountToken: Forbidden: must not be specified when serviceAccountName is not set'],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(createErrors(c.obj ?? pod(c.spec, c.container)), c.want));
});

describe('pod update validation', () => {
  const base = () => {
    const p = pod({ tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 30 }] });
    strategy.defaults!(p);
    strategy.prepareForCreate!(p, ctx);
    return p;
  };
  const updateErrors = (change: (p: KubeObject) => void) => {
    const old = base();
    const next = structuredClone(old);
    change(next);
    strategy.defaults!(next);
    return strategy.validateUpdate!(next, old, ctx).map(String);
  };

  it('images, activeDeadlineSeconds, added tolerations and changed tolerationSeconds are allowed', () => {
    assert.deepEqual(
      updateErrors((p) => {
        containerOf(p)['image'] = 'nginx:1.28';
        specOf(p)['activeDeadlineSeconds'] = 60;
        specOf(p)['tolerations'] = [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }, { key: 'j', operator: 'Exists' }];
      }),
      [],
    );
  });

  it('other spec changes are forbidden, with Kubernetes message and the difference', () => {
    const errs = updateErrors((p) => {
      specOf(p)['nodeName'] = 'node-1';
    });
    assert.equal(errs.length, 1);
    assert.equal(
      errs[0],
      `spec: Forbidden: pod updates may not change fields other than \`spec.containers[*].image\`,\`spec.initContainers[*].image\`,\`spec.activeDeadlineSeconds\`,\`spec.tolerations\` (only additions to existing tolerations),\`spec.terminationGracePeriodSeconds\` (allow it to be set to 1 if it was previously negative)\n  nodeName: <unset> → "node-1"`,
    );
    assert.ok(errs[0]!.startsWith(`spec: Forbidden: ${POD_UPDATE_FORBIDDEN_MSG}`));
  });

  it('containers may not be added or removed', () => {
    assert.deepEqual(
      updateErrors((p) => {
        (specOf(p)['containers'] as unknown[]).push({ name: 'b', image: 'x' });
      }),
      ['spec.containers: Forbidden: pod updates may not add or remove containers'],
    );
  });

  it('existing tolerations may not change', () => {
    assert.deepEqual(
      updateErrors((p) => {
        specOf(p)['tolerations'] = [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }];
      }),
      ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds'],
    );
  });

  it('activeDeadlineSeconds may only go down', () => {
    const old = base();
    specOf(old)['activeDeadlineSeconds'] = 30;
    const next = structuredClone(old);
    specOf(next)['activeDeadlineSeconds'] = 60;
    assert.deepEqual(strategy.validateUpdate!(next, old, ctx).map(String), ['spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value']);
    delete specOf(next)['activeDeadlineSeconds'];
    assert.deepEqual(strategy.validateUpdate!(next, old, ctx).map(String), ['spec.activeDeadlineSeconds: Invalid value: null: must not update from a positive integer to nil value']);
  });
});

describe('pod status update validation', () => {
  it('nodeName and qosClass do not change through status', () => {
    const old = pod();
    strategy.defaults!(old);
    strategy.prepareForCreate!(old, ctx);
    const next = structuredClone(old);
    specOf(next)['nodeName'] = 'n1';
    (next['status'] as Record<string, unknown>)['qosClass'] = 'Guaranteed';
    assert.deepEqual(strategy.validateStatusUpdate!(next, old, ctx).map(String), [
      'status.nodeName: Forbidden: may not be changed directly',
      'status.qosClass: Invalid value: "Guaranteed": field is immutable',
    ]);
  });

  it('a terminated container of a Never pod stays terminated', () => {
    const old = pod({ restartPolicy: 'Never' });
    old['status'] = { containerStatuses: [{ name: 'web', state: { terminated: { exitCode: 1 } } }] };
    const next = structuredClone(old);
    next['status'] = { containerStatuses: [{ name: 'web', state: { running: {} } }] };
    assert.deepEqual(strategy.validateStatusUpdate!(next, old, ctx).map(String), ['status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state']);
  });
});

describe('binding', () => {
  it('validates the target', () => {
    assert.deepEqual(validateBinding({ metadata: {}, target: { kind: 'Pod' } }).map(String), [
      'target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"',
      'target.name: Required value',
    ]);
    assert.deepEqual(validateBinding({ metadata: {}, target: { name: 'n1' } }), []);
  });

  it('sets nodeName once, merges annotations and marks the pod scheduled', () => {
    const p = pod();
    p.metadata.annotations = { a: '1' };
    bindPod(p, { metadata: { annotations: { b: '2' } }, target: { kind: 'Node', name: 'n1' } }, ctx);
    assert.equal(specOf(p)['nodeName'], 'n1');
    assert.deepEqual(p.metadata.annotations, { a: '1', b: '2' });
    assert.deepEqual((p['status'] as Record<string, unknown>)['conditions'], [
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: ctx.now },
    ]);
    assert.throws(
      () => bindPod(p, { metadata: {}, target: { name: 'n2' } }, ctx),
      (err) => isApiError(err, 'Conflict') && err.message === 'Operation cannot be fulfilled on pods/binding "web": pod web is already assigned to node "n1"',
    );
    const deleting = pod();
    deleting.metadata.deletionTimestamp = ctx.now;
    assert.throws(
      () => bindPod(deleting, { metadata: {}, target: { name: 'n1' } }, ctx),
      (err) => isApiError(err, 'Conflict') && err.message.endsWith('pod web is being deleted, cannot be assigned to a host'),
    );
  });
});

describe('pod schema', () => {
  const props = (s: Schema | undefined) => s?.properties ?? {};
  const spec = props(podSchema)['spec']!;
  const container = props(spec)['containers']!.items!;

  it('has its group-version-kind', () => {
    assert.deepEqual(podSchema['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Pod' }]);
    assert.deepEqual(bindingSchema['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Binding' }]);
  });

  it('declares the strategic merge keys Kubernetes declares', () => {
    const mergeOf = (s: Schema | undefined) => [s?.['x-kubernetes-patch-merge-key'], s?.['x-kubernetes-patch-strategy'], s?.['x-kubernetes-list-type'], s?.['x-kubernetes-list-map-keys']];
    const specProps = props(spec);
    assert.deepEqual(mergeOf(specProps['containers']), ['name', 'merge', 'map', ['name']]);
    assert.deepEqual(mergeOf(specProps['initContainers']), ['name', 'merge', 'map', ['name']]);
    assert.deepEqual(mergeOf(specProps['ephemeralContainers']), ['name', 'merge', 'map', ['name']]);
    assert.deepEqual(mergeOf(specProps['volumes']), ['name', 'merge,retainKeys', 'map', ['name']]);
    assert.deepEqual(mergeOf(specProps['imagePullSecrets']), ['name', 'merge', 'map', ['name']]);
    assert.deepEqual(mergeOf(specProps['hostAliases']), ['ip', 'merge', 'map', ['ip']]);
    assert.deepEqual(mergeOf(specProps['tolerations']), [undefined, undefined, 'atomic', undefined]);
    assert.deepEqual(mergeOf(specProps['topologySpreadConstraints']), ['topologyKey', 'merge', 'map', ['topologyKey', 'whenUnsatisfiable']]);
    const c = props(container);
    assert.deepEqual(mergeOf(c['env']), ['name', 'merge', 'map', ['name']]);
    assert.deepEqual(mergeOf(c['ports']), ['containerPort', 'merge', 'map', ['containerPort', 'protocol']]);
    assert.deepEqual(mergeOf(c['volumeMounts']), ['mountPath', 'merge', 'map', ['mountPath']]);
    assert.deepEqual(mergeOf(c['envFrom']), [undefined, undefined, 'atomic', undefined]);
    assert.deepEqual(mergeOf(props(props(podSchema)['status'])['conditions']), ['type', 'merge', 'map', ['type']]);
  });

  it('marks IntOrString fields and quantities', () => {
    const probe = props(container)['livenessProbe'];
    assert.equal(props(props(probe)['httpGet'])['port']!['x-kubernetes-int-or-string'], true);
    assert.equal(props(props(probe)['tcpSocket'])['port']!['x-kubernetes-int-or-string'], true);
    // A quantity is a string or a number, as Kubernetes' OpenAPI v3 publishes resource.Quantity.
    const limits = props(props(container)['resources'])['limits']!;
    assert.deepEqual((limits.additionalProperties as Schema).oneOf, [{ type: 'string' }, { type: 'number' }]);
  });

  it('knows every field of a full pod manifest', () => {
    const manifest = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'full', labels: { app: 'x' } },
      spec: {
        affinity: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }] } },
          podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { labelSelector: { matchLabels: { app: 'x' } }, topologyKey: 'zone' } }] },
        },
        containers: [
          {
            name: 'app',
            image: 'app:1',
            args: ['--x'],
            env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } }],
            envFrom: [{ prefix: 'P_', configMapRef: { name: 'c' } }],
            ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
            resources: { limits: { cpu: 1 }, requests: { memory: '64Mi' } },
            livenessProbe: { httpGet: { path: '/healthz', port: 'http', httpHeaders: [{ name: 'X', value: 'y' }] }, initialDelaySeconds: 3 },
            readinessProbe: { grpc: { port: 9000 } },
            startupProbe: { tcpSocket: { port: 80 } },
            lifecycle: { preStop: { sleep: { seconds: 5 } } },
            securityContext: { runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
            volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
          },
        ],
        initContainers: [{ name: 'init', image: 'busybox', command: ['sh', '-c', 'true'], restartPolicy: 'Always' }],
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
          { name: 'cfg', configMap: { name: 'cfg', items: [{ key: 'a', path: 'a.txt' }] } },
          { name: 'proj', projected: { sources: [{ serviceAccountToken: { path: 't', audience: 'api' } }, { downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } }] } },
          { name: 'eph', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
          { name: 'csi', csi: { driver: 'd', volumeAttributes: { a: 'b' } } },
        ],
        tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }],
        topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'x' } } }],
        securityContext: { fsGroup: 2000, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }] },
        dnsConfig: { options: [{ name: 'ndots', value: '2' }] },
        hostAliases: [{ ip: '10.0.0.1', hostnames: ['a'] }],
        readinessGates: [{ conditionType: 'example.com/ready' }],
        schedulingGates: [{ name: 'example.com/gate' }],
        imagePullSecrets: [{ name: 'reg' }],
        nodeSelector: { disk: 'ssd' },
        os: { name: 'linux' },
        serviceAccountName: 'sa',
      },
      status: {
        phase: 'Running',
        conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null }],
        containerStatuses: [{ name: 'app', ready: true, restartCount: 0, image: 'app:1', imageID: 'sha', state: { running: { startedAt: ctx.now } } }],
        podIPs: [{ ip: '10.0.0.2' }],
      },
    };
    assert.deepEqual(findUnknownFields(manifest, podSchema), []);
    assert.deepEqual(findUnknownFields({ spec: { containers: [{ name: 'a', imagePolicy: 'x' }] } }, podSchema), ['spec.containers[0].imagePolicy']);
  });
});
