import assert from 'node:assert/strict';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, request, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { describe, it } from 'node:test';
import { silentLogger, type Clock } from '@setpoint/api';
import { certificateFiles, ensureServingCertificates, issueClientCertificate, type ServingCertificates } from './certs.js';
import { CredentialsError } from './errors.js';
import { isDnsName } from './pki.js';

const DAY = 24 * 60 * 60 * 1000;

/** A fresh temporary data dir, removed on dispose. */
async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), 'setpoint-certs-'));
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true }) };
}

/** A clock that reads `t` until moved with `set`. */
function clockAt(t: number): Pick<Clock, 'now'> & { set(ms: number): void } {
  return {
    now: () => t,
    set(ms: number) {
      t = ms;
    },
  };
}

async function readAll(dir: string): Promise<Record<keyof typeof certificateFiles, string>> {
  const read = (name: string): Promise<string> => readFile(join(dir, name), 'utf8');
  return {
    caCert: await read(certificateFiles.caCert),
    caKey: await read(certificateFiles.caKey),
    serverCert: await read(certificateFiles.serverCert),
    serverKey: await read(certificateFiles.serverKey),
  };
}

async function modeOf(path: string): Promise<number> {
  return (await stat(path)).mode & 0o777;
}

function notAfterOf(pem: string): number {
  return Date.parse(new X509Certificate(pem).validTo);
}

function rejectsWith(code: string): (err: unknown) => boolean {
  return (err) => err instanceof CredentialsError && err.code === code;
}

describe('ensureServingCertificates', () => {
  it('generates a CA and a serving certificate signed by it, covering loopback and the hostname', async () => {
    await using dir = await tempDir();
    const certs = await ensureServingCertificates({ dataDir: dir.path });

    const ca = new X509Certificate(certs.caCert);
    const cert = new X509Certificate(certs.cert);
    assert.equal(ca.ca, true, 'the CA has basicConstraints CA:true');
    assert.ok(ca.verify(ca.publicKey), 'the CA is self-signed');
    assert.equal(cert.ca, false);
    assert.ok(cert.verify(ca.publicKey), 'the serving certificate verifies against the CA');
    assert.ok(cert.checkIssued(ca));
    assert.ok(cert.checkPrivateKey(createPrivateKey(certs.key)), 'the key is the certificate\'s');
    assert.equal(cert.checkHost('localhost', { subject: 'never' }), 'localhost');
    assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(cert.checkIP('::1'), '::1');
    const own = hostname().toLowerCase();
    if (isDnsName(own)) assert.ok(cert.checkHost(own, { subject: 'never' }), `covers the hostname ${own}`);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1'], 'extKeyUsage serverAuth only');
    assert.match(cert.publicKey.asymmetricKeyDetails?.namedCurve ?? '', /prime256v1/);

    const caDays = (notAfterOf(certs.caCert) - Date.now()) / DAY;
    const servingDays = (notAfterOf(certs.cert) - Date.now()) / DAY;
    assert.ok(caDays > 3649 && caDays <= 3650, `CA lasts ${caDays} days`);
    assert.ok(servingDays > 364 && servingDays <= 365, `serving certificate lasts ${servingDays} days`);

    const files = await readAll(dir.path);
    assert.deepEqual(
      { caCert: files.caCert, cert: files.serverCert, key: files.serverKey },
      { caCert: certs.caCert, cert: certs.cert, key: certs.key },
      'what it returns is what it wrote',
    );
    assert.equal(await modeOf(join(dir.path, certificateFiles.caKey)), 0o600);
    assert.equal(await modeOf(join(dir.path, certificateFiles.serverKey)), 0o600);
  });

  it('reloads the same files unchanged at the next start', async () => {
    await using dir = await tempDir();
    const first = await ensureServingCertificates({ dataDir: dir.path, hosts: ['10.0.0.7'] });
    const before = await readAll(dir.path);
    const second = await ensureServingCertificates({ dataDir: dir.path, hosts: ['10.0.0.7'] });
    assert.deepEqual(second, first);
    assert.deepEqual(await readAll(dir.path), before, 'no file rewritten');
    // A certificate covering more than asked is kept as well.
    assert.deepEqual(await ensureServingCertificates({ dataDir: dir.path }), first);
  });

  it('reissues the serving certificate, keeping the CA, when a requested host is missing', async () => {
    await using dir = await tempDir();
    const first = await ensureServingCertificates({ dataDir: dir.path });
    const caKey = (await readAll(dir.path)).caKey;
    const second = await ensureServingCertificates({ dataDir: dir.path, hosts: ['api.example.com.', '[fd00::7]', '10.1.2.3', 'API.example.com'] });
    assert.equal(second.caCert, first.caCert, 'same CA');
    assert.equal((await readAll(dir.path)).caKey, caKey, 'same CA key');
    assert.notEqual(second.cert, first.cert);
    assert.notEqual(second.key, first.key);
    const cert = new X509Certificate(second.cert);
    assert.ok(cert.verify(new X509Certificate(second.caCert).publicKey));
    assert.equal(cert.checkHost('api.example.com', { subject: 'never' }), 'api.example.com');
    assert.ok(cert.checkIP('fd00::7'));
    assert.ok(cert.checkIP('10.1.2.3'));
    assert.ok(cert.checkHost('localhost', { subject: 'never' }), 'still covers the defaults');
    assert.equal(await modeOf(join(dir.path, certificateFiles.serverKey)), 0o600);
  });

  it('reissues the serving certificate within 30 days of its expiry, not before', async () => {
    await using dir = await tempDir();
    const t0 = Date.now();
    const clock = clockAt(t0);
    const first = await ensureServingCertificates({ dataDir: dir.path, clock });

    clock.set(t0 + 330 * DAY); // 35 days left
    assert.deepEqual(await ensureServingCertificates({ dataDir: dir.path, clock }), first);

    clock.set(t0 + 340 * DAY); // 25 days left
    const renewed = await ensureServingCertificates({ dataDir: dir.path, clock });
    assert.equal(renewed.caCert, first.caCert, 'same CA');
    assert.notEqual(renewed.cert, first.cert);
    const days = (notAfterOf(renewed.cert) - clock.now()) / DAY;
    assert.ok(days > 364 && days <= 365, `the new certificate lasts ${days} days from the injected now`);
    assert.deepEqual(await ensureServingCertificates({ dataDir: dir.path, clock }), renewed, 'and is kept afterwards');

    clock.set(t0 + 800 * DAY); // long expired
    const again = await ensureServingCertificates({ dataDir: dir.path, clock });
    assert.notEqual(again.cert, renewed.cert);
    assert.equal(again.caCert, first.caCert);
  });

  it('never issues beyond the CA, and refuses an expired CA', async () => {
    await using dir = await tempDir();
    const t0 = Date.now();
    const clock = clockAt(t0);
    const first = await ensureServingCertificates({ dataDir: dir.path, clock });
    const caNotAfter = notAfterOf(first.caCert);

    clock.set(caNotAfter - 20 * DAY); // the CA itself has 20 days left
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (_f: object, m: string) => void warnings.push(m) };
    const late = await ensureServingCertificates({ dataDir: dir.path, clock, logger });
    assert.equal(late.caCert, first.caCert);
    assert.equal(notAfterOf(late.cert), caNotAfter, 'cut to the CA expiry');
    assert.ok(warnings.some((m) => m.includes('CA expires soon')), `warned: ${warnings.join('; ')}`);
    clock.set(caNotAfter - 10 * DAY);
    assert.deepEqual(await ensureServingCertificates({ dataDir: dir.path, clock }), late, 'not reissued: a new one could last no longer');

    clock.set(caNotAfter + DAY);
    await assert.rejects(ensureServingCertificates({ dataDir: dir.path, clock }), rejectsWith('Expired'));
  });

  it('replaces an unusable serving certificate and narrows a loose key mode', async () => {
    await using dir = await tempDir();
    const first = await ensureServingCertificates({ dataDir: dir.path });
    const keyPath = join(dir.path, certificateFiles.serverKey);
    await chmod(keyPath, 0o644);
    assert.deepEqual(await ensureServingCertificates({ dataDir: dir.path }), first);
    assert.equal(await modeOf(keyPath), 0o600, 'mode narrowed');

    await writeFile(join(dir.path, certificateFiles.serverCert), 'garbage');
    const second = await ensureServingCertificates({ dataDir: dir.path });
    assert.notEqual(second.cert, first.cert);
    assert.ok(new X509Certificate(second.cert).verify(new X509Certificate(second.caCert).publicKey));

    // A serving key that belongs to another certificate.
    await writeFile(keyPath, first.key);
    const third = await ensureServingCertificates({ dataDir: dir.path });
    assert.notEqual(third.cert, second.cert);
  });

  it('refuses a CA whose key is missing or belongs to another certificate', async () => {
    await using dir = await tempDir();
    await using other = await tempDir();
    await ensureServingCertificates({ dataDir: dir.path });
    await ensureServingCertificates({ dataDir: other.path });
    const caKeyPath = join(dir.path, certificateFiles.caKey);
    await writeFile(caKeyPath, await readFile(join(other.path, certificateFiles.caKey)));
    await assert.rejects(ensureServingCertificates({ dataDir: dir.path }), rejectsWith('KeyMismatch'));
    await writeFile(caKeyPath, 'not a key');
    await assert.rejects(ensureServingCertificates({ dataDir: dir.path }), rejectsWith('Malformed'));
    await rm(caKeyPath);
    await assert.rejects(ensureServingCertificates({ dataDir: dir.path }), rejectsWith('Malformed'));
  });

  it('rejects a host that is neither an IP address nor a DNS name', async () => {
    await using dir = await tempDir();
    await assert.rejects(ensureServingCertificates({ dataDir: dir.path, hosts: ['not a host'] }), rejectsWith('InvalidHost'));
    await assert.rejects(ensureServingCertificates({ dataDir: dir.path, hosts: ['https://x'] }), rejectsWith('InvalidHost'));
  });
});

describe('issueClientCertificate', () => {
  it('issues CN=user, O=groups, clientAuth, signed by the CA', async () => {
    await using dir = await tempDir();
    await ensureServingCertificates({ dataDir: dir.path });
    const files = await readAll(dir.path);
    const issued = await issueClientCertificate({
      ca: { cert: files.caCert, key: files.caKey },
      commonName: 'alice',
      organizations: ['dev', 'system:masters'],
      days: 30,
    });
    const cert = new X509Certificate(issued.cert);
    assert.ok(cert.verify(new X509Certificate(files.caCert).publicKey));
    assert.deepEqual(cert.subject.split('\n').sort(), ['CN=alice', 'O=dev', 'O=system:masters']);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.2'], 'extKeyUsage clientAuth only');
    const days = (notAfterOf(issued.cert) - Date.now()) / DAY;
    assert.ok(days > 29 && days <= 30, `lasts ${days} days`);
    await assert.rejects(issueClientCertificate({ ca: { cert: files.caCert, key: issued.key }, commonName: 'x', days: 1 }), rejectsWith('KeyMismatch'));
    await assert.rejects(issueClientCertificate({ ca: { cert: files.caCert, key: files.caKey }, commonName: '', days: 1 }), RangeError);
  });
});

/** An HTTPS server on 127.0.0.1, port 0, answering "ok" (and the client certificate's subject). */
async function startServer(options: ServerOptions): Promise<{ port: number } & AsyncDisposable> {
  const server = createServer(options, (req, res) => {
    const peer = (req.socket as TLSSocket).getPeerCertificate();
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ ok: true, subject: peer.subject ?? null }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    [Symbol.asyncDispose]: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** GET / over HTTPS with the given TLS options; resolves with the parsed body. */
function get(port: number, tls: { ca?: string; servername?: string; cert?: string; key?: string }): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, ...tls }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve(JSON.parse(body)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('TLS with the generated certificates', () => {
  async function setup(): Promise<{ dir: { path: string } & AsyncDisposable; certs: ServingCertificates }> {
    const dir = await tempDir();
    return { dir, certs: await ensureServingCertificates({ dataDir: dir.path }) };
  }

  it('a client trusting the CA completes the handshake by name and by address; one without it fails', async () => {
    const { dir, certs } = await setup();
    await using _dir = dir;
    await using server = await startServer({ cert: certs.cert, key: certs.key });
    assert.deepEqual(await get(server.port, { ca: certs.caCert, servername: 'localhost' }), { ok: true, subject: null });
    assert.deepEqual(await get(server.port, { ca: certs.caCert }), { ok: true, subject: null }, 'by IP SAN 127.0.0.1');
    await assert.rejects(get(server.port, { servername: 'localhost' }), (err: NodeJS.ErrnoException) => {
      assert.match(err.code ?? '', /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED/);
      return true;
    });
    await assert.rejects(get(server.port, { ca: certs.caCert, servername: 'example.com' }), { code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('a client certificate issued by the CA is accepted by a server that requires one', async () => {
    const { dir, certs } = await setup();
    await using _dir = dir;
    const caKey = await readFile(join(dir.path, certificateFiles.caKey), 'utf8');
    const client = await issueClientCertificate({ ca: { cert: certs.caCert, key: caKey }, commonName: 'node:n1', organizations: ['system:nodes'], days: 1 });
    await using server = await startServer({ cert: certs.cert, key: certs.key, ca: certs.caCert, requestCert: true, rejectUnauthorized: true });
    assert.deepEqual(await get(server.port, { ca: certs.caCert, servername: 'localhost', ...client }), {
      ok: true,
      subject: { O: 'system:nodes', CN: 'node:n1' },
    });
    await assert.rejects(get(server.port, { ca: certs.caCert, servername: 'localhost' }), 'no client certificate, no handshake');
  });
});
