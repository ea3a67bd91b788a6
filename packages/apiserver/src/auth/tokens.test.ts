import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ClientCertificateAuthenticator, UnionAuthenticator } from './authenticator.js';
import { CredentialsError } from './errors.js';
import { ADMIN_TOKEN_FILE, ADMIN_USER, TokenAuthenticator, ensureAdminToken, parseBearerToken } from './tokens.js';

async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), 'setpoint-tokens-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

describe('ensureAdminToken', () => {
  it('creates a 32-byte base64url token with mode 0600 at first start and reads it afterwards', async () => {
    await using dir = await tempDir();
    const dataDir = join(dir.path, 'data'); // created on demand
    const token = await ensureAdminToken(dataDir);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(Buffer.from(token, 'base64url').length, 32);
    const path = join(dataDir, ADMIN_TOKEN_FILE);
    assert.equal((await readFile(path, 'utf8')).trim(), token);
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
    assert.equal(await ensureAdminToken(dataDir), token, 'the same token the second time');
  });

  it('gives processes starting at once the same token', async () => {
    await using dir = await tempDir();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => ensureAdminToken(dir.path)));
    assert.equal(new Set(tokens).size, 1, `got ${tokens.join(', ')}`);
    assert.equal((await readFile(join(dir.path, ADMIN_TOKEN_FILE), 'utf8')).trim(), tokens[0]);
  });

  it('accepts a token the operator wrote, and refuses a file without one', async () => {
    await using dir = await tempDir();
    const path = join(dir.path, ADMIN_TOKEN_FILE);
    await writeFile(path, '  my-own.token~123  \n', { mode: 0o644 });
    assert.equal(await ensureAdminToken(dir.path), 'my-own.token~123');
    assert.equal((await stat(path)).mode & 0o777, 0o600, 'mode narrowed');
    await writeFile(path, 'two words\n');
    await assert.rejects(ensureAdminToken(dir.path), (err) => err instanceof CredentialsError && err.code === 'Malformed');
    await writeFile(path, '');
    await assert.rejects(ensureAdminToken(dir.path), CredentialsError);
  });
});

describe('parseBearerToken', () => {
  it('takes the token of a well-formed Bearer header', () => {
    assert.equal(parseBearerToken('Bearer abc-DEF_123'), 'abc-DEF_123');
    assert.equal(parseBearerToken('bearer abc'), 'abc', 'scheme is case-insensitive');
    assert.equal(parseBearerToken('  BEARER   a.b/c+d~e==  '), 'a.b/c+d~e==');
  });

  it('rejects absent, other-scheme and malformed headers', () => {
    for (const header of [undefined, '', 'Bearer', 'Bearer ', 'Basic YWRtaW46YWRtaW4=', 'Bearer a b', 'Bearer a\tb', 'Bearerabc', 'Bearer ab=c', 'Bearer tök', 'Token abc']) {
      assert.equal(parseBearerToken(header), undefined, JSON.stringify(header));
    }
  });
});

describe('TokenAuthenticator', () => {
  const adminToken = 'q3Ufp8KpzNf0v1bC6m9c0Wb2R5k8x1yZ0aB4cD7eF9g';

  it('authenticates the admin token as admin in system:masters', () => {
    const authn = new TokenAuthenticator({ adminToken });
    assert.deepEqual(authn.authenticate({ authorization: `Bearer ${adminToken}` }), {
      name: 'admin',
      groups: ['system:masters', 'system:authenticated'],
    });
    assert.deepEqual(authn.authenticate({ authorization: `bearer ${adminToken}` }), ADMIN_USER);
  });

  it('rejects other tokens, near misses and malformed headers', () => {
    const authn = new TokenAuthenticator({ adminToken });
    const rejected = [
      {},
      { authorization: undefined },
      { authorization: '' },
      { authorization: `Bearer ${adminToken.slice(0, -1)}` },
      { authorization: `Bearer ${adminToken}x` },
      { authorization: `Bearer ${adminToken.toUpperCase()}` },
      { authorization: `Basic ${adminToken}` },
      { authorization: `Bearer ${adminToken} extra` },
      { authorization: adminToken },
      { authorization: 'Bearer' },
    ];
    for (const headers of rejected) assert.equal(authn.authenticate(headers), undefined, JSON.stringify(headers));
    assert.equal(new TokenAuthenticator().authenticate({ authorization: `Bearer ${adminToken}` }), undefined, 'no tokens, no users');
  });

  it('maps further tokens to their users; set replaces, delete forgets', () => {
    const authn = new TokenAuthenticator({ adminToken, tokens: [['node-token', { name: 'system:node:n1', uid: 'u1', groups: ['system:nodes'] }]] });
    assert.deepEqual(authn.authenticate({ authorization: 'Bearer node-token' }), { name: 'system:node:n1', uid: 'u1', groups: ['system:nodes'] });
    authn.set('node-token', { name: 'bob', groups: [] });
    assert.deepEqual(authn.authenticate({ authorization: 'Bearer node-token' }), { name: 'bob', groups: [] });
    assert.equal(authn.delete('node-token'), true);
    assert.equal(authn.delete('node-token'), false);
    assert.equal(authn.authenticate({ authorization: 'Bearer node-token' }), undefined);
    assert.equal(authn.authenticate({ authorization: `Bearer ${adminToken}` })?.name, 'admin', 'others untouched');
    assert.throws(() => authn.set('has space', ADMIN_USER), RangeError);
    assert.throws(() => authn.set('', ADMIN_USER), RangeError);
  });

  it('hands out copies: changing a result changes nothing inside', () => {
    const authn = new TokenAuthenticator({ adminToken });
    const user = authn.authenticate({ authorization: `Bearer ${adminToken}` });
    assert.ok(user);
    user.groups.push('evil');
    assert.deepEqual(authn.authenticate({ authorization: `Bearer ${adminToken}` })?.groups, ['system:masters', 'system:authenticated']);
  });
});

describe('ClientCertificateAuthenticator and UnionAuthenticator', () => {
  it('names the user by CN with O as groups, plus system:authenticated', () => {
    const authn = new ClientCertificateAuthenticator();
    assert.deepEqual(authn.authenticate({}, { commonName: 'alice', organizations: ['dev'] }), { name: 'alice', groups: ['dev', 'system:authenticated'] });
    assert.equal(authn.authenticate({}, { commonName: '', organizations: ['dev'] }), undefined);
    assert.equal(authn.authenticate({ authorization: 'Bearer x' }), undefined);
  });

  it('takes the first authenticator that names a user, and puts every user in system:authenticated', async () => {
    const tokens = new TokenAuthenticator({ adminToken: 'secret', tokens: [['bob-token', { name: 'bob', groups: ['dev'] }]] });
    const union = new UnionAuthenticator([new ClientCertificateAuthenticator(), tokens]);
    assert.equal((await union.authenticate({ authorization: 'Bearer secret' }))?.name, 'admin');
    assert.equal((await union.authenticate({ authorization: 'Bearer wrong' }, { commonName: 'alice', organizations: [] }))?.name, 'alice');
    assert.equal(await union.authenticate({ authorization: 'Bearer wrong' }), undefined);
    assert.deepEqual(await union.authenticate({ authorization: 'Bearer bob-token' }), { name: 'bob', groups: ['dev', 'system:authenticated'] });
    const slow = { authenticate: async () => ({ name: 'later', groups: [] }) };
    assert.deepEqual(await new UnionAuthenticator([tokens, slow]).authenticate({}), { name: 'later', groups: ['system:authenticated'] });
  });
});
