import assert from 'node:assert/strict';
import { execFile, type ExecFileException } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { ensureServingCertificates, type ServingCertificates } from './certs.js';
import { renderKubeconfig, writeKubeconfig } from './kubeconfig.js';
import { ensureAdminToken } from './tokens.js';

async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), 'setpoint-kubeconfig-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

const CA_PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('renderKubeconfig', () => {
  it('renders a Config that parses back with cluster, user, context and current-context', () => {
    const text = renderKubeconfig({ server: 'https://127.0.0.1:6443', caCert: CA_PEM, token: '-tok_en' });
    assert.deepEqual(parse(text), {
      apiVersion: 'v1',
      kind: 'Config',
      preferences: {},
      clusters: [{ name: 'setpoint', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(CA_PEM).toString('base64') } }],
      users: [{ name: 'admin', user: { token: '-tok_en' } }],
      contexts: [{ name: 'setpoint', context: { cluster: 'setpoint', user: 'admin' } }],
      'current-context': 'setpoint',
    });
  });

  it('uses the names and namespace given', () => {
    const config = parse(
      renderKubeconfig({ server: 'https://h:1', caCert: CA_PEM, token: 't', clusterName: 'c', userName: 'u', contextName: 'x', namespace: 'team-a' }),
    );
    assert.equal(config['current-context'], 'x');
    assert.deepEqual(config.contexts, [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'team-a' } }]);
    assert.equal(config.clusters[0].name, 'c');
    assert.equal(config.users[0].name, 'u');
  });

  it('refuses a server that is not an http(s) URL, an empty token, a CA that is not PEM', () => {
    assert.throws(() => renderKubeconfig({ server: '127.0.0.1:6443', caCert: CA_PEM, token: 't' }), TypeError);
    assert.throws(() => renderKubeconfig({ server: 'not a url', caCert: CA_PEM, token: 't' }), TypeError);
    assert.throws(() => renderKubeconfig({ server: 'https://h', caCert: CA_PEM, token: '' }), RangeError);
    assert.throws(() => renderKubeconfig({ server: 'https://h', caCert: 'abc', token: 't' }), RangeError);
  });
});

describe('writeKubeconfig', () => {
  it('writes the text with mode 0600, creating the directory, replacing an older file', async () => {
    await using dir = await tempDir();
    const path = join(dir.path, 'nested', 'kubeconfig.yaml');
    await writeKubeconfig(path, 'first');
    await writeKubeconfig(path, 'second');
    assert.equal(await readFile(path, 'utf8'), 'second');
    assert.equal((await stat(path)).mode & 0o777, 0o600);
  });
});

/** Where kubectl is on PATH, or undefined. */
async function findKubectl(): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'kubectl');
    try {
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0' };

/** A stub API server on 127.0.0.1:0 answering /version only to `token`; counts what it saw. */
async function startStub(certs: ServingCertificates, token: string): Promise<{ port: number; seen: string[] } & AsyncDisposable> {
  const seen: string[] = [];
  const server = createServer({ cert: certs.cert, key: certs.key }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://stub').pathname; // kubectl adds ?timeout=…
    seen.push(`${req.method} ${path} ${req.headers.authorization === `Bearer ${token}` ? 'token' : 'no-token'}`);
    res.setHeader('content-type', 'application/json');
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.statusCode = 401;
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 }));
      return;
    }
    if (path !== '/version') {
      res.statusCode = 404;
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'not found', reason: 'NotFound', code: 404 }));
      return;
    }
    res.end(JSON.stringify(VERSION));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs kubectl with only PATH and a private HOME in its environment. */
function kubectl(bin: string, home: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 30_000 }, (err: ExecFileException | null, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

describe('kubectl with the generated kubeconfig', async () => {
  const bin = await findKubectl();

  // kubectl is one of the real clients the project is tested with: its absence is a failure, not a skip.
  it('trusts the generated CA and sends the token: get --raw /version', async () => {
    assert.ok(bin, 'kubectl is on PATH');
    await using dir = await tempDir();
    const certs = await ensureServingCertificates({ dataDir: dir.path });
    const token = await ensureAdminToken(dir.path);
    await using stub = await startStub(certs, token);
    const server = `https://127.0.0.1:${stub.port}`;
    const path = join(dir.path, 'kubeconfig.yaml');
    await writeKubeconfig(path, renderKubeconfig({ server, caCert: certs.caCert, token }));

    const ok = await kubectl(bin, dir.path, ['--kubeconfig', path, '--request-timeout=20s', 'get', '--raw', '/version']);
    assert.equal(ok.code, 0, `kubectl failed: ${ok.stderr}`);
    assert.deepEqual(JSON.parse(ok.stdout), VERSION);
    assert.ok(stub.seen.includes('GET /version token'), `the stub saw ${stub.seen.join('; ')}`);

    // The same, with a token the server does not know: kubectl gets 401 and fails.
    const wrongPath = join(dir.path, 'wrong.yaml');
    await writeKubeconfig(wrongPath, renderKubeconfig({ server, caCert: certs.caCert, token: 'not-the-token' }));
    const denied = await kubectl(bin, dir.path, ['--kubeconfig', wrongPath, '--request-timeout=20s', 'get', '--raw', '/version']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /Unauthorized/i);

    // And with another CA: kubectl refuses the server's certificate.
    await using other = await tempDir();
    const otherCa = (await ensureServingCertificates({ dataDir: other.path })).caCert;
    const untrustedPath = join(dir.path, 'untrusted.yaml');
    await writeKubeconfig(untrustedPath, renderKubeconfig({ server, caCert: otherCa, token }));
    const untrusted = await kubectl(bin, dir.path, ['--kubeconfig', untrustedPath, '--request-timeout=20s', 'get', '--raw', '/version']);
    assert.notEqual(untrusted.code, 0);
    assert.match(untrusted.stderr, /certificate/i);
  });
});
