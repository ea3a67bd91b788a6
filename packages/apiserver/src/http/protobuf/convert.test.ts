/**
 * The JSON side of the protobuf conversion: which zero values stay (pointer fields, fields without
 * omitempty) and which go (omitempty), empty maps and lists, times and micro times, quantities,
 * int-or-string, bytes, inline fields, nulls, unknown fields and values of the wrong type.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decodeProtobuf, encodeProtobuf } from './index.js';

type Json = Record<string, unknown>;

function roundTrip(obj: Json): Json {
  return decodeProtobuf(encodeProtobuf(obj)!);
}

function deployment(spec: Json, status?: Json): Json {
  return { kind: 'Deployment', apiVersion: 'apps/v1', metadata: { name: 'd' }, spec, ...(status ? { status } : {}) };
}

describe('protobuf ⇄ JSON conversion', () => {
  test('zeros of omitempty fields are left out; of pointer fields and fields without omitempty they stay', () => {
    const back = roundTrip(
      deployment(
        { replicas: 0, minReadySeconds: 0, paused: false, revisionHistoryLimit: 0, progressDeadlineSeconds: 0, strategy: { type: '' } },
        { observedGeneration: 0, replicas: 0, collisionCount: 0 },
      ),
    );
    // replicas, revisionHistoryLimit, progressDeadlineSeconds, collisionCount: *int32 in Go.
    assert.deepStrictEqual(back.spec, { replicas: 0, revisionHistoryLimit: 0, progressDeadlineSeconds: 0, strategy: {} });
    assert.deepStrictEqual(back.status, { collisionCount: 0 });

    const rs = roundTrip({ kind: 'ReplicaSet', apiVersion: 'apps/v1', metadata: { name: 'r', generation: 0, namespace: '' }, status: { replicas: 0, readyReplicas: 0 } });
    // ReplicaSetStatus.replicas has no omitempty; readyReplicas has.
    assert.deepStrictEqual(rs, { kind: 'ReplicaSet', apiVersion: 'apps/v1', metadata: { name: 'r' }, status: { replicas: 0 } });

    const status = { name: 'c', state: {}, lastState: {}, ready: false, restartCount: 0, image: '', imageID: '', containerID: '' };
    const pod = roundTrip({ kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' }, status: { containerStatuses: [status] } });
    const { containerID: _omitted, ...kept } = status;
    assert.deepStrictEqual((pod.status as Json).containerStatuses, [kept]);
  });

  test('a present message stays even when empty; an empty map or list goes; a list has items []', () => {
    assert.deepStrictEqual(roundTrip({ kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: {}, binaryData: {} }), { kind: 'ConfigMap', apiVersion: 'v1', metadata: {} });
    assert.deepStrictEqual(
      roundTrip({ kind: 'Pod', apiVersion: 'v1', metadata: { labels: {}, finalizers: [] }, spec: { containers: [{ name: 'c', resources: {}, env: [] }] }, status: {} }),
      { kind: 'Pod', apiVersion: 'v1', metadata: {}, spec: { containers: [{ name: 'c', resources: {} }] }, status: {} },
    );
    assert.deepStrictEqual(roundTrip({ kind: 'SecretList', apiVersion: 'v1', metadata: {} }), { kind: 'SecretList', apiVersion: 'v1', metadata: {}, items: [] });
  });

  test('Time is RFC 3339 in whole seconds (UTC); MicroTime keeps microseconds; an empty time is left out', () => {
    const ev = roundTrip({
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'e', creationTimestamp: '' },
      firstTimestamp: '2026-11-29T15:47:44.987Z',
      lastTimestamp: '2026-11-29T17:47:44+02:00',
      eventTime: '2026-11-29T15:47:44.123456789Z',
      series: { count: 1, lastObservedTime: '1969-12-31T23:59:59.5Z' },
    });
    assert.deepStrictEqual(ev, {
      kind: 'Event',
      apiVersion: 'v1',
      metadata: { name: 'e' },
      firstTimestamp: '2026-11-29T15:47:44Z',
      lastTimestamp: '2026-11-29T15:47:44Z',
      eventTime: '2026-11-29T15:47:44.123456Z',
      series: { count: 1, lastObservedTime: '1969-12-31T23:59:59.500000Z' },
    });
    // The epoch itself is a time, not Go's zero time.
    assert.equal((roundTrip({ kind: 'Pod', apiVersion: 'v1', metadata: { creationTimestamp: '1970-01-01T00:00:00Z' } }).metadata as Json).creationTimestamp, '1970-01-01T00:00:00Z');
    assert.throws(() => encodeProtobuf({ kind: 'Pod', apiVersion: 'v1', metadata: { creationTimestamp: 'yesterday' } }), /metadata\.creationTimestamp: "yesterday" is not an RFC 3339 time/);
  });

  test('quantities are strings (a JSON number becomes its string); int-or-string keeps its kind, 0 included', () => {
    const pod = roundTrip({
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: {},
      spec: {
        containers: [
          {
            name: 'c',
            resources: { limits: { cpu: 2, memory: '1.5Gi' }, requests: { cpu: 0.25 } },
            ports: [{ containerPort: 80 }],
            livenessProbe: { httpGet: { port: 'http' } },
            readinessProbe: { tcpSocket: { port: 0 } },
          },
        ],
      },
    });
    const c = ((pod.spec as Json).containers as Json[])[0]!;
    assert.deepStrictEqual(c.resources, { limits: { cpu: '2', memory: '1.5Gi' }, requests: { cpu: '0.25' } });
    assert.deepStrictEqual(c.livenessProbe, { httpGet: { port: 'http' } });
    assert.deepStrictEqual(c.readinessProbe, { tcpSocket: { port: 0 } });
    assert.deepStrictEqual(c.ports, [{ containerPort: 80 }]);
    const d = roundTrip(deployment({ strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: '0%' } } }));
    assert.deepStrictEqual((d.spec as Json).strategy, { rollingUpdate: { maxSurge: 1, maxUnavailable: '0%' } });
  });

  test('Secret data travels as raw bytes and comes back as the same base64', () => {
    const data = { text: Buffer.from('v').toString('base64'), binary: Buffer.from([0, 0xff, 0x80, 0x0a]).toString('base64'), empty: '' };
    const bytes = encodeProtobuf({ kind: 'Secret', apiVersion: 'v1', metadata: { name: 's' }, data })!;
    assert.ok(bytes.includes(Buffer.from([0, 0xff, 0x80, 0x0a])), 'the value is on the wire as bytes');
    assert.ok(!bytes.includes(Buffer.from(data.binary)), 'not as base64 text');
    assert.deepStrictEqual(decodeProtobuf(bytes).data, data);
  });

  test('inline fields read and write at their parent level (volume sources, probe handlers, key selectors)', () => {
    const spec = {
      volumes: [{ name: 'v', configMap: { name: 'cm', items: [{ key: 'k', path: 'p' }] } }],
      containers: [
        {
          name: 'c',
          env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
          envFrom: [{ configMapRef: { name: 'cm' } }],
          startupProbe: { exec: { command: ['true'] }, periodSeconds: 3 },
        },
      ],
      ephemeralContainers: [{ name: 'dbg', image: 'busybox', targetContainerName: 'c' }],
    };
    assert.deepStrictEqual(roundTrip({ kind: 'Pod', apiVersion: 'v1', metadata: {}, spec }).spec, spec);
  });

  test('int64 values beyond 32 bits survive', () => {
    const node = roundTrip({ kind: 'Node', apiVersion: 'v1', metadata: { generation: 2 ** 40 + 3 }, status: { images: [{ names: ['a'], sizeBytes: 2 ** 52 - 1 }] } });
    assert.equal((node.metadata as Json).generation, 2 ** 40 + 3);
    assert.deepStrictEqual((node.status as Json).images, [{ names: ['a'], sizeBytes: 2 ** 52 - 1 }]);
  });

  test('nulls are left out; null list elements and map values are zero values; unknown fields are dropped', () => {
    const cm = roundTrip({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', labels: null, finalizers: ['a', null] }, data: { a: null, b: 'x' }, extra: { x: 1 }, immutable: null });
    assert.deepStrictEqual(cm, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', finalizers: ['a', ''] }, data: { a: '', b: 'x' } });
  });

  test('a value of the wrong JSON type is a TypeError naming the field', () => {
    assert.throws(() => encodeProtobuf(deployment({ replicas: '3' })), { name: 'TypeError', message: /^spec\.replicas: expected an integer, got string "3"/ });
    assert.throws(() => encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: {}, data: { a: 1 } }), /^TypeError: data\[a\]: expected a string, got number 1$/);
    assert.throws(() => encodeProtobuf({ kind: 'Pod', apiVersion: 'v1', metadata: {}, spec: { containers: {} } }), /spec\.containers: expected an array, got object/);
  });

  test('objects of kinds without a protobuf message are not encoded', () => {
    assert.equal(encodeProtobuf({ kind: 'Widget', apiVersion: 'example.com/v1', metadata: {} }), undefined);
    assert.equal(encodeProtobuf({ kind: 'Table', apiVersion: 'meta.k8s.io/v1', rows: [] }), undefined);
    assert.equal(encodeProtobuf({ metadata: {} }), undefined);
    assert.equal(encodeProtobuf('text'), undefined);
  });
});
