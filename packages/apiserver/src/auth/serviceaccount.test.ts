import assert from 'node:assert/strict';
import { createHmac, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { FakeClock, type KubeObject } from '@setpoint/api';
import { CredentialsError } from './errors.js';
import { algorithmOf, checkRegisteredClaims, keyId, signJwt, verifyJwt, type JwtClaims } from './jwt.js';
import { ensureServiceAccountKeys, serviceAccountKeyFiles, type ServiceAccountKeys } from './sakeys.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER, ServiceAccountTokens, type BoundObjectReader, type BoundResource } from './serviceaccount.js';

function ecKeys(curve = 'prime256v1'): ServiceAccountKeys {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: curve });
  return { signingKey: privateKey, verifyingKeys: [createPublicKey(privateKey)] };
}

/** Objects by resource/namespace/name, as the API server's storage would answer. */
class Objects implements BoundObjectReader {
  readonly map = new Map<string, KubeObject>();
  put(resource: BoundResource, obj: KubeObject): KubeObject {
    this.map.set(`${resource}/${obj.metadata.namespace ?? ''}/${obj.metadata.name}`, obj);
    return obj;
  }
  remove(resource: BoundResource, namespace: string, name: string): void {
    this.map.delete(`${resource}/${namespace}/${name}`);
  }
  async get(resource: BoundResource, namespace: string, name: string): Promise<KubeObject | undefined> {
    return this.map.get(`${resource}/${namespace}/${name}`);
  }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('JWT signing and verification', () => {
  it('signs ES256/ES384/ES512/RS256 by key type, with the key id in the header', () => {
    for (const [curve, alg] of [
      ['prime256v1', 'ES256'],
      ['secp384r1', 'ES384'],
      ['secp521r1', 'ES512'],
    ] as const) {
      const { signingKey } = ecKeys(curve);
      const token = signJwt({ a: 1 }, signingKey);
      assert.deepEqual(JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()), { alg, kid: keyId(signingKey) });
      assert.deepEqual(verifyJwt(token, [createPublicKey(signingKey)]), { a: 1 });
    }
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    assert.equal(algorithmOf(rsa.privateKey), 'RS256');
    assert.deepEqual(verifyJwt(signJwt({ b: 2 }, rsa.privateKey), [rsa.publicKey]), { b: 2 });
    assert.throws(() => algorithmOf(generateKeyPairSync('ed25519').privateKey), CredentialsError);
  });

  it('refuses a changed payload, another key, alg none, HMAC with the public key, and algorithm mismatch', () => {
    const { signingKey, verifyingKeys } = ecKeys();
    const token = signJwt({ sub: 'a' }, signingKey);
    const [header, , signature] = token.split('.') as [string, string, string];
    assert.equal(verifyJwt(`${header}.${b64({ sub: 'b' })}.${signature}`, verifyingKeys), undefined, 'changed payload');
    assert.equal(verifyJwt(token, ecKeys().verifyingKeys), undefined, 'another key');
    assert.equal(verifyJwt(`${b64({ alg: 'none' })}.${b64({ sub: 'a' })}.`, verifyingKeys), undefined, 'alg none, empty signature');
    assert.equal(verifyJwt(`${b64({ alg: 'none' })}.${b64({ sub: 'a' })}.${signature}`, verifyingKeys), undefined, 'alg none');
    const pem = verifyingKeys[0]!.export({ type: 'spki', format: 'pem' });
    const input = `${b64({ alg: 'HS256' })}.${b64({ sub: 'a' })}`;
    assert.equal(verifyJwt(`${input}.${createHmac('sha256', pem).update(input).digest('base64url')}`, verifyingKeys), undefined, 'HS256 confusion');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rsToken = signJwt({ sub: 'a' }, rsa.privateKey);
    const relabelled = `${b64({ alg: 'ES256' })}.${rsToken.split('.').slice(1).join('.')}`;
    assert.equal(verifyJwt(relabelled, [rsa.publicKey]), undefined, 'alg not the key type');
    assert.equal(verifyJwt(`${b64({ alg: 'ES256', crit: ['x'] })}.${b64({})}.${signature}`, verifyingKeys), undefined, 'crit');
    for (const junk of ['', 'a.b', 'a.b.c.d', `${header}.${b64({})}.%%%`, `${header}=.${b64({})}.${signature}`]) assert.equal(verifyJwt(junk, verifyingKeys), undefined, junk);
  });

  it('tries the key named by kid, and every key of the right type otherwise', () => {
    const old = ecKeys();
    const current = ecKeys();
    const keys = [...current.verifyingKeys, ...old.verifyingKeys];
    assert.deepEqual(verifyJwt(signJwt({ n: 1 }, old.signingKey), keys), { n: 1 });
    assert.deepEqual(verifyJwt(signJwt({ n: 2 }, old.signingKey, 'unknown-kid'), keys), { n: 2 });
  });

  it('checks expiry, not-before, issuer and audience with leeway', () => {
    const expected = { nowSeconds: 1000, leewaySeconds: 60, issuers: ['iss'], audiences: ['api'] };
    const ok: JwtClaims = { iss: 'iss', aud: ['x', 'api'], exp: 2000, nbf: 1000, iat: 1000 };
    assert.equal(checkRegisteredClaims(ok, expected), undefined);
    assert.equal(checkRegisteredClaims({ ...ok, aud: 'api' }, expected), undefined);
    assert.equal(checkRegisteredClaims({ ...ok, exp: 950 }, expected), undefined, 'within the leeway');
    assert.equal(checkRegisteredClaims({ ...ok, exp: 900 }, expected), 'the token has expired');
    assert.equal(checkRegisteredClaims({ ...ok, exp: undefined }, expected), 'the token has no expiry');
    assert.equal(checkRegisteredClaims({ ...ok, nbf: 1100 }, expected), 'the token is not valid yet');
    assert.equal(checkRegisteredClaims({ ...ok, iat: 1100 }, expected), 'the token was issued in the future');
    assert.equal(checkRegisteredClaims({ ...ok, iss: 'other' }, expected), 'the token has another issuer');
    assert.equal(checkRegisteredClaims({ ...ok, aud: ['other'] }, expected), 'the token is for another audience');
  });
});

describe('ServiceAccountTokens', () => {
  const clock = new FakeClock(Date.UTC(2026, 5, 1));
  let keys: ServiceAccountKeys;
  let objects: Objects;
  let tokens: ServiceAccountTokens;
  let sa: KubeObject;
  let pod: KubeObject;
  beforeEach(() => {
    keys = ecKeys();
    objects = new Objects();
    tokens = new ServiceAccountTokens(objects, { keys, clock });
    sa = objects.put('serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'team', uid: 'sa-uid-1' } });
    pod = objects.put('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'team', uid: 'pod-uid-1' }, spec: { serviceAccountName: 'robot', containers: [] } });
  });

  it("issues Kubernetes' claims and authenticates as the ServiceAccount", async () => {
    const issued = tokens.issue({ serviceAccount: sa, pod, node: { name: 'n1', uid: 'node-uid' }, expirationSeconds: 3600 });
    assert.equal(issued.expiresAt, clock.now() + 3600_000);
    const claims = JSON.parse(Buffer.from(issued.token.split('.')[1]!, 'base64url').toString()) as JwtClaims;
    const now = clock.now() / 1000;
    assert.deepEqual({ ...claims, jti: typeof claims['jti'] }, {
      aud: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
      exp: now + 3600,
      iat: now,
      iss: DEFAULT_SERVICE_ACCOUNT_ISSUER,
      jti: 'string',
      'kubernetes.io': { namespace: 'team', serviceaccount: { name: 'robot', uid: 'sa-uid-1' }, pod: { name: 'web', uid: 'pod-uid-1' }, node: { name: 'n1', uid: 'node-uid' } },
      nbf: now,
      sub: 'system:serviceaccount:team:robot',
    });
    const user = await tokens.authenticate(bearer(issued.token));
    assert.deepEqual(user, {
      name: 'system:serviceaccount:team:robot',
      uid: 'sa-uid-1',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:team', 'system:authenticated'],
      extra: {
        'authentication.kubernetes.io/pod-name': ['web'],
        'authentication.kubernetes.io/pod-uid': ['pod-uid-1'],
        'authentication.kubernetes.io/node-name': ['n1'],
        'authentication.kubernetes.io/node-uid': ['node-uid'],
        'authentication.kubernetes.io/credential-id': [`JTI=${String(claims['jti'])}`],
      },
    });
  });

  it('refuses an expired token, and one not yet valid', async () => {
    const { token } = tokens.issue({ serviceAccount: sa, expirationSeconds: 600 });
    assert.ok(await tokens.authenticate(bearer(token)));
    await clock.advance(600_000 + 61_000);
    assert.deepEqual(await tokens.review(token), { reason: 'the token has expired' });
    assert.equal(await tokens.authenticate(bearer(token)), undefined);
    const future = new ServiceAccountTokens(objects, { keys, clock: { now: () => clock.now() + 3600_000 } }).issue({ serviceAccount: sa, expirationSeconds: 7200 });
    assert.deepEqual(await tokens.review(future.token), { reason: 'the token is not valid yet' });
  });

  it('refuses a token for another audience, another issuer, or signed with another key', async () => {
    const other = tokens.issue({ serviceAccount: sa, audiences: ['https://vault.example'], expirationSeconds: 600 });
    assert.deepEqual(await tokens.review(other.token), { reason: 'the token is for another audience' });
    const foreign = new ServiceAccountTokens(objects, { keys, clock, issuer: 'https://elsewhere' }).issue({ serviceAccount: sa, audiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER], expirationSeconds: 600 });
    assert.deepEqual(await tokens.review(foreign.token), { reason: 'the token has another issuer' });
    const forged = new ServiceAccountTokens(objects, { keys: ecKeys(), clock }).issue({ serviceAccount: sa, expirationSeconds: 600 });
    assert.match((await tokens.review(forged.token) as { reason: string }).reason, /signature/);
    assert.equal(await tokens.authenticate(bearer(forged.token)), undefined);
  });

  it('refuses alg none and a token with hand-made claims it did not sign', async () => {
    const { token } = tokens.issue({ serviceAccount: sa, expirationSeconds: 600 });
    const payload = token.split('.')[1]!;
    assert.equal(await tokens.authenticate(bearer(`${b64({ alg: 'none' })}.${payload}.`)), undefined);
    assert.equal(await tokens.authenticate({ authorization: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${payload}.x` }), undefined);
  });

  it('is revoked by deleting the ServiceAccount, or recreating it with another uid', async () => {
    const { token } = tokens.issue({ serviceAccount: sa, expirationSeconds: 600 });
    objects.remove('serviceaccounts', 'team', 'robot');
    assert.match((await tokens.review(token) as { reason: string }).reason, /ServiceAccount team\/robot no longer exists/);
    objects.put('serviceaccounts', { ...sa, metadata: { ...sa.metadata, uid: 'sa-uid-2' } });
    assert.equal(await tokens.authenticate(bearer(token)), undefined);
  });

  it('is revoked by deleting the bound pod (after the grace of a graceful deletion) or secret', async () => {
    const { token } = tokens.issue({ serviceAccount: sa, pod, expirationSeconds: 3600 });
    objects.put('pods', { ...pod, metadata: { ...pod.metadata, deletionTimestamp: new Date(clock.now() + 30_000).toISOString() } });
    assert.ok(await tokens.authenticate(bearer(token)), 'a terminating pod keeps its identity');
    await clock.advance(30_000 + 61_000);
    assert.match((await tokens.review(token) as { reason: string }).reason, /pod team\/web the token is bound to is gone/);
    objects.put('pods', { ...pod, metadata: { ...pod.metadata, uid: 'pod-uid-2' } });
    assert.equal(await tokens.authenticate(bearer(token)), undefined, 'a new pod of the same name');
    objects.put('pods', pod);
    assert.ok(await tokens.authenticate(bearer(token)));
    objects.remove('pods', 'team', 'web');
    assert.equal(await tokens.authenticate(bearer(token)), undefined);

    const secret = objects.put('secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'team', uid: 'secret-uid' } });
    const bySecret = tokens.issue({ serviceAccount: sa, secret, expirationSeconds: 600 });
    assert.ok(await tokens.authenticate(bearer(bySecret.token)));
    objects.remove('secrets', 'team', 's');
    assert.equal(await tokens.authenticate(bearer(bySecret.token)), undefined);
  });

  it('declines what is not a JWT, so other token authenticators may take it', async () => {
    assert.equal(await tokens.authenticate(bearer('plain-static-token')), undefined);
    assert.equal(await tokens.authenticate({}), undefined);
    assert.equal(await tokens.authenticate({ authorization: 'Basic YWRtaW46YWRtaW4=' }), undefined);
  });
});

describe('ensureServiceAccountKeys', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'setpoint-sakeys-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('generates an ECDSA P-256 pair at first start (sa.key 0600, sa.pub 0600) and reuses it', async () => {
    const first = await ensureServiceAccountKeys({ dataDir: dir });
    assert.equal(algorithmOf(first.signingKey), 'ES256');
    assert.equal((await stat(join(dir, serviceAccountKeyFiles.privateKey))).mode & 0o777, 0o600);
    assert.equal((await stat(join(dir, serviceAccountKeyFiles.publicKeys))).mode & 0o777, 0o600);
    const again = await ensureServiceAccountKeys({ dataDir: dir });
    assert.equal(keyId(again.signingKey), keyId(first.signingKey));
    assert.equal(again.verifyingKeys.length, 1);
  });

  it('accepts the extra keys listed in sa.pub (a rotation), and refuses files that do not parse', async () => {
    const old = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey as KeyObject;
    const pubPath = join(dir, serviceAccountKeyFiles.publicKeys);
    await writeFile(pubPath, (await readFile(pubPath, 'utf8')) + old.export({ type: 'spki', format: 'pem' }).toString());
    const keys = await ensureServiceAccountKeys({ dataDir: dir });
    assert.deepEqual(keys.verifyingKeys.map(keyId).sort(), [keyId(keys.signingKey), keyId(old)].sort());
    await writeFile(pubPath, 'not a key');
    await assert.rejects(ensureServiceAccountKeys({ dataDir: dir }), (err: unknown) => err instanceof CredentialsError && err.code === 'Malformed' && err.message.includes('sa.pub'));
    await writeFile(join(dir, serviceAccountKeyFiles.privateKey), 'garbage', { mode: 0o600 });
    await assert.rejects(ensureServiceAccountKeys({ dataDir: dir }), (err: unknown) => err instanceof CredentialsError && err.message.includes('sa.key'));
  });
});
