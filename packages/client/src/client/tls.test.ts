/**
 * The client over TLS with a bearer token, configured from a kubeconfig the test writes: the way a
 * program reaches a real API server (here Setpoint's, started with a generated CA and token).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { ApiError } from '@setpoint/api';
import { ApiServer, TokenAuthenticator, certificateFiles, ensureAdminToken, ensureServingCertificates, issueClientCertificate, type ServingCertificates } from '@setpoint/apiserver';
import { MemoryStore } from '@setpoint/store';
import { stringify } from 'yaml';
import { Client } from './client.js';

describe('a TLS + token API server through a kubeconfig', () => {
  let dir: string;
  let store: MemoryStore;
  let server: ApiServer;
  let certs: ServingCertificates;
  let token: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'setpoint-client-tls-'));
    certs = await ensureServingCertificates({ dataDir: dir });
    token = await ensureAdminToken(dir);
    store = new MemoryStore();
    server = await ApiServer.start({ store, port: 0, compaction: false, tls: { cert: certs.cert, key: certs.key }, authenticator: new TokenAuthenticator({ adminToken: token }) });
  });
  after(async () => {
    await server.stop();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const kubeconfig = async (name: string, cluster: Record<string, unknown>, user: Record<string, unknown>): Promise<string> => {
    const path = join(dir, name);
    await writeFile(
      path,
      stringify({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'setpoint', cluster: { server: server.url, ...cluster } }],
        users: [{ name: 'admin', user }],
        contexts: [{ name: 'setpoint', context: { cluster: 'setpoint', user: 'admin', namespace: 'kube-system' } }],
        'current-context': 'setpoint',
      }),
    );
    return path;
  };

  it('lists, creates and watches with certificate-authority-data and a token', async () => {
    assert.match(server.url, /^https:/);
    const path = await kubeconfig('data.yaml', { 'certificate-authority-data': Buffer.from(certs.caCert).toString('base64') }, { token });
    const client = await Client.fromKubeconfig({ path, qps: Infinity });
    try {
      assert.equal(client.namespace, 'kube-system');
      const namespaces = await client.namespaces().list();
      assert.ok(namespaces.items.some((n) => n.metadata.name === 'default'));
      const cms = client.configMaps();
      const watch = cms.watch({ namespace: 'kube-system', resourceVersion: namespaces.metadata.resourceVersion! });
      const created = await cms.create({ metadata: { name: 'over-tls' }, data: { secure: 'yes' } });
      assert.equal(created.metadata.namespace, 'kube-system');
      const event = await watch.next();
      assert.equal(event.value?.type, 'ADDED');
      assert.equal(event.value?.object.metadata.name, 'over-tls');
      await watch.return();
    } finally {
      client.close();
    }
  });

  it('reads the CA and token from files, and verifies tls-server-name', async () => {
    await writeFile(join(dir, 'cluster-ca.crt'), certs.caCert);
    await writeFile(join(dir, 'admin-token'), `${token}\n`);
    const path = await kubeconfig('files.yaml', { 'certificate-authority': 'cluster-ca.crt', 'tls-server-name': 'localhost' }, { tokenFile: 'admin-token' });
    const client = await Client.fromKubeconfig({ path, qps: Infinity });
    try {
      assert.equal((await client.namespaces().get('default')).metadata.name, 'default');
    } finally {
      client.close();
    }
    const wrongName = await kubeconfig('wrong-name.yaml', { 'certificate-authority': 'cluster-ca.crt', 'tls-server-name': 'not-the-server.example' }, { token });
    const bad = await Client.fromKubeconfig({ path: wrongName, qps: Infinity });
    await assert.rejects(bad.namespaces().list(), (err: unknown) => err instanceof ApiError && err.reason === 'ServiceUnavailable' && /not-the-server\.example/.test(err.message));
    bad.close();
  });

  it('refuses an untrusted server unless insecure-skip-tls-verify, and answers a wrong token with 401', async () => {
    const untrusted = await Client.fromKubeconfig({ path: await kubeconfig('untrusted.yaml', {}, { token }), qps: Infinity });
    await assert.rejects(untrusted.namespaces().list(), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.reason, 'ServiceUnavailable');
      assert.match(String((err.cause as NodeJS.ErrnoException).code), /CERT|SIGNATURE|ISSUER/);
      return true;
    });
    untrusted.close();
    const insecure = await Client.fromKubeconfig({ path: await kubeconfig('insecure.yaml', { 'insecure-skip-tls-verify': true }, { token }), qps: Infinity });
    assert.ok((await insecure.namespaces().list()).items.length > 0);
    insecure.close();
    const wrong = await Client.fromKubeconfig({ path: await kubeconfig('wrong.yaml', { 'certificate-authority-data': Buffer.from(certs.caCert).toString('base64') }, { token: 'not-the-token' }), qps: Infinity });
    await assert.rejects(wrong.namespaces().list(), (err: unknown) => err instanceof ApiError && err.reason === 'Unauthorized' && err.code === 401);
    wrong.close();
  });

  it('presents a client certificate from the kubeconfig', async () => {
    const ca = { cert: certs.caCert, key: await readFile(join(dir, certificateFiles.caKey), 'utf8') };
    const user = await issueClientCertificate({ ca, commonName: 'jane', organizations: ['devs'], days: 1 });
    const https: Server = createServer({ cert: certs.cert, key: certs.key, ca: certs.caCert, requestCert: true, rejectUnauthorized: true }, (req, res) => {
      const peer = (req.socket as TLSSocket).getPeerCertificate();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ cn: peer.subject?.CN }));
    });
    await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', () => resolve()));
    try {
      const path = join(dir, 'client-cert.yaml');
      await writeFile(
        path,
        stringify({
          clusters: [{ name: 'c', cluster: { server: `https://127.0.0.1:${(https.address() as AddressInfo).port}`, 'certificate-authority-data': Buffer.from(certs.caCert).toString('base64') } }],
          users: [{ name: 'jane', user: { 'client-certificate-data': Buffer.from(user.cert).toString('base64'), 'client-key-data': Buffer.from(user.key).toString('base64') } }],
          contexts: [{ name: 'c', context: { cluster: 'c', user: 'jane' } }],
          'current-context': 'c',
        }),
      );
      const client = await Client.fromKubeconfig({ path, qps: Infinity });
      assert.deepEqual((await client.http.request({ method: 'GET', path: '/whoami' })).body, { cn: 'jane' });
      client.close();
    } finally {
      https.closeAllConnections();
      await new Promise((resolve) => https.close(resolve));
    }
  });
});
