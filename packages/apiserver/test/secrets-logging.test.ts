/**
 * Secret data is never logged: every way of writing, reading and failing to write a Secret (JSON,
 * YAML, protobuf, patches of every kind, server-side apply, invalid values, malformed bodies,
 * immutable Secrets, kubectl's last-applied annotation) plus a TokenRequest, at debug level and with
 * the audit policy asking for every body — and neither the server's log lines, nor the audit
 * log, nor any error message holds a secret value (plain or base64), an issued token, or the
 * admin token.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import type { Logger } from '@setpoint/api';
import { parseAuditPolicy } from '../src/audit/index.js';
import { PROTOBUF_MEDIA_TYPE, encodeProtobuf } from '../src/http/protobuf/index.js';
import { openWatch, request, startTestServer, type TestResponse } from './harness.js';

const SECRETS = ['S3cr3t-Value-4f9a-plain', 'An0ther-s3cret-b7c1', 'Th1rd-s3cret-yaml-x2', 'f0urth-apply-s3cret-q8', 'fifth-s3cret-pr0tobuf'];
const b64 = (s: string) => Buffer.from(s).toString('base64');
const SECRET_PATH = '/api/v1/namespaces/default/secrets';

/** Every line a logger is given, at every level, with errors serialized as pino would (and more: causes too). */
function capturingLogger(lines: string[]): Logger {
  const serialize = (v: unknown, depth = 0): unknown => {
    if (v instanceof Error) return { ...v, message: v.message, stack: v.stack, cause: depth < 5 ? serialize(v.cause, depth + 1) : undefined };
    return v;
  };
  const make = (bindings: object): Logger => {
    const line = (level: string) => (fields: object, message: string) => {
      lines.push(JSON.stringify({ level, ...bindings, ...Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, serialize(v)])), msg: message }));
    };
    return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error'), child: (more) => make({ ...bindings, ...more }) };
  };
  return make({});
}

it('no log line, audit event or error message holds Secret data or a token', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-secrets-'));
  const logLines: string[] = [];
  const auditPath = join(dir, 'audit.log');
  const errorBodies: string[] = [];
  try {
    const srv = await startTestServer({
      secure: true,
      dir,
      logger: capturingLogger(logLines),
      audit: { path: auditPath, policy: parseAuditPolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n') },
    });
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<TestResponse> => {
      const res = await srv.request(method, path, body, headers);
      if (res.status >= 400) errorBodies.push(res.text);
      return res;
    };
    const expect = (res: TestResponse, code: number) => assert.equal(res.status, code, `HTTP ${res.status}: ${res.text.slice(0, 300)}`);
    const [s1, s2, s3, s4, s5] = SECRETS as [string, string, string, string, string];
    const merge = { 'content-type': 'application/merge-patch+json' };

    // Writes that succeed, in every encoding and patch type.
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'a' }, data: { password: b64(s1) }, stringData: { token: s2 } }), 201);
    expect(await call('POST', SECRET_PATH, `apiVersion: v1\nkind: Secret\nmetadata:\n  name: y\nstringData:\n  k: ${s3}\n`, { 'content-type': 'application/yaml' }), 201);
    const protobuf = encodeProtobuf({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pb' }, data: { password: b64(s5) } })!;
    expect(await call('POST', SECRET_PATH, protobuf, { 'content-type': PROTOBUF_MEDIA_TYPE }), 201);
    expect(await call('POST', `${SECRET_PATH}?dryRun=All`, { metadata: { name: 'dry' }, data: { k: b64(s1) } }), 201);
    const lastApplied = JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kc', namespace: 'default' }, data: { k: b64(s2) } });
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'kc', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } }, data: { k: b64(s2) } }), 201);
    const current = (await call('GET', `${SECRET_PATH}/a`)).body;
    current.data.password = b64(s2);
    expect(await call('PUT', `${SECRET_PATH}/a`, current), 200);
    expect(await call('PATCH', `${SECRET_PATH}/a`, { data: { password: b64(s3) } }, merge), 200);
    expect(await call('PATCH', `${SECRET_PATH}/a`, { stringData: { extra: s4 } }, { 'content-type': 'application/strategic-merge-patch+json' }), 200);
    expect(await call('PATCH', `${SECRET_PATH}/a`, [{ op: 'add', path: '/data/more', value: b64(s5) }], { 'content-type': 'application/json-patch+json' }), 200);
    const applied = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ssa\nstringData:\n  k: ${s4}\n`;
    expect(await call('PATCH', `${SECRET_PATH}/ssa?fieldManager=first`, applied, { 'content-type': 'application/apply-patch+yaml' }), 201);

    // Reads: JSON, protobuf, a Table, a watch.
    expect(await call('GET', `${SECRET_PATH}/a`), 200);
    expect(await call('GET', SECRET_PATH, undefined, { accept: `${PROTOBUF_MEDIA_TYPE},application/json` }), 200);
    expect(await call('GET', SECRET_PATH, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }), 200);
    const watch = openWatch(srv.url, `${SECRET_PATH}?watch=true`, { authorization: `Bearer ${srv.token}` }, srv.caCert);
    await watch.next();
    watch.close();

    // Writes that fail, each quoting the request where it could.
    expect(await call('PATCH', `${SECRET_PATH}/ssa?fieldManager=second`, applied.replace(s4, s1), { 'content-type': 'application/apply-patch+yaml' }), 409);
    expect(await call('PATCH', `${SECRET_PATH}/a`, [{ op: 'test', path: '/data/password', value: b64(s1) }], { 'content-type': 'application/json-patch+json' }), 422);
    expect(await call('PATCH', `${SECRET_PATH}/a`, [{ op: 'replace', path: '/data/nothere/deeper', value: b64(s1) }], { 'content-type': 'application/json-patch+json' }), 422);
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'bad64' }, data: { k: `!!${s1}!!` } }), 422);
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'docker' }, type: 'kubernetes.io/dockerconfigjson', stringData: { '.dockerconfigjson': `{"auths": ${s2}` } }), 422);
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'bad key!' }, stringData: { k: s3 } }), 422);
    expect(await call('POST', SECRET_PATH, `{"metadata":{"name":"broken"},"stringData":{"k":"${s1}"},"x":tru}`), 400);
    expect(await call('POST', SECRET_PATH, `{"metadata":{"name":"broken"},"stringData":{"k":"${s2}"}} trailing`), 400);
    expect(await call('POST', SECRET_PATH, `{"stringData":{"k":"${s3}"`), 400);
    expect(await call('POST', SECRET_PATH, `{"stringData":{"k": x"${s4}"}}`), 400);
    expect(await call('POST', SECRET_PATH, `["${s5}", x]`), 400);
    expect(await call('POST', SECRET_PATH, `metadata:\n  name: broken\nstringData: {k: ${s4}\n`, { 'content-type': 'application/yaml' }), 400);
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'wrongtype', labels: [s5] }, stringData: { k: s5 } }), 400);
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'big' }, stringData: { k: s1.repeat(200_000) } }), 413);
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'imm' }, immutable: true, data: { k: b64(s1) } }), 201);
    expect(await call('PATCH', `${SECRET_PATH}/imm`, { data: { k: b64(s2) } }, merge), 422);
    expect(await call('POST', SECRET_PATH, { metadata: { name: 'a' }, data: { k: b64(s3) } }), 409);

    // A ServiceAccount token, and credentials that do not authenticate.
    expect(await call('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'sa' } }), 201);
    const issued = (await call('POST', '/api/v1/namespaces/default/serviceaccounts/sa/token', { spec: {} })).body.status.token as string;
    assert.equal((await request(srv.url, 'GET', SECRET_PATH, undefined, { authorization: `Bearer ${issued}x` }, srv.caCert)).status, 401);
    assert.equal((await request(srv.url, 'GET', SECRET_PATH, undefined, { authorization: `Bearer ${s1}` }, srv.caCert)).status, 401);

    // Deletes.
    expect(await call('DELETE', `${SECRET_PATH}/a`), 200);
    expect(await call('DELETE', SECRET_PATH), 200);
    await srv.stop();

    const audit = await readFile(auditPath, 'utf8');
    assert.ok(audit.split('\n').length > 30, 'the audit log recorded the requests');
    assert.ok(logLines.length > 0, 'the server logged');
    const places: Array<[string, string]> = [
      ['the server log', logLines.join('\n')],
      ['the audit log', audit],
      ['an error message', errorBodies.join('\n')],
    ];
    // Not even a part: every 8-character piece of each value (12 of the base64 forms and tokens).
    const pieces = (value: string, n: number) => Array.from({ length: Math.max(1, value.length - n + 1) }, (_, i) => value.slice(i, i + n));
    const needles = [...SECRETS.flatMap((s) => [...pieces(s, 8), ...pieces(b64(s), 12)]), ...pieces(issued, 12), ...pieces(srv.token!, 12)];
    for (const [where, text] of places) {
      for (const needle of needles) assert.ok(!text.includes(needle), `${where} holds ${JSON.stringify(needle)}`);
    }
    // The error messages were not silent: they say what was wrong.
    assert.ok(errorBodies.some((b) => b.includes('could not be decoded as JSON')));
    assert.ok(errorBodies.some((b) => b.includes('<secret contents redacted>')));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
