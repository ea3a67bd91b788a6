/**
 * Authentication end to end over real TLS: the static token file, client certificates of the
 * cluster CA (and refused ones: another CA, expired, not for client auth), ServiceAccount tokens
 * through TokenRequest (expired, forged, revoked → 401), SelfSubjectReview, and kubectl's
 * `create token` and `auth whoami`. kubectl runs asynchronously with a kill deadline.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { MemoryStore } from '@setpoint/store';
import {
  ClientCertificateAuthenticator,
  ServiceAccountTokens,
  TokenAuthenticator,
  UnionAuthenticator,
  ensureAdminToken,
  ensureServiceAccountKeys,
  ensureServingCertificates,
  issueClientCertificate,
  parseTokenFile,
  renderKubeconfig,
  type CertificateAndKey,
  type ServiceAccountKeys,
} from '../src/auth/index.js';
import { issueCertificate, subjectAltNames } from '../src/auth/pki.js';
import { ApiServer } from '../src/server.js';
import type { TestResponse } from './harness.js';
import { assertStatus, ok } from './support.js';

/** The 401 every refused credential gets: nothing about why. */
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

interface Credentials {
  readonly token?: string;
  readonly cert?: CertificateAndKey;
}

describe('authentication: token file, client certificates, ServiceAccount tokens', () => {
  let dir: string;
  let store: MemoryStore;
  let server: ApiServer;
  let caCert: string;
  let caKey: string;
  let adminToken: string;
  let keys: ServiceAccountKeys;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'setpoint-authn-'));
    const certs = await ensureServingCertificates({ dataDir: dir });
    caCert = certs.caCert;
    caKey = await readFile(join(dir, 'ca.key'), 'utf8');
    adminToken = await ensureAdminToken(dir);
    keys = await ensureServiceAccountKeys({ dataDir: dir });
    const fileTokens = parseTokenFile('bob-token,bob,bob-uid,"dev,ops"\ncarol-token,carol,,\n', 'tokens.csv');
    store = new MemoryStore();
    server = await ApiServer.start({
      store,
      port: 0,
      compaction: false,
      tls: { cert: certs.cert, key: certs.key, clientCA: caCert },
      authenticator: new UnionAuthenticator([
        new ClientCertificateAuthenticator(),
        new TokenAuthenticator({ adminToken, tokens: fileTokens.map((e) => [e.token, e.user] as const) }),
      ]),
      serviceAccountTokens: { keys },
    });
  });

  after(async () => {
    await server.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** One HTTPS request with a bearer token and/or a client certificate; no connection reuse. */
  function call(method: string, path: string, who: Credentials, body?: unknown): Promise<TestResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (who.token !== undefined) headers['authorization'] = `Bearer ${who.token}`;
    if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) });
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(path, server.url), { method, headers, ca: caCert, agent: false, ...(who.cert ? { cert: who.cert.cert, key: who.cert.key } : {}) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body: parsed });
        });
      });
      req.on('error', reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  const admin: Credentials = { get token() { return adminToken; } };
  const whoami = async (who: Credentials) => {
    const res = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', who, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    return res.status === 201 ? (res.body.status.userInfo as { username: string; uid?: string; groups: string[]; extra?: Record<string, string[]> }) : res;
  };
  const refused = async (who: Credentials, what: string) => {
    const res = await call('GET', '/api/v1/namespaces/default/pods', who);
    assert.equal(res.status, 401, `${what}: HTTP ${res.status}`);
    assert.deepEqual(res.body, UNAUTHORIZED, what);
  };
  const create = async (path: string, obj: KubeObject) => ok(await call('POST', path, admin, obj), 201) as KubeObject;
  const requestToken = (name: string, spec: Record<string, unknown> = {}, namespace = 'default') =>
    call('POST', `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, admin, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });

  it('keeps the admin token in system:masters, and answers SelfSubjectReview', async () => {
    assert.deepEqual(await whoami(admin), { username: 'admin', groups: ['system:masters', 'system:authenticated'] });
    const res = await call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', admin, {});
    assert.equal(res.body.kind, 'SelfSubjectReview');
    assert.equal(res.body.apiVersion, 'authentication.k8s.io/v1');
    assertStatus(await call('GET', '/apis/authentication.k8s.io/v1/selfsubjectreviews', admin), 405, 'MethodNotAllowed');
  });

  it('authenticates the users of the token file, with their uid and groups', async () => {
    assert.deepEqual(await whoami({ token: 'bob-token' }), { username: 'bob', uid: 'bob-uid', groups: ['dev', 'ops', 'system:authenticated'] });
    assert.deepEqual(await whoami({ token: 'carol-token' }), { username: 'carol', groups: ['system:authenticated'] });
    await refused({ token: 'dave-token' }, 'an unknown token');
    await refused({}, 'no credentials');
  });

  it('authenticates a client certificate of the cluster CA as CN with O as groups', async () => {
    const alice = await issueClientCertificate({ ca: { cert: caCert, key: caKey }, commonName: 'alice', organizations: ['dev', 'qa'], days: 1 });
    assert.deepEqual(await whoami({ cert: alice }), { username: 'alice', groups: ['dev', 'qa', 'system:authenticated'] });
    // A wrong token beside a good certificate: the certificate still authenticates (as in Kubernetes).
    assert.equal(((await whoami({ cert: alice, token: 'wrong' })) as { username: string }).username, 'alice');
  });

  it('refuses a certificate of another CA, an expired one, and one not meant for clients', async () => {
    const otherDir = await mkdtemp(join(tmpdir(), 'setpoint-authn-other-'));
    try {
      await ensureServingCertificates({ dataDir: otherDir });
        const otherCa = { cert: await readFile(join(otherDir, 'ca.crt'), 'utf8'), key: await readFile(join(otherDir, 'ca.key'), 'utf8') };
      await refused({ cert: await issueClientCertificate({ ca: otherCa, commonName: 'mallory', organizations: ['system:masters'], days: 1 }) }, 'another CA');
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
    const longAgo = Date.now() - 10 * 24 * 3600_000;
    const expired = await issueClientCertificate({ ca: { cert: caCert, key: caKey }, commonName: 'alice', days: 1, clock: { now: () => longAgo } });
    await refused({ cert: expired }, 'an expired certificate');
    const serving = await issueCertificate({ subject: [{ CN: ['alice'] }], profile: { kind: 'server', names: subjectAltNames(['localhost']) }, ca: { cert: caCert, key: caKey }, now: Date.now(), days: 1 });
    await refused({ cert: serving }, 'a serving certificate (serverAuth only)');
  });

  it('issues ServiceAccount tokens through TokenRequest; they authenticate as the account', async () => {
    const sa = await create('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
    const before = Date.now();
    const tr = ok(await requestToken('robot'), 201);
    assert.equal(tr.kind, 'TokenRequest');
    assert.equal(tr.apiVersion, 'authentication.k8s.io/v1');
    assert.deepEqual(tr.spec, { audiences: ['https://kubernetes.default.svc.cluster.local'], expirationSeconds: 3600 });
    const expires = Date.parse(tr.status.expirationTimestamp);
    assert.ok(expires >= Math.floor(before / 1000) * 1000 + 3600_000 && expires <= Date.now() + 3600_000, tr.status.expirationTimestamp);
    assert.deepEqual(await whoami({ token: tr.status.token }), {
      username: 'system:serviceaccount:default:robot',
      uid: sa.metadata.uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
      extra: { 'authentication.kubernetes.io/credential-id': [expect(tr.status.token)] },
    });
    assertStatus(await requestToken('nobody'), 404, 'NotFound', 'serviceaccounts "nobody" not found');
  });

  /** The credential-id extra of a token: JTI=<its jti>. */
  function expect(token: string): string {
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { jti: string };
    return `JTI=${claims.jti}`;
  }

  it("validates TokenRequest as Kubernetes does", async () => {
    assertStatus(
      await requestToken('robot', { expirationSeconds: 599 }),
      422,
      'Invalid',
      'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes',
    );
    await create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'other-sa' }, spec: { serviceAccountName: 'someone', containers: [{ name: 'c', image: 'x' }] } });
    assertStatus(
      await requestToken('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'other-sa' } }),
      400,
      'BadRequest',
      'cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.',
    );
    assertStatus(await requestToken('robot', { boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'n1' } }), 400, 'BadRequest', 'cannot bind token to object of type /v1, Kind=Node');
    await create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'robot-pod' }, spec: { serviceAccountName: 'robot', containers: [{ name: 'c', image: 'x' }] } });
    assertStatus(
      await requestToken('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'robot-pod', uid: 'not-its-uid' } }),
      409,
      'Conflict',
      /the UID in the bound object reference \(not-its-uid\) does not match the UID in record/,
    );
    assertStatus(await requestToken('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'no-such-pod' } }), 404, 'NotFound', 'pods "no-such-pod" not found');
  });

  it('answers 401 to expired, forged, tampered and alg-none tokens', async () => {
    const sa = ok(await call('GET', '/api/v1/namespaces/default/serviceaccounts/robot', admin)) as KubeObject;
    const objects = { get: async () => undefined };
    const issue = (k: ServiceAccountKeys, now: number, extra: Partial<{ audiences: string[] }> = {}) =>
      new ServiceAccountTokens(objects, { keys: k, clock: { now: () => now } }).issue({ serviceAccount: sa, expirationSeconds: 600, ...extra }).token;
    const good = issue(keys, Date.now());
    assert.equal(((await whoami({ token: good })) as { username: string }).username, 'system:serviceaccount:default:robot');
    await refused({ token: issue(keys, Date.now() - 3600_000) }, 'an expired token');
    await refused({ token: issue(keys, Date.now() + 3600_000) }, 'a token not valid yet');
    const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    await refused({ token: issue({ signingKey: stranger, verifyingKeys: [createPublicKey(stranger)] }, Date.now()) }, 'a token signed with another key');
    await refused({ token: issue(keys, Date.now(), { audiences: ['https://vault.example'] }) }, 'a token for another audience');
    const [header, payload, signature] = good.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'system:serviceaccount:kube-system:admin' })).toString('base64url');
    await refused({ token: `${header}.${forged}.${signature}` }, 'a tampered payload');
    await refused({ token: `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.` }, 'alg none');
  });

  it('revokes tokens when the ServiceAccount or the bound pod is deleted', async () => {
    await create('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'temp' } });
    await create('/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'temp-pod' }, spec: { serviceAccountName: 'temp', containers: [{ name: 'c', image: 'x' }] } });
    const plain = ok(await requestToken('temp'), 201).status.token as string;
    const bound = ok(await requestToken('temp', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'temp-pod' } }), 201);
    assert.equal(bound.spec.boundObjectRef.name, 'temp-pod');
    const boundUser = await whoami({ token: bound.status.token });
    assert.deepEqual((boundUser as { extra: Record<string, string[]> }).extra['authentication.kubernetes.io/pod-name'], ['temp-pod']);
    // The pod is bound to no node: deleting it removes it at once, and its token with it.
    ok(await call('DELETE', '/api/v1/namespaces/default/pods/temp-pod', admin));
    await refused({ token: bound.status.token }, 'a token of a deleted pod');
    assert.equal(((await whoami({ token: plain })) as { username: string }).username, 'system:serviceaccount:default:temp', 'the unbound token lives on');
    ok(await call('DELETE', '/api/v1/namespaces/default/serviceaccounts/temp', admin));
    await refused({ token: plain }, 'a token of a deleted ServiceAccount');
    await create('/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'temp' } });
    await refused({ token: plain }, 'a token of an earlier ServiceAccount of the same name');
  });

  it('lists serviceaccounts/token and selfsubjectreviews in discovery', async () => {
    const core = ok(await call('GET', '/api/v1', admin));
    assert.deepEqual(
      core.resources.find((r: { name: string }) => r.name === 'serviceaccounts/token'),
      { name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'] },
    );
    const authn = ok(await call('GET', '/apis/authentication.k8s.io/v1', admin));
    assert.deepEqual(
      authn.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs]),
      [['selfsubjectreviews', ['create']]],
    );
  });

  describe('with kubectl', () => {
    let kubeDir: string;
    before(async () => {
      kubeDir = await mkdtemp(join(tmpdir(), 'setpoint-authn-kubectl-'));
    });
    after(async () => {
      await rm(kubeDir, { recursive: true, force: true });
    });

    function kubectl(kubeconfig: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
      return new Promise((resolve, reject) => {
        execFile('kubectl', [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(kubeDir, 'cache')}`, '--request-timeout=10s', ...args], { timeout: 15_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
          if (err === null) return resolve({ code: 0, stdout, stderr });
          if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
          reject(new Error(`kubectl ${args.join(' ')} did not finish (${err.signal ?? err.message}): ${stderr}`, { cause: err }));
        });
      });
    }
    const kubeconfigFor = async (name: string, user: { token: string } | { clientCertificate: CertificateAndKey }) => {
      const path = join(kubeDir, `${name}.yaml`);
      await writeFile(path, renderKubeconfig({ server: server.url, caCert, userName: name, ...user }), { mode: 0o600 });
      return path;
    };

    it('kubectl create token prints a token that authenticates as the ServiceAccount', async () => {
      const adminConfig = await kubeconfigFor('admin', { token: adminToken });
      const res = await kubectl(adminConfig, 'create', 'token', 'robot', '--duration=20m');
      assert.equal(res.code, 0, res.stderr);
      const token = res.stdout.trim();
      const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number; iat: number; sub: string };
      assert.equal(claims.sub, 'system:serviceaccount:default:robot');
      assert.equal(claims.exp - claims.iat, 1200);
      const whoamiOut = await kubectl(await kubeconfigFor('robot', { token }), 'auth', 'whoami');
      assert.equal(whoamiOut.code, 0, whoamiOut.stderr);
      assert.match(whoamiOut.stdout, /Username\s+system:serviceaccount:default:robot/);
      assert.match(whoamiOut.stdout, /Groups\s+\[system:serviceaccounts system:serviceaccounts:default system:authenticated\]/);
      const missing = await kubectl(adminConfig, 'create', 'token', 'nobody');
      assert.notEqual(missing.code, 0);
      assert.match(missing.stderr, /serviceaccounts "nobody" not found/);
    });

    it('kubectl auth whoami with a client certificate, and Unauthorized with a bad token', async () => {
      const cert = await issueClientCertificate({ ca: { cert: caCert, key: caKey }, commonName: 'erin', organizations: ['auditors'], days: 1 });
      const res = await kubectl(await kubeconfigFor('erin', { clientCertificate: cert }), 'auth', 'whoami', '-o', 'json');
      assert.equal(res.code, 0, res.stderr);
      assert.deepEqual(JSON.parse(res.stdout).status.userInfo, { username: 'erin', groups: ['auditors', 'system:authenticated'] });
      const bad = await kubectl(await kubeconfigFor('bad', { token: 'not-a-token' }), 'get', 'pods');
      assert.notEqual(bad.code, 0);
      assert.match(bad.stderr, /error: You must be logged in to the server/);
    });
  });
});
