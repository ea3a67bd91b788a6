/**
 * Kubernetes' protobuf encoding over HTTP: protobuf request bodies for built-in kinds (create,
 * update of the scale subresource, pods/binding, DeleteOptions), protobuf responses for clients
 * that list `application/vnd.kubernetes.protobuf` first, protobuf watch streams, and what stays
 * JSON (errors, Tables, clients that prefer JSON). 415 for a kind without a protobuf message.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { decodeProtobuf, encodeProtobuf } from '../src/http/protobuf/index.js';
import { startTestServer, type TestServer } from './harness.js';
import { CM, assertStatus, ok, rawRequest as raw, type RawResponse } from './support.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
/** What client-go sends when its content type is protobuf (kubectl's typed clients). */
const PROTOBUF_FIRST = { accept: `${PROTOBUF},application/json`, 'content-type': PROTOBUF };

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Asserts a protobuf answer with `code` and returns the object it encodes. */
function proto(res: RawResponse, code = 200): Json {
  assert.equal(res.status, code, `HTTP ${res.status}, wanted ${code}: ${res.bytes.toString('utf8').slice(0, 300)}`);
  assert.equal(res.contentType, PROTOBUF);
  return decodeProtobuf(res.bytes);
}

function pb(obj: Json): Buffer {
  return encodeProtobuf(obj)!;
}

const configMap = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c', labels: { app: 'web' } }, data: { a: 'b', empty: '' } };

describe('protobuf over HTTP', () => {
  it('POST of a protobuf ConfigMap creates it and answers 201 in protobuf', async () => {
    await using srv = await startTestServer();
    const created = proto(await raw(srv, 'POST', `${CM}?fieldValidation=Strict`, pb(configMap), PROTOBUF_FIRST), 201);
    assert.equal(created.kind, 'ConfigMap');
    assert.equal(created.apiVersion, 'v1');
    assert.deepEqual(created.data, configMap.data);
    assert.ok(created.metadata.uid && created.metadata.resourceVersion && created.metadata.creationTimestamp);
    const stored = ok(await srv.request('GET', `${CM}/c`));
    assert.deepEqual(stored, created, 'the JSON view is the same object');
  });

  it('answers protobuf only when the client lists it before JSON; Tables and errors stay JSON', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', CM, configMap), 201);
    assert.equal(proto(await raw(srv, 'GET', `${CM}/c`, undefined, { accept: PROTOBUF })).metadata.name, 'c');
    assert.equal(proto(await raw(srv, 'GET', `${CM}/c`, undefined, { accept: `${PROTOBUF}, */*` })).metadata.name, 'c');
    const json = await raw(srv, 'GET', `${CM}/c`, undefined, { accept: `application/json, ${PROTOBUF}` });
    assert.match(json.contentType, /^application\/json/);
    assert.equal(JSON.parse(json.bytes.toString('utf8')).metadata.name, 'c');
    const table = await raw(srv, 'GET', CM, undefined, { accept: `${PROTOBUF};as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io,application/json` });
    assert.match(table.contentType, /^application\/json/);
    assert.equal(JSON.parse(table.bytes.toString('utf8')).kind, 'Table');
    // CustomResourceDefinitions have no protobuf message here: JSON for a client that takes both.
    const crds = await raw(srv, 'GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', undefined, { accept: `${PROTOBUF},application/json` });
    assert.equal(crds.status, 200);
    assert.match(crds.contentType, /^application\/json/);
    const missing = await raw(srv, 'GET', `${CM}/nope`, undefined, { accept: PROTOBUF });
    assert.equal(missing.status, 404);
    assert.match(missing.contentType, /^application\/json/);
    assert.equal(JSON.parse(missing.bytes.toString('utf8')).message, 'configmaps "nope" not found');
  });

  it('lists in protobuf; DELETE takes protobuf DeleteOptions and answers a protobuf Status', async () => {
    await using srv = await startTestServer();
    ok(await srv.request('POST', CM, configMap), 201);
    ok(await srv.request('POST', CM, { ...configMap, metadata: { name: 'd' } }), 201);
    const list = proto(await raw(srv, 'GET', `${CM}?limit=500`, undefined, PROTOBUF_FIRST));
    assert.equal(list.kind, 'ConfigMapList');
    assert.deepEqual(
      list.items.map((i: Json) => i.metadata.name),
      ['c', 'd'],
    );
    assert.ok(list.metadata.resourceVersion);
    const options = pb({ kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, propagationPolicy: 'Background' });
    const status = proto(await raw(srv, 'DELETE', `${CM}/c`, options, PROTOBUF_FIRST));
    assert.deepEqual([status.kind, status.status, status.details.name, status.details.kind], ['Status', 'Success', 'c', 'configmaps']);
    assertStatus(await srv.request('GET', `${CM}/c`), 404, 'NotFound');
    // A precondition carried in protobuf DeleteOptions is honoured.
    const wrongUid = pb({ kind: 'DeleteOptions', apiVersion: 'v1', preconditions: { uid: 'not-the-uid' } });
    const conflict = await raw(srv, 'DELETE', `${CM}/d`, wrongUid, PROTOBUF_FIRST);
    assert.equal(conflict.status, 409);
  });

  it('a Deployment created in protobuf keeps replicas 0 and its int-or-string strategy', async () => {
    await using srv = await startTestServer();
    const deployment = {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'web' },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', ports: [{ containerPort: 80 }] }] } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      },
    };
    const path = '/apis/apps/v1/namespaces/default/deployments';
    proto(await raw(srv, 'POST', path, pb(deployment), PROTOBUF_FIRST), 201);
    const stored = ok(await srv.request('GET', `${path}/web`));
    assert.equal(stored.spec.replicas, 0, 'a pointer set to 0 is not defaulted to 1');
    assert.deepEqual(stored.spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    assert.deepEqual(stored.spec.template.spec.containers[0].ports, [{ containerPort: 80, protocol: 'TCP' }]);

    const scale = proto(await raw(srv, 'GET', `${path}/web/scale`, undefined, PROTOBUF_FIRST));
    assert.deepEqual([scale.kind, scale.apiVersion, scale.spec, scale.status.replicas], ['Scale', 'autoscaling/v1', {}, 0]);
    const scaled = proto(await raw(srv, 'PUT', `${path}/web/scale`, pb({ ...scale, spec: { replicas: 3 } }), PROTOBUF_FIRST));
    assert.equal(scaled.spec.replicas, 3);
    assert.equal(ok(await srv.request('GET', `${path}/web`)).spec.replicas, 3);
  });

  it('Secret bytes arrive intact; pods/binding takes a protobuf Binding', async () => {
    await using srv = await startTestServer();
    const data = { key: Buffer.from([0, 1, 0xfe, 0xff]).toString('base64'), text: Buffer.from('v').toString('base64') };
    const secret = { kind: 'Secret', apiVersion: 'v1', metadata: { name: 's' }, data, type: 'Opaque' };
    proto(await raw(srv, 'POST', '/api/v1/namespaces/default/secrets', pb(secret), PROTOBUF_FIRST), 201);
    assert.deepEqual(ok(await srv.request('GET', '/api/v1/namespaces/default/secrets/s')).data, data);

    const pod = { kind: 'Pod', apiVersion: 'v1', metadata: { name: 'p' }, spec: { containers: [{ name: 'app', image: 'busybox' }] } };
    proto(await raw(srv, 'POST', '/api/v1/namespaces/default/pods', pb(pod), PROTOBUF_FIRST), 201);
    const binding = { kind: 'Binding', apiVersion: 'v1', metadata: { name: 'p' }, target: { apiVersion: 'v1', kind: 'Node', name: 'n1' } };
    const status = proto(await raw(srv, 'POST', '/api/v1/namespaces/default/pods/p/binding', pb(binding), PROTOBUF_FIRST), 201);
    assert.deepEqual([status.kind, status.status], ['Status', 'Success']);
    assert.equal(ok(await srv.request('GET', '/api/v1/namespaces/default/pods/p')).spec.nodeName, 'n1');
  });

  it('a protobuf body of a kind without a message is 415 (clients then use JSON); a malformed one is 400', async () => {
    await using srv = await startTestServer();
    const widget = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x18, 0x0a, 0x0e, ...Buffer.from('example.com/v1'), 0x12, 0x06, ...Buffer.from('Widget'), 0x12, 0x00]);
    const res = await srv.request('POST', CM, widget, { 'content-type': PROTOBUF });
    assertStatus(res, 415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml');
    assertStatus(await srv.request('POST', CM, Buffer.from('{"kind":"ConfigMap"}'), { 'content-type': PROTOBUF }), 400, 'BadRequest', 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
    const namespace = pb({ kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'x' } });
    assertStatus(await srv.request('POST', CM, namespace, { 'content-type': PROTOBUF }), 400, 'BadRequest', 'the kind in the data (Namespace) does not match the expected kind (ConfigMap)');
    assertStatus(await srv.request('PATCH', `${CM}/c`, pb(configMap), { 'content-type': PROTOBUF }), 415, 'UnsupportedMediaType');
  });

  it('a watch in protobuf streams length-prefixed WatchEvent frames', async () => {
    await using srv = await startTestServer();
    const created = ok(await srv.request('POST', CM, configMap), 201);
    const watch = openProtobufWatch(srv, `${CM}?watch=true&resourceVersion=0&allowWatchBookmarks=true`);
    try {
      const added = await watch.next();
      assert.equal(watch.contentType, 'application/vnd.kubernetes.protobuf;stream=watch');
      assert.equal(added.type, 'ADDED');
      assert.deepEqual(added.object, created);
      ok(await srv.request('PUT', `${CM}/c`, { ...created, data: { a: 'changed' } }));
      const modified = await watch.next();
      assert.deepEqual([modified.type, modified.object.kind, modified.object.data], ['MODIFIED', 'ConfigMap', { a: 'changed' }]);
      ok(await srv.request('DELETE', `${CM}/c`));
      assert.equal((await watch.next()).type, 'DELETED');
    } finally {
      watch.close();
    }
  });

  it('a protobuf watch below the retained history gets one ERROR frame with a 410 Status', async () => {
    await using srv = await startTestServer({ watchCache: { windowSize: 2 } });
    const first = ok(await srv.request('POST', CM, configMap), 201);
    for (let i = 1; i < 6; i++) ok(await srv.request('POST', CM, { ...configMap, metadata: { name: `c${i}` } }), 201);
    const compactAt = await srv.store.currentRevision();
    await srv.store.compact(compactAt);
    ok(await srv.request('GET', `${CM}?resourceVersion=${compactAt}`));
    const expired = openProtobufWatch(srv, `${CM}?watch=true&resourceVersion=${first.metadata.resourceVersion}`);
    try {
      const error = await expired.next();
      assert.deepEqual(error, {
        type: 'ERROR',
        object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${first.metadata.resourceVersion} (${compactAt})`, reason: 'Expired', code: 410 },
      });
    } finally {
      expired.close();
    }
  });
});

/** Opens a watch asking for protobuf and decodes its frames: 4-byte length, WatchEvent{type, object{raw}}. */
function openProtobufWatch(srv: TestServer, path: string) {
  const events: Array<{ type: string; object: Json }> = [];
  const waiters: Array<() => void> = [];
  let contentType = '';
  let closed = false;
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const req = http.request(new URL(path, srv.url), { headers: { accept: `${PROTOBUF},application/json` } }, (res) => {
    contentType = String(res.headers['content-type'] ?? '');
    let buf = Buffer.alloc(0);
    res.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const frame = buf.subarray(4, 4 + buf.readUInt32BE(0));
        buf = buf.subarray(4 + frame.length);
        const [type, object] = lengthDelimited(frame);
        const [rawObject] = lengthDelimited(object!);
        events.push({ type: type!.toString('utf8'), object: decodeProtobuf(rawObject!) });
      }
      wake();
    });
    res.on('end', () => {
      closed = true;
      wake();
    });
  });
  req.on('error', () => {
    closed = true;
    wake();
  });
  req.end();
  let read = 0;
  return {
    get contentType() {
      return contentType;
    },
    async next(ms = 5000): Promise<{ type: string; object: Json }> {
      const deadline = Date.now() + ms;
      while (read >= events.length) {
        if (closed) throw new Error('the watch closed');
        if (Date.now() > deadline) throw new Error(`no watch event within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, Math.max(1, deadline - Date.now()));
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
      return events[read++]!;
    },
    close() {
      req.destroy();
    },
  };
}

/** The values of a message whose fields are all length-delimited and numbered 1, 2, … in order. */
function lengthDelimited(message: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  const varint = () => {
    let n = 0;
    let shift = 1;
    for (;;) {
      const b = message[i++]!;
      n += (b & 0x7f) * shift;
      if (b < 0x80) return n;
      shift *= 0x80;
    }
  };
  while (i < message.length) {
    const tag = varint();
    assert.equal(tag & 7, 2, 'a length-delimited field');
    assert.equal(tag >> 3, out.length + 1, 'fields in order');
    const len = varint();
    out.push(message.subarray(i, i + len));
    i += len;
  }
  return out;
}
