/**
 * Issue #19, items 2 and 10 (the API server's part): Warning headers escaped and capped as
 * kube-apiserver writes them, so no answer after a commit can fail; query parameters parsed as
 * Kubernetes' parameter codec parses them, with its 400 messages; a JSON patch that removes or
 * replaces /metadata answered with Kubernetes' 400 rather than a 500.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { startTestServer, type TestServer } from './harness.js';
import { CM, assertStatus, configMap, createConfigMap, ok } from './support.js';

interface RawHeaders {
  readonly status: number;
  /** [name, value] in order, values as the bytes sent (UTF-8 decoded). */
  readonly lines: ReadonlyArray<readonly [string, string]>;
  readonly body: string;
}

/** A request that keeps the answer's header lines as sent (Node joins repeated ones otherwise). */
function rawRequest(srv: TestServer, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<RawHeaders> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, srv.url), { method, headers: payload === undefined ? {} : { 'content-type': contentType, 'content-length': String(Buffer.byteLength(payload)) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const lines: Array<[string, string]> = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) lines.push([res.rawHeaders[i]!, Buffer.from(res.rawHeaders[i + 1]!, 'latin1').toString('utf8')]);
        resolve({ status: res.statusCode ?? 0, lines, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

function warnings(res: RawHeaders): string[] {
  return res.lines.filter(([n]) => n.toLowerCase() === 'warning').map(([, v]) => v);
}

/** The text inside `299 - "…"`, unescaped. */
function warningText(value: string): string {
  const m = /^299 - "((?:[^"\\]|\\.)*)"$/su.exec(value);
  assert.ok(m, `a 299 warning: ${value}`);
  return m[1]!.replace(/\\(.)/gsu, '$1');
}

describe('Warning headers', () => {
  it('an unknown field named with characters outside Latin-1 is created (201) and warned about in UTF-8', async () => {
    await using srv = await startTestServer();
    for (const [name, field] of [['emoji', 'a😀b'], ['ffff', 'x\uffff'], ['quote', 'q"\\z']] as const) {
      const res = await rawRequest(srv, 'POST', CM, { ...configMap(name), [field]: 1 });
      assert.equal(res.status, 201, res.body);
      assert.equal(JSON.parse(res.body).metadata.name, name);
      assert.deepEqual(warnings(res).map(warningText), [`unknown field "${field}"`]);
      // The answer matches the store: the object is there, as created.
      const stored = ok(await srv.request('GET', `${CM}/${name}`));
      assert.equal(stored[field], 1);
    }
  });

  it('a warning holding a control character is left out, as kube-apiserver leaves it out', async () => {
    await using srv = await startTestServer();
    const res = await rawRequest(srv, 'POST', CM, { ...configMap('ctl'), 'a\nb': 1, 'tab\tx': 2, fine: 3 });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(warnings(res).map(warningText), ['unknown field "fine"']);
  });

  it('many or long warnings are truncated and capped, so every client can read the answer', async () => {
    await using srv = await startTestServer();
    // 400 unknown fields of 4-byte characters (over 16 KiB of warning text), and one very long name.
    const body: Record<string, unknown> = { ...configMap('many') };
    for (let i = 0; i < 400; i++) body[`f${i}${'😀'.repeat(10)}`] = i;
    body['L'.repeat(60_000)] = 1;
    const res = await rawRequest(srv, 'POST', CM, body);
    assert.equal(res.status, 201, res.body.slice(0, 300));
    const values = warnings(res);
    assert.ok(values.length > 0 && values.length <= 50, `${values.length} Warning lines`);
    assert.ok(res.lines.length < 100, `${res.lines.length} header lines (Python's http.client takes at most 100)`);
    const bytes = values.reduce((n, v) => n + Buffer.byteLength(v), 0);
    assert.ok(bytes < 8192, `${bytes} bytes of warnings`);
    for (const v of values) assert.ok(Buffer.byteLength(warningText(v)) <= 256, 'each warning is cut to 256 bytes once over the total');
    assert.equal(warningText(values[0]!), `unknown field "f0${'😀'.repeat(10)}"`);
    // The long one alone: cut, not dropped.
    const long = await rawRequest(srv, 'POST', CM, { ...configMap('long'), ['L'.repeat(60_000)]: 1 });
    assert.equal(long.status, 201);
    assert.deepEqual(warnings(long).map(warningText), [`unknown field "${'L'.repeat(60_000)}"`.slice(0, 256)]);
  });

});

describe('query parameters', () => {
  it('integers are int64, with Go strconv.ParseInt messages (400)', async () => {
    await using srv = await startTestServer();
    const cases: Array<[string, string]> = [
      ['limit=99999999999999999999', 'strconv.ParseInt: parsing "99999999999999999999": value out of range'],
      ['limit=abc', 'strconv.ParseInt: parsing "abc": invalid syntax'],
      ['limit=1.5', 'strconv.ParseInt: parsing "1.5": invalid syntax'],
      ['limit=', 'strconv.ParseInt: parsing "": invalid syntax'],
      ['timeoutSeconds=1e3', 'strconv.ParseInt: parsing "1e3": invalid syntax'],
      ['watch=true&timeoutSeconds=30s', 'strconv.ParseInt: parsing "30s": invalid syntax'],
      ['watch=true&limit=x', 'strconv.ParseInt: parsing "x": invalid syntax'],
    ];
    for (const [query, message] of cases) assertStatus(await srv.request('GET', `${CM}?${query}`), 400, 'BadRequest', message);
    assertStatus(await srv.request('DELETE', `${CM}/x?gracePeriodSeconds=soon`), 400, 'BadRequest', 'strconv.ParseInt: parsing "soon": invalid syntax');
    assertStatus(await srv.request('DELETE', `${CM}?limit=1e9`), 400, 'BadRequest', 'strconv.ParseInt: parsing "1e9": invalid syntax');
  });

  it('a grace period of any int64 size deletes a bound pod gracefully (no 500 from a timestamp out of range)', async () => {
    await using srv = await startTestServer();
    const pods = '/api/v1/namespaces/default/pods';
    for (const [name, where] of [['g1', 'query'], ['g2', 'body']] as const) {
      ok(await srv.request('POST', pods, { metadata: { name }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] } }), 201);
      const res =
        where === 'query'
          ? await srv.request('DELETE', `${pods}/${name}?gracePeriodSeconds=9223372036854775807`)
          : await srv.request('DELETE', `${pods}/${name}`, { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 9223372036854775807 });
      const deleted = ok(res);
      assert.equal(deleted.metadata.deletionGracePeriodSeconds, 200_000_000_000, where);
      assert.match(deleted.metadata.deletionTimestamp, /^\d{4}-/, where);
    }
  });

  it("a pod whose own terminationGracePeriodSeconds outlasts any timestamp (2^62 s) is deleted gracefully, not left undeletable", async () => {
    await using srv = await startTestServer();
    const pods = '/api/v1/namespaces/default/pods';
    ok(await srv.request('POST', pods, { metadata: { name: 'g3' }, spec: { nodeName: 'n1', terminationGracePeriodSeconds: 2 ** 62, containers: [{ name: 'c', image: 'i' }] } }), 201);
    const deleted = ok(await srv.request('DELETE', `${pods}/g3`));
    assert.equal(deleted.metadata.deletionGracePeriodSeconds, 200_000_000_000);
    assert.match(deleted.metadata.deletionTimestamp, /^\d{4}-/);
    ok(await srv.request('DELETE', `${pods}/g3?gracePeriodSeconds=0`));
    assert.equal((await srv.request('GET', `${pods}/g3`)).status, 404, 'a forced delete removes it');
  });

  for (const backend of ['memory', 'sqlite'] as const) it(`an int64 limit of any size lists (a huge one is no limit; zero or less is no limit), on ${backend}`, async () => {
    await using srv = await startTestServer({ backend });
    await createConfigMap(srv, 'a');
    await createConfigMap(srv, 'b');
    for (const limit of ['9223372036854775807', '-1', '0', '+2']) {
      const list = ok(await srv.request('GET', `${CM}?limit=${encodeURIComponent(limit)}`));
      assert.equal(list.items.length, 2, limit);
      assert.equal(list.metadata.continue, undefined, limit);
    }
  });

  it('resourceVersion must be an unsigned integer on get, list and watch (400 with the versioner message)', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'rv');
    for (const rv of ['abc', '-1', '1e3', ' 1', '18446744073709551616']) {
      const why = rv === '18446744073709551616' ? 'value out of range' : 'invalid syntax';
      const message = `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`;
      for (const path of [`${CM}/rv`, CM, `${CM}?watch=true&timeoutSeconds=1`]) {
        const sep = path.includes('?') ? '&' : '?';
        assertStatus(await srv.request('GET', `${path}${sep}resourceVersion=${encodeURIComponent(rv)}`), 400, 'BadRequest', message);
      }
    }
    ok(await srv.request('GET', `${CM}/rv?resourceVersion=0`));
    ok(await srv.request('GET', `${CM}/rv?resourceVersion=`));
  });

  it('a continue token this server did not issue is a 400 with Kubernetes\' message', async () => {
    await using srv = await startTestServer();
    for (const name of ['c1', 'c2', 'c3']) await createConfigMap(srv, name);
    const token = (raw: unknown) => Buffer.from(JSON.stringify(raw)).toString('base64url');
    const cases: Array<[string, string]> = [
      ['a!b', 'illegal base64 data at input byte 1'],
      ['abcd=', 'illegal base64 data at input byte 4'],
      ['abcde', 'illegal base64 data at input byte 4'],
      [token({ v: 2, rv: 1, start: 'x' }), 'server does not recognize this encoded version'],
      [token({ v: 1, rv: 0, start: 'x' }), 'incorrect encoded start resourceVersion (version meta.k8s.io/v1)'],
      [token({ v: 1, rv: 3, start: '' }), 'encoded start key empty (version meta.k8s.io/v1)'],
    ];
    for (const [value, why] of cases) {
      assertStatus(await srv.request('GET', `${CM}?limit=1&continue=${encodeURIComponent(value)}`), 400, 'BadRequest', `invalid continue token: continue key is not valid: ${why}`);
    }
    // The server's own tokens still page.
    const first = ok(await srv.request('GET', `${CM}?limit=2`));
    const rest = ok(await srv.request('GET', `${CM}?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`));
    assert.deepEqual([...first.items, ...rest.items].map((i: { metadata: { name: string } }) => i.metadata.name), ['c1', 'c2', 'c3']);
  });

  it('fieldValidation is case-sensitive, as in Kubernetes', async () => {
    await using srv = await startTestServer();
    assertStatus(
      await srv.request('POST', `${CM}?fieldValidation=strict`, configMap('fv')),
      422,
      'Invalid',
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    );
    assertStatus(await srv.request('GET', `${CM}/fv`), 404, 'NotFound');
  });

  it('booleans read as Kubernetes reads them: only "0" and "false" are false, so watch=maybe watches', async () => {
    await using srv = await startTestServer();
    for (const value of ['maybe', 'TRUE', '1', 'yes']) {
      const res = await srv.request('GET', `${CM}?watch=${value}&timeoutSeconds=1`);
      assert.equal(res.status, 200);
      assert.equal(res.headers['transfer-encoding'], 'chunked', `watch=${value} is a watch`);
    }
    for (const value of ['0', 'false', 'False', 'FALSE']) {
      const list = ok(await srv.request('GET', `${CM}?watch=${value}`));
      assert.equal(list.kind, 'ConfigMapList', `watch=${value} is a list`);
    }
  });
});

describe('JSON patches of /metadata', () => {
  it('removing or emptying /metadata is a 400: the name cannot be told', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'meta', { k: 'v' });
    const before = ok(await srv.request('GET', `${CM}/meta`));
    const message = 'the name of the object (meta based on URL) was undeterminable: name must be provided';
    for (const op of [{ op: 'remove', path: '/metadata' }, { op: 'replace', path: '/metadata', value: {} }, { op: 'replace', path: '/metadata', value: null }, { op: 'remove', path: '/metadata/name' }]) {
      const res = await srv.request('PATCH', `${CM}/meta`, [op], { 'content-type': 'application/json-patch+json' });
      assertStatus(res, 400, 'BadRequest', message);
    }
    assert.deepEqual(ok(await srv.request('GET', `${CM}/meta`)), before, 'nothing changed');
  });

  it('replacing /metadata with a value that is no object is refused (4xx), nothing stored', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'meta2');
    const before = ok(await srv.request('GET', `${CM}/meta2`));
    for (const value of ['x', 1, [], true]) {
      const res = await srv.request('PATCH', `${CM}/meta2`, [{ op: 'replace', path: '/metadata', value }], { 'content-type': 'application/json-patch+json' });
      assert.ok(res.status >= 400 && res.status < 500, `${JSON.stringify(value)}: HTTP ${res.status} ${res.text}`);
      assert.equal(res.body?.kind, 'Status');
    }
    assert.deepEqual(ok(await srv.request('GET', `${CM}/meta2`)), before, 'nothing changed');
  });

  it('a JSON patch the patch library cannot apply is a 422, never a 500', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'meta4');
    for (const ops of [[{ op: 'move', from: '/metadata', path: '/metadata/x' }], [{ op: 'add', path: '/metadata/__proto__', value: {} }]]) {
      const res = await srv.request('PATCH', `${CM}/meta4`, ops, { 'content-type': 'application/json-patch+json' });
      assertStatus(res, 422, 'Invalid', 'the server rejected our request due to an error in our request');
    }
  });

  it('a merge patch that nulls metadata is refused the same way', async () => {
    await using srv = await startTestServer();
    await createConfigMap(srv, 'meta3');
    const res = await srv.request('PATCH', `${CM}/meta3`, { metadata: null }, { 'content-type': 'application/merge-patch+json' });
    assertStatus(res, 400, 'BadRequest', 'the name of the object (meta3 based on URL) was undeterminable: name must be provided');
  });
});

