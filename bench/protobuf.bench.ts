/**
 * Protobuf codec benchmark: the cost per object of Kubernetes' protobuf encoding (envelope,
 * message, conversion from and to the server's JSON objects) against JSON.parse / JSON.stringify,
 * for a Pod as a Deployment's ReplicaSet creates it and the server defaults it (one container,
 * probes, resources, a projected service account volume, scheduled and running), and for a small
 * ConfigMap. Also the one-off cost of parsing the message definitions (first use in the process).
 */
import { decodeProtobuf, encodeProtobuf } from '@setpoint/apiserver';
import { BenchReport, nowMs, smoke, type Row } from './lib.js';

const iterations = smoke ? 500 : 20_000;
const T = '2026-11-29T15:47:44Z';

const pod = {
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: 'web-7d9c5f8b6-x2k4q',
    generateName: 'web-7d9c5f8b6-',
    namespace: 'default',
    uid: '0d6c3c7e-3b8e-4f55-9a53-2f1f8d1b6a10',
    resourceVersion: '104233',
    generation: 1,
    creationTimestamp: T,
    labels: { app: 'web', 'pod-template-hash': '7d9c5f8b6' },
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-7d9c5f8b6', uid: '5b0e2f7a-1c1d-4a57-8a4b-3d6b0c1e9f22', controller: true, blockOwnerDeletion: true }],
  },
  spec: {
    volumes: [
      {
        name: 'kube-api-access-8xk2n',
        projected: {
          sources: [
            { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
            { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
          ],
          defaultMode: 420,
        },
      },
    ],
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
        env: [{ name: 'MODE', value: 'production' }],
        resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
        volumeMounts: [{ name: 'kube-api-access-8xk2n', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
        readinessProbe: { tcpSocket: { port: 80 }, timeoutSeconds: 1, periodSeconds: 5, successThreshold: 1, failureThreshold: 3 },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    serviceAccount: 'default',
    nodeName: 'node-1',
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Initialized', status: 'True', lastTransitionTime: T },
      { type: 'Ready', status: 'True', lastTransitionTime: T },
      { type: 'ContainersReady', status: 'True', lastTransitionTime: T },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: T },
    ],
    hostIP: '10.0.0.5',
    hostIPs: [{ ip: '10.0.0.5' }],
    podIP: '10.244.1.7',
    podIPs: [{ ip: '10.244.1.7' }],
    startTime: T,
    containerStatuses: [
      { name: 'web', state: { running: { startedAt: T } }, lastState: {}, ready: true, restartCount: 0, image: 'nginx:1.27', imageID: 'docker.io/library/nginx@sha256:4c1a', containerID: 'setpoint://4711', started: true },
    ],
    qosClass: 'Burstable',
  },
};

const configMap = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'web-config', namespace: 'default', uid: 'u', resourceVersion: '7', creationTimestamp: T }, data: { a: 'b', 'app.yaml': 'listen: 80\n' } };

/** Mean microseconds per call of `fn` over `iterations` calls, after a warm-up. */
function perCall(fn: () => unknown): number {
  for (let i = 0; i < Math.min(1000, iterations); i++) fn();
  const start = nowMs();
  for (let i = 0; i < iterations; i++) fn();
  return ((nowMs() - start) * 1000) / iterations;
}

export async function run(): Promise<void> {
  const coldStart = nowMs();
  encodeProtobuf(configMap);
  const coldMs = nowMs() - coldStart;

  const rows: Row[] = [];
  for (const [name, obj] of [
    ['Pod', pod],
    ['ConfigMap', configMap],
  ] as const) {
    const json = JSON.stringify(obj);
    const proto = encodeProtobuf(obj)!;
    const jsonDecode = perCall(() => JSON.parse(json));
    const jsonEncode = perCall(() => JSON.stringify(obj));
    const protoDecode = perCall(() => decodeProtobuf(proto));
    const protoEncode = perCall(() => encodeProtobuf(obj));
    rows.push({
      object: name,
      'json bytes': Buffer.byteLength(json),
      'protobuf bytes': proto.length,
      'json decode µs': jsonDecode,
      'protobuf decode µs': protoDecode,
      'json encode µs': jsonEncode,
      'protobuf encode µs': protoEncode,
      'protobuf/json (decode+encode)': (protoDecode + protoEncode) / (jsonDecode + jsonEncode),
    });
  }
  const report = new BenchReport('protobuf', "The cost per object of Kubernetes' protobuf encoding (envelope, message, conversion from and to the server's JSON objects) beside JSON.parse / JSON.stringify, for a Pod and a ConfigMap.");
  report.table(`protobuf codec vs JSON, per object (${iterations.toLocaleString('en-US')} calls each)`, rows);
  report.note(`First use (parse the message definitions, build the codecs): ${coldMs.toFixed(1)} ms.`);
  const podRow = rows.find((r) => r.object === 'Pod');
  if (podRow) {
    report.headline('Pod: protobuf decode + encode vs JSON', `${(Number(podRow['protobuf decode µs']) + Number(podRow['protobuf encode µs'])).toFixed(1)} µs vs ${(Number(podRow['json decode µs']) + Number(podRow['json encode µs'])).toFixed(1)} µs (×${Number(podRow['protobuf/json (decode+encode)']).toFixed(2)})`, `${podRow['protobuf bytes']} B vs ${podRow['json bytes']} B`);
  }
  report.chart({
    kind: 'bar',
    title: 'Codec cost per object (µs)',
    unit: 'µs',
    bars: rows.flatMap((r) => [
      { label: `${r.object} decode, JSON`, value: Number(r['json decode µs']), series: 'JSON' },
      { label: `${r.object} decode, protobuf`, value: Number(r['protobuf decode µs']), series: 'protobuf' },
      { label: `${r.object} encode, JSON`, value: Number(r['json encode µs']), series: 'JSON' },
      { label: `${r.object} encode, protobuf`, value: Number(r['protobuf encode µs']), series: 'protobuf' },
    ]),
  });
  report.write({ iterations, firstUseMs: coldMs, rows });
}
