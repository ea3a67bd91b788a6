/**
 * The agent's endpoint authenticates the API server as the kubelet does: over HTTPS, a client
 * certificate of the cluster CA with the API server's identity (401 without one or with another
 * CA's, 403 for another identity of the same CA); over plain HTTP, the shared token (401 without
 * it or with a wrong one). It never serves anyone unauthenticated.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ContainerLogError, startKubeletServer, type ContainerLogSource, type KubeletServer } from '@setpoint/agent';
import {
  certificateFiles,
  ensureAgentServingCertificate,
  ensureKubeletClientCertificate,
  ensureServingCertificates,
  issueClientCertificate,
  type CertificateAndKey,
} from '@setpoint/apiserver';

interface Answer {
  status: number;
  text: string;
}

function get(url: string, options: { cert?: CertificateAndKey; ca?: string; token?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const https = url.startsWith('https:');
    const req = (https ? httpsRequest : httpRequest)(
      url,
      {
        headers: options.token === undefined ? {} : { Authorization: `Bearer ${options.token}` },
        ...(https ? { ca: options.ca, ...(options.cert === undefined ? {} : { cert: options.cert.cert, key: options.cert.key }) } : {}),
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let dir: string;
let logFile: string;
/** Serves one container's log: default/web/main. */
const source: ContainerLogSource = {
  containerLog(namespace, pod, container) {
    if (namespace !== 'default' || pod !== 'web') throw new ContainerLogError(404, `pod "${pod}" does not exist`);
    if (container !== 'main') throw new ContainerLogError(404, `container "${container}" not found in pod "${pod}"`);
    return { path: logFile };
  },
};

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'setpoint-agent-endpoint-'));
  logFile = join(dir, 'main.log');
  await writeFile(logFile, 'one\ntwo\nthree\n');
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the agent endpoint over HTTPS with client certificates', () => {
  let server: KubeletServer;
  let serving: CertificateAndKey;
  let apiserver: CertificateAndKey;
  let intruder: CertificateAndKey;
  let otherCluster: CertificateAndKey;
  before(async () => {
    const cluster = join(dir, 'cluster');
    const certs = await ensureServingCertificates({ dataDir: cluster });
    apiserver = await ensureKubeletClientCertificate({ dataDir: cluster });
    const caKey = await readFile(join(cluster, certificateFiles.caKey), 'utf8');
    intruder = await issueClientCertificate({ ca: { cert: certs.caCert, key: caKey }, commonName: 'someone-else', days: 1 });
    const other = join(dir, 'other');
    await ensureServingCertificates({ dataDir: other });
    otherCluster = await ensureKubeletClientCertificate({ dataDir: other }); // the right name, the wrong CA
    serving = await ensureAgentServingCertificate({ dir: join(dir, 'agent') });
    server = await startKubeletServer(source, { port: 0, host: '127.0.0.1', tls: serving, clientCA: certs.caCert });
  });
  after(async () => {
    await server.close();
  });
  const url = (path: string) => `${server.url}${path}`;

  it("serves the log to the API server's client certificate", async () => {
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    const res = await get(url('/containerLogs/default/web/main?tailLines=2'), { cert: apiserver, ca: serving.cert });
    assert.deepEqual(res, { status: 200, text: 'two\nthree\n' });
    const missing = await get(url('/containerLogs/default/web/other'), { cert: apiserver, ca: serving.cert });
    assert.deepEqual(missing, { status: 404, text: 'container "other" not found in pod "web"\n' });
    const invalid = await get(url('/containerLogs/default/web/main?tailLines=-1'), { cert: apiserver, ca: serving.cert });
    assert.equal(invalid.status, 422);
  });

  it('401 without a certificate, or with one of another CA; 403 for another identity', async () => {
    assert.equal((await get(url('/containerLogs/default/web/main'), { ca: serving.cert })).status, 401);
    assert.equal((await get(url('/containerLogs/default/web/main'), { ca: serving.cert, cert: otherCluster })).status, 401);
    assert.equal((await get(url('/containerLogs/default/web/main'), { ca: serving.cert, token: 'guess' })).status, 401, 'no token is configured: none is accepted');
    const forbidden = await get(url('/containerLogs/default/web/main'), { ca: serving.cert, cert: intruder });
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.text, /user=someone-else/);
    assert.equal((await get(url('/'), { ca: serving.cert })).status, 401, 'every path needs authentication');
  });
});

describe('the agent endpoint over plain HTTP with the shared token', () => {
  it('401 without the token or with a wrong one; the log with it', async () => {
    await using server = await startKubeletServer(source, { port: 0, host: '127.0.0.1', token: 'the-shared-token' });
    assert.match(server.url, /^http:\/\//);
    assert.equal((await get(`${server.url}/containerLogs/default/web/main`)).status, 401);
    assert.equal((await get(`${server.url}/containerLogs/default/web/main`, { token: 'the-shared-tokeN' })).status, 401);
    assert.deepEqual(await get(`${server.url}/containerLogs/default/web/main?limitBytes=5`, { token: 'the-shared-token' }), { status: 200, text: 'one\nt' });
  });

  it('refuses to start without a way to authenticate', async () => {
    await assert.rejects(startKubeletServer(source, { port: 0, host: '127.0.0.1' }), TypeError);
    await assert.rejects(startKubeletServer(source, { port: 0, host: '127.0.0.1', token: '' }), TypeError);
  });
});
