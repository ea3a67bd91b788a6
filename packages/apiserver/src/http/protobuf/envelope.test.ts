/**
 * The protobuf envelope and watch frames, checked against bytes made without this codec: bytes
 * kubectl 1.32 sent (captured with -v=8), bytes assembled here by hand from the protobuf wire format
 * (tag = field number << 3 | wire type; varints; length-delimited fields), and watch frames taken
 * apart by hand.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '@setpoint/api';
import { PROTOBUF_MAGIC, decodeProtobuf, encodeProtobuf, openEnvelope, sealEnvelope, watchEventFrame } from './index.js';

// --- the wire format, by hand ---------------------------------------------------------------------

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n % 0x80) | 0x80);
    n = Math.floor(n / 0x80);
  }
  out.push(n);
  return out;
}

/** A length-delimited field (wire type 2): strings, bytes, embedded messages, map entries. */
function ld(field: number, payload: string | number[]): number[] {
  const bytes = typeof payload === 'string' ? [...Buffer.from(payload, 'utf8')] : payload;
  return [...varint((field << 3) | 2), ...varint(bytes.length), ...bytes];
}

/** A varint field (wire type 0): ints, bools. */
function vi(field: number, n: number): number[] {
  return [...varint(field << 3), ...varint(n)];
}

function envelope(apiVersion: string, kind: string, raw: number[]): Buffer {
  return Buffer.from([0x6b, 0x38, 0x73, 0x00, ...ld(1, [...ld(1, apiVersion), ...ld(2, kind)]), ...ld(2, raw)]);
}

/** The fields of a message, in wire order: varints as numbers, length-delimited fields as bytes. */
function fields(buf: Buffer): Array<[number, number | Buffer]> {
  const out: Array<[number, number | Buffer]> = [];
  let i = 0;
  const readVarint = () => {
    let n = 0;
    let shift = 1;
    for (;;) {
      const b = buf[i++]!;
      n += (b & 0x7f) * shift;
      if (b < 0x80) return n;
      shift *= 0x80;
    }
  };
  while (i < buf.length) {
    const tag = readVarint();
    if ((tag & 7) === 0) out.push([tag >> 3, readVarint()]);
    else if ((tag & 7) === 2) {
      const len = readVarint();
      out.push([tag >> 3, buf.subarray(i, i + len)]);
      i += len;
    } else throw new Error(`wire type ${tag & 7} not expected here`);
  }
  return out;
}

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof ApiError, `an ApiError, got ${String(err)}`);
    return err;
  }
  assert.fail('no error thrown');
}

// --- tests ------------------------------------------------------------------------------------------

describe('protobuf envelope', () => {
  test('decodes the body kubectl create namespace sends (every non-pointer field written, zeros included)', () => {
    const kubectl = Buffer.from(
      [
        '6b 38 73 00 0a 0f 0a 02  76 31 12 09 4e 61 6d 65',
        '73 70 61 63 65 12 19 0a  11 0a 01 78 12 00 1a 00',
        '22 00 2a 00 32 00 38 00  42 00 12 00 1a 02 0a 00',
        '1a 00 22 00',
      ]
        .join('')
        .replace(/ /g, ''),
      'hex',
    );
    assert.deepStrictEqual(decodeProtobuf(kubectl), { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'x' }, spec: {}, status: {} });
    const env = openEnvelope(kubectl);
    assert.deepStrictEqual([env.apiVersion, env.kind, env.contentEncoding, env.contentType], ['v1', 'Namespace', '', '']);
  });

  test('a hand-assembled ConfigMap decodes, and encoding it gives the same bytes', () => {
    const meta = [...ld(1, 'c'), ...ld(3, 'default'), ...ld(11, [...ld(1, 'app'), ...ld(2, 'web')])];
    const raw = [...ld(1, meta), ...ld(2, [...ld(1, 'a'), ...ld(2, 'b')]), ...ld(3, [...ld(1, 'bin'), ...ld(2, [0, 255])]), ...vi(4, 1)];
    const bytes = envelope('v1', 'ConfigMap', raw);
    const json = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', namespace: 'default', labels: { app: 'web' } }, data: { a: 'b' }, binaryData: { bin: 'AP8=' }, immutable: true };
    assert.deepStrictEqual(decodeProtobuf(bytes), json);
    assert.deepStrictEqual(encodeProtobuf(json), bytes);
  });

  test('a hand-assembled Deployment as Go writes it: zeros of pointer fields stay, int-or-string both ways', () => {
    const intOrString = (type: number, intVal: number, strVal: string) => [...vi(1, type), ...vi(2, intVal), ...ld(3, strVal)];
    const template = [...ld(1, [...ld(11, [...ld(1, 'app'), ...ld(2, 'd')])]), ...ld(2, [...ld(2, [...ld(1, 'nginx'), ...ld(2, 'nginx'), ...ld(6, [...vi(2, 0), ...vi(3, 80), ...ld(4, 'TCP'), ...ld(5, '')])])])];
    const spec = [
      ...vi(1, 0), // replicas: *int32 set to 0
      ...ld(2, [...ld(1, [...ld(1, 'app'), ...ld(2, 'd')])]),
      ...ld(3, template),
      ...ld(4, [...ld(1, 'RollingUpdate'), ...ld(2, [...ld(1, intOrString(0, 0, '')), ...ld(2, intOrString(1, 0, '25%'))])]),
      ...vi(5, 0), // minReadySeconds: int32, omitempty
      ...vi(7, 0), // paused: bool, omitempty
    ];
    const status = [...vi(1, 0), ...vi(2, 0)];
    const raw = [...ld(1, [...ld(1, 'd'), ...ld(2, ''), ...vi(7, 0), ...ld(8, [])]), ...ld(2, spec), ...ld(3, status)];
    assert.deepStrictEqual(decodeProtobuf(envelope('apps/v1', 'Deployment', raw)), {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'd' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: '25%' } },
      },
      status: {},
    });
  });

  test('a hand-assembled Lease: MicroTime keeps microseconds, Time drops nanoseconds as Go does', () => {
    const micro = [...vi(1, 1_796_053_664), ...vi(2, 123_456_789)];
    const time = [...vi(1, 1_796_053_664), ...vi(2, 999_000_000)];
    const raw = [...ld(1, [...ld(1, 'node-1'), ...ld(8, time)]), ...ld(2, [...ld(1, 'node-1'), ...vi(2, 40), ...ld(4, micro), ...vi(5, 0)])];
    assert.deepStrictEqual(decodeProtobuf(envelope('coordination.k8s.io/v1', 'Lease', raw)), {
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      metadata: { name: 'node-1', creationTimestamp: '2026-11-30T15:47:44Z' },
      spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-11-30T15:47:44.123456Z', leaseTransitions: 0 },
    });
  });

  test('what is not an envelope is a 400 with kube-apiserver message', () => {
    const notProto = apiError(() => decodeProtobuf(Buffer.from('{"kind":"ConfigMap"}')));
    assert.deepStrictEqual([notProto.code, notProto.message], [400, 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]']);
    const empty = apiError(() => decodeProtobuf(PROTOBUF_MAGIC));
    assert.deepStrictEqual([empty.code, empty.message], [400, 'empty body']);
    const garbage = apiError(() => decodeProtobuf(Buffer.from([...PROTOBUF_MAGIC, 0x0a, 0x7f, 0x01])));
    assert.equal(garbage.code, 400);
    assert.match(garbage.message, /^the body of the request could not be decoded as protobuf: /);
    const badObject = apiError(() => decodeProtobuf(envelope('v1', 'ConfigMap', [0x0a, 0x05, 0x0a])));
    assert.equal(badObject.code, 400);
    assert.match(badObject.message, /^the body of the request could not be decoded as protobuf ConfigMap: /);
    const noKind = apiError(() => decodeProtobuf(envelope('v1', '', [])));
    assert.deepStrictEqual([noKind.code, noKind.reason], [400, 'BadRequest']);
    assert.match(noKind.message, /Object 'Kind' is missing/);
  });

  test('a kind without a protobuf message (a custom resource) is a 415 with Kubernetes message', () => {
    const err = apiError(() => decodeProtobuf(envelope('example.com/v1', 'Widget', [...ld(1, [...ld(1, 'w')])])));
    assert.deepStrictEqual([err.code, err.reason, err.message], [415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml']);
  });

  test('sealEnvelope and openEnvelope are inverse', () => {
    const sealed = sealEnvelope('apps/v1', 'Deployment', Buffer.from([1, 2, 3]));
    assert.deepStrictEqual([...sealed], [0x6b, 0x38, 0x73, 0x00, ...ld(1, [...ld(1, 'apps/v1'), ...ld(2, 'Deployment')]), ...ld(2, [1, 2, 3])]);
    const opened = openEnvelope(sealed);
    assert.deepStrictEqual([opened.apiVersion, opened.kind, [...opened.raw]], ['apps/v1', 'Deployment', [1, 2, 3]]);
  });
});

describe('protobuf watch frames', () => {
  const cm = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', namespace: 'default', resourceVersion: '12' }, data: { a: 'b' } };

  /** Takes a frame apart by hand: 4-byte big-endian length, WatchEvent{type=1, object=2{raw=1}}. */
  function unframe(frame: Buffer): { type: string; raw: Buffer } {
    assert.equal(frame.readUInt32BE(0), frame.length - 4, 'the length prefix counts the rest of the frame');
    const event = fields(frame.subarray(4));
    assert.deepStrictEqual(
      event.map(([n]) => n),
      [1, 2],
    );
    const object = fields(event[1]![1] as Buffer);
    assert.deepStrictEqual(
      object.map(([n]) => n),
      [1],
    );
    return { type: (event[0]![1] as Buffer).toString('utf8'), raw: object[0]![1] as Buffer };
  }

  test('a frame is a length-prefixed WatchEvent whose object is an envelope', () => {
    const { type, raw } = unframe(watchEventFrame({ type: 'ADDED', object: cm }));
    assert.equal(type, 'ADDED');
    assert.deepStrictEqual(decodeProtobuf(raw), cm);
  });

  test('the frame of one event is encoded once and shared', () => {
    const event = { type: 'MODIFIED', object: cm };
    assert.equal(watchEventFrame(event), watchEventFrame(event));
  });

  test('a bookmark carries only metadata; an ERROR event carries a Status', () => {
    const bookmark = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '99', annotations: { 'k8s.io/initial-events-end': 'true' } } };
    assert.deepStrictEqual(decodeProtobuf(unframe(watchEventFrame({ type: 'BOOKMARK', object: bookmark })).raw), bookmark);
    const status = new ApiError('Expired', 'too old resource version: 5 (150)').toStatus();
    const { type, raw } = unframe(watchEventFrame({ type: 'ERROR', object: status }));
    assert.equal(type, 'ERROR');
    assert.deepStrictEqual(decodeProtobuf(raw), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'too old resource version: 5 (150)', reason: 'Expired', code: 410 });
  });

  test('an object protobuf cannot encode becomes an ERROR event with an InternalError Status', () => {
    const { type, raw } = unframe(watchEventFrame({ type: 'ADDED', object: { kind: 'Widget', apiVersion: 'example.com/v1', metadata: {} } }));
    assert.equal(type, 'ERROR');
    const status = decodeProtobuf(raw);
    assert.deepStrictEqual([status.kind, status.reason, status.code], ['Status', 'InternalError', 500]);
    assert.match(String(status.message), /example\.com\/v1, Kind=Widget\) has no protobuf encoding/);
  });
});
