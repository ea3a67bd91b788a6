import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { stringify } from 'yaml';
import { ConfigError } from './errors.js';
import { loadKubeconfig } from './kubeconfig.js';

const CA = '-----BEGIN CERTIFICATE-----\nQ0EtY2VydA==\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nY2xpZW50\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\na2V5\n-----END PRIVATE KEY-----\n';
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

interface Doc {
  clusters?: Array<{ name: string; cluster: Record<string, unknown> }>;
  users?: Array<{ name: string; user: Record<string, unknown> }>;
  contexts?: Array<{ name: string; context: Record<string, unknown> }>;
  'current-context'?: string;
}

describe('loadKubeconfig', () => {
  let dir: string;
  let n = 0;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'setpoint-kubeconfig-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const write = async (doc: Doc | string, name = `config-${n++}`): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, typeof doc === 'string' ? doc : stringify({ apiVersion: 'v1', kind: 'Config', ...doc }));
    return path;
  };
  const one = (cluster: Record<string, unknown>, user: Record<string, unknown>, context: Record<string, unknown> = {}): Doc => ({
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', ...context } }],
    'current-context': 'ctx',
  });
  const rejects = async (doc: Doc | string, pattern: RegExp, options: { context?: string } = {}) => {
    const path = await write(doc);
    await assert.rejects(loadKubeconfig({ path, ...options }), (err: unknown) => {
      assert.ok(err instanceof ConfigError, String(err));
      assert.ok(err.message.startsWith(path), `message names the file: ${err.message}`);
      assert.doesNotMatch(err.message, /\n/);
      assert.match(err.message, pattern);
      return true;
    });
  };

  it('reads the data forms: server, CA, client certificate and key, token, namespace', async () => {
    const path = await write(
      one(
        { server: 'https://10.0.0.1:6443/', 'certificate-authority-data': b64(CA), 'tls-server-name': 'kubernetes' },
        { 'client-certificate-data': b64(CERT), 'client-key-data': b64(KEY), token: 'abc.def' },
        { namespace: 'team-a' },
      ),
    );
    const config = await loadKubeconfig({ path });
    assert.deepEqual(config, { server: 'https://10.0.0.1:6443', ca: CA, tlsServerName: 'kubernetes', cert: CERT, key: KEY, token: 'abc.def', namespace: 'team-a' });
  });

  it('reads the file forms relative to the kubeconfig, and tokenFile as an absolute path', async () => {
    const sub = join(dir, 'files');
    await mkdir(sub, { recursive: true });
    await writeFile(join(sub, 'ca.crt'), CA);
    await writeFile(join(sub, 'client.crt'), CERT);
    await writeFile(join(sub, 'client.key'), KEY);
    await writeFile(join(sub, 'token'), 'from-file\n');
    const path = await write(
      one({ server: 'https://k:443', 'certificate-authority': 'ca.crt' }, { 'client-certificate': 'client.crt', 'client-key': join(sub, 'client.key'), tokenFile: 'token' }),
      'files/kubeconfig',
    );
    const config = await loadKubeconfig({ path });
    assert.equal(config.ca, CA);
    assert.equal(config.cert, CERT);
    assert.equal(config.key, KEY);
    assert.equal(config.tokenFile, join(sub, 'token'));
    assert.equal(config.token, 'from-file');
  });

  it('prefers data over files, and reads insecure-skip-tls-verify and basic auth', async () => {
    const path = await write(one({ server: 'https://k', 'insecure-skip-tls-verify': true }, { username: 'alice', password: 's3cret' }));
    assert.deepEqual(await loadKubeconfig({ path }), { server: 'https://k', insecureSkipTLSVerify: true, username: 'alice', password: 's3cret' });
    const both = await write(one({ server: 'https://k', 'certificate-authority-data': b64(CA), 'certificate-authority': 'missing.crt' }, {}));
    assert.equal((await loadKubeconfig({ path: both })).ca, CA);
  });

  it('resolves an exec plugin, its command against the kubeconfig when it has a directory part', async () => {
    const path = await write(
      one({ server: 'https://k' }, {
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './bin/plugin', args: ['get-token'], env: [{ name: 'A', value: 'b' }], interactiveMode: 'Never' },
      }),
    );
    const config = await loadKubeconfig({ path });
    assert.deepEqual(config.exec, {
      command: join(dir, 'bin/plugin'),
      args: ['get-token'],
      env: [{ name: 'A', value: 'b' }],
      apiVersion: 'client.authentication.k8s.io/v1',
      interactiveMode: 'Never',
      provideClusterInfo: false,
    });
    const bare = await write(one({ server: 'https://k' }, { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: 'aws' } }));
    assert.equal((await loadKubeconfig({ path: bare })).exec?.command, 'aws');
  });

  it('uses the named context over current-context', async () => {
    const path = await write({
      clusters: [
        { name: 'a', cluster: { server: 'https://a' } },
        { name: 'b', cluster: { server: 'https://b' } },
      ],
      users: [{ name: 'u', user: { token: 't' } }],
      contexts: [
        { name: 'one', context: { cluster: 'a', user: 'u' } },
        { name: 'two', context: { cluster: 'b', namespace: 'ns2' } },
      ],
      'current-context': 'one',
    });
    assert.deepEqual(await loadKubeconfig({ path }), { server: 'https://a', token: 't' });
    assert.deepEqual(await loadKubeconfig({ path, context: 'two' }), { server: 'https://b', namespace: 'ns2' });
  });

  it('merges the KUBECONFIG files as kubectl does: first name and first current-context win, missing files skipped', async () => {
    const first = await write({
      clusters: [{ name: 'shared', cluster: { server: 'https://first' } }],
      users: [{ name: 'me', user: { token: 'first-token' } }],
    });
    const second = await write({
      clusters: [
        { name: 'shared', cluster: { server: 'https://second' } },
        { name: 'only-second', cluster: { server: 'https://only-second' } },
      ],
      users: [{ name: 'me', user: { token: 'second-token' } }],
      contexts: [
        { name: 'main', context: { cluster: 'shared', user: 'me', namespace: 'from-second' } },
        { name: 'other', context: { cluster: 'only-second' } },
      ],
      'current-context': 'main',
    });
    const third = await write({ contexts: [{ name: 'main', context: { cluster: 'only-second' } }], 'current-context': 'other' });
    const env = { KUBECONFIG: [first, join(dir, 'does-not-exist'), second, third].join(':') };
    assert.deepEqual(await loadKubeconfig({ env }), { server: 'https://first', token: 'first-token', namespace: 'from-second' });
    assert.deepEqual(await loadKubeconfig({ env, context: 'other' }), { server: 'https://only-second' });
  });

  it('defaults to ~/.kube/config', async () => {
    const home = join(dir, 'home');
    await mkdir(join(home, '.kube'), { recursive: true });
    await writeFile(join(home, '.kube', 'config'), stringify({ ...one({ server: 'https://home' }, {}) }));
    assert.deepEqual(await loadKubeconfig({ env: { HOME: home } }), { server: 'https://home' });
    await assert.rejects(loadKubeconfig({ env: { HOME: join(dir, 'nowhere') } }), ConfigError);
    await assert.rejects(loadKubeconfig({ env: { KUBECONFIG: join(dir, 'none-1') + ':' + join(dir, 'none-2') } }), /no kubeconfig found/);
  });

  it('names the file and field in one-line errors', async () => {
    await rejects('clusters: [\n  - oops', /invalid YAML/);
    await rejects({ ...one({ server: 'https://k' }, {}), 'current-context': undefined }, /current-context: no current context/);
    await rejects(one({ server: 'https://k' }, {}), /contexts: context "nope" not found/, { context: 'nope' });
    await rejects({ ...one({ server: 'https://k' }, {}), contexts: [{ name: 'ctx', context: { cluster: 'gone', user: 'u' } }] }, /contexts\["ctx"\]\.context\.cluster: cluster "gone" not found/);
    await rejects({ ...one({ server: 'https://k' }, {}), contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'ghost' } }] }, /contexts\["ctx"\]\.context\.user: user "ghost" not found/);
    await rejects(one({}, {}), /clusters\["c"\]\.cluster\.server: no server is set/);
    await rejects(one({ server: 'ftp://k' }, {}), /server: "ftp:\/\/k" is not an http\(s\) URL/);
    await rejects(one({ server: 'https://k', 'certificate-authority-data': '!!!' }, {}), /certificate-authority-data: is not valid base64/);
    await rejects(one({ server: 'https://k', 'certificate-authority': 'missing.crt' }, {}), /clusters\["c"\]\.cluster\.certificate-authority: cannot read .*missing\.crt: ENOENT/);
    await rejects(one({ server: 'https://k', 'certificate-authority-data': b64(CA), 'insecure-skip-tls-verify': true }, {}), /insecure-skip-tls-verify: .*cannot be combined/);
    await rejects(one({ server: 'https://k' }, { 'client-certificate-data': b64(CERT) }), /users\["u"\]\.user\.client-key: client-key\(-data\) is required/);
    await rejects(one({ server: 'https://k' }, { token: 't', username: 'u' }), /more than one authentication method/);
    await rejects(one({ server: 'https://k' }, { 'auth-provider': { name: 'oidc' } }), /auth-provider: auth-provider plugins are not supported/);
    await rejects(one({ server: 'https://k' }, { token: 't', as: 'someone-else' }), /users\["u"\]\.user\.as: impersonation is not supported/);
    await rejects(one({ server: 'https://k', 'proxy-url': 'http://proxy:3128' }, {}), /proxy-url: proxy-url is not supported/);
    await rejects(one({ server: 'https://k' }, { exec: { command: 'x', apiVersion: 'client.authentication.k8s.io/v1alpha1' } }), /exec\.apiVersion: apiVersion must be one of/);
    await rejects(one({ server: 'https://k' }, { tokenFile: 'no-such-token' }), /tokenFile: cannot read/);
    await rejects({ clusters: [{ name: '', cluster: {} }] } as Doc, /clusters\[0\]\.name: a non-empty name is required/);
    await assert.rejects(loadKubeconfig({ path: join(dir, 'absent') }), /absent: the kubeconfig file does not exist/);
  });
});
