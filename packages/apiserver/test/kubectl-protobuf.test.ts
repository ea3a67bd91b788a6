/**
 * kubectl's imperative commands against a real API server (HTTPS, token): `create namespace`,
 * `create configmap|secret|deployment|serviceaccount` send protobuf bodies and ask for protobuf
 * answers; `run` sends JSON. For each, kubectl's own request log (-v=8) shows what went over the
 * wire (protobuf, no 415 and no JSON retry), and the stored object holds what kubectl meant: every
 * field of kubectl's `--dry-run=client -o json` rendering of the same command, and exactly the
 * data, labels, ports and replicas. `kubectl describe` reads objects through protobuf-first typed
 * clients, so its output proves that kubectl's Go types decode the server's protobuf answers.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { startTestServer, type TestServer } from './harness.js';
import { kubectl, kubectlOk } from './kubectl-support.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One request from kubectl's -v=8 log. */
interface LoggedRequest {
  readonly method: string;
  readonly url: string;
  readonly requestHeaders: Record<string, string>;
  /** The first bytes of the body kubectl logged (hex dump), if it logged one. */
  readonly bodyStart: string;
  status: number;
  readonly responseHeaders: Record<string, string>;
}

/**
 * The requests in kubectl's -v=8 log: a "Request Body" hex dump (before its request line), the
 * request line, "Request Headers:", "Response Status: N …", "Response Headers:".
 */
function requestLog(stderr: string): LoggedRequest[] {
  const out: LoggedRequest[] = [];
  let body = '';
  let headers: Record<string, string> | undefined;
  for (const line of stderr.split('\n')) {
    const message = line.replace(/^[IWE]\d{4} [\d:.]+\s+\d+ [\w.]+:\d+\] /, '');
    const dump = /^\s*00000000 {2}((?:[0-9a-f]{2} ?)+)/.exec(message);
    const request = /^(GET|POST|PUT|PATCH|DELETE) (https?:\/\/\S+)/.exec(message);
    const status = /^Response Status: (\d+)/.exec(message);
    const header = /^ {4}([\w-]+): (.*)$/.exec(message);
    if (dump) body = dump[1]!.replace(/\s+/g, ' ').trim();
    else if (request) {
      out.push({ method: request[1]!, url: request[2]!, requestHeaders: {}, bodyStart: body, status: 0, responseHeaders: {} });
      body = '';
      headers = out.at(-1)!.requestHeaders;
    } else if (status && out.length > 0) {
      out.at(-1)!.status = Number(status[1]);
      headers = out.at(-1)!.responseHeaders;
    } else if (header && headers) headers[header[1]!.toLowerCase()] = header[2]!;
  }
  return out;
}

/** Runs an imperative kubectl command with -v=8 and returns its output and the write it sent. */
async function imperative(srv: TestServer, ...args: string[]): Promise<{ stdout: string; write: LoggedRequest; log: LoggedRequest[] }> {
  const res = await kubectl(srv, '-v=8', ...args);
  assert.equal(res.code, 0, `kubectl ${args.join(' ')} exited ${res.code}: ${res.stderr.split('\n').slice(-5).join('\n')}`);
  const log = requestLog(res.stderr);
  const writes = log.filter((r) => r.method === 'POST');
  assert.equal(writes.length, 1, `one POST (no retry after a refusal): ${writes.map((w) => `${w.status} ${w.url}`).join(', ')}`);
  assert.ok(!log.some((r) => r.status === 415), 'no request was refused with 415');
  return { stdout: res.stdout, write: writes[0]!, log };
}

/** Asserts that kubectl sent protobuf and got protobuf back. */
function assertProtobufWrite(write: LoggedRequest): void {
  assert.equal(write.requestHeaders['content-type'], PROTOBUF, 'kubectl sent a protobuf body');
  assert.equal(write.requestHeaders.accept, `${PROTOBUF},application/json`);
  assert.match(write.bodyStart, /^6b 38 73 00 /, 'the body starts with the envelope magic "k8s\\0"');
  assert.equal(write.status, 201);
  assert.equal(write.responseHeaders['content-type'], PROTOBUF, 'the server answered in protobuf');
}

/** What kubectl builds for a command, rendered by kubectl itself (`--dry-run=client -o json`). */
async function intended(srv: TestServer, ...args: string[]): Promise<Json> {
  const end = args.includes('--') ? args.indexOf('--') : args.length;
  const flags = ['--dry-run=client', '-o', 'json'];
  const obj = JSON.parse(await kubectlOk(srv, ...args.slice(0, end), ...flags, ...args.slice(end))) as Json;
  // Go renders zero times (creationTimestamp) as null; protobuf carries them as nothing.
  return JSON.parse(JSON.stringify(obj, (_k, v: unknown) => (v === null ? undefined : v))) as Json;
}

/** Asserts that `actual` holds every field of `expected` with the same value (lists element by element). */
function assertHolds(actual: unknown, expected: unknown, path = ''): void {
  if (Array.isArray(expected)) {
    assert.ok(Array.isArray(actual) && actual.length === expected.length, `${path}: ${JSON.stringify(actual)} has the ${expected.length} elements of ${JSON.stringify(expected)}`);
    expected.forEach((e, i) => assertHolds(actual[i], e, `${path}[${i}]`));
  } else if (typeof expected === 'object' && expected !== null) {
    assert.ok(typeof actual === 'object' && actual !== null, `${path}: ${JSON.stringify(actual)} is an object`);
    for (const [k, v] of Object.entries(expected)) assertHolds((actual as Json)[k], v, `${path}.${k}`);
  } else assert.equal(actual, expected, path);
}

async function stored(srv: TestServer, path: string): Promise<Json> {
  const res = await srv.request('GET', path);
  assert.equal(res.status, 200, `GET ${path}: ${res.text.slice(0, 300)}`);
  return res.body as Json;
}

test('kubectl imperative commands over protobuf', async (t: TestContext) => {
  await using srv = await startTestServer({ secure: true });

  await t.test('create namespace', async () => {
    const { stdout, write } = await imperative(srv, 'create', 'namespace', 'team-a');
    assert.equal(stdout.trim(), 'namespace/team-a created');
    assertProtobufWrite(write);
    const ns = await stored(srv, '/api/v1/namespaces/team-a');
    assertHolds(ns, await intended(srv, 'create', 'namespace', 'team-a'));
    assert.equal(ns.metadata.name, 'team-a');
    assert.deepEqual(ns.spec, { finalizers: ['kubernetes'] });
    assert.equal(ns.status.phase, 'Active');
  });

  await t.test('create configmap --from-literal, and binary --from-file as binaryData', async () => {
    const { stdout, write } = await imperative(srv, 'create', 'configmap', 'c', '--from-literal=a=b', '--from-literal=empty=');
    assert.equal(stdout.trim(), 'configmap/c created');
    assertProtobufWrite(write);
    assert.match(write.url, /\/api\/v1\/namespaces\/default\/configmaps\?fieldManager=kubectl-create&fieldValidation=Strict/);
    const cm = await stored(srv, '/api/v1/namespaces/default/configmaps/c');
    assertHolds(cm, await intended(srv, 'create', 'configmap', 'c', '--from-literal=a=b', '--from-literal=empty='));
    assert.deepEqual(cm.data, { a: 'b', empty: '' });
    assert.equal(cm.binaryData, undefined);
    assert.equal(cm.metadata.labels, undefined);

    const file = join(srv.dir, 'logo.bin');
    await writeFile(file, Buffer.from([0x89, 0x50, 0x00, 0xff, 0xfe]));
    assertProtobufWrite((await imperative(srv, 'create', 'configmap', 'bin', `--from-file=logo=${file}`)).write);
    const bin = await stored(srv, '/api/v1/namespaces/default/configmaps/bin');
    assert.deepEqual(bin.binaryData, { logo: Buffer.from([0x89, 0x50, 0x00, 0xff, 0xfe]).toString('base64') });
    assert.equal(bin.data, undefined);
  });

  await t.test('create secret generic --from-literal', async () => {
    const { stdout, write } = await imperative(srv, 'create', 'secret', 'generic', 's', '--from-literal=k=v', '--from-literal=password=p@ss:w0rd');
    assert.equal(stdout.trim(), 'secret/s created');
    assertProtobufWrite(write);
    const secret = await stored(srv, '/api/v1/namespaces/default/secrets/s');
    assertHolds(secret, await intended(srv, 'create', 'secret', 'generic', 's', '--from-literal=k=v', '--from-literal=password=p@ss:w0rd'));
    assert.deepEqual(secret.data, { k: Buffer.from('v').toString('base64'), password: Buffer.from('p@ss:w0rd').toString('base64') });
    assert.equal(secret.type, 'Opaque');
  });

  await t.test('create deployment --replicas=2 --port=80, and --replicas=0', async () => {
    const args = ['create', 'deployment', 'd', '--image=nginx', '--replicas=2', '--port=80'];
    const { stdout, write } = await imperative(srv, ...args);
    assert.equal(stdout.trim(), 'deployment.apps/d created');
    assertProtobufWrite(write);
    const d = await stored(srv, '/apis/apps/v1/namespaces/default/deployments/d');
    assertHolds(d, await intended(srv, ...args));
    assert.equal(d.spec.replicas, 2);
    assert.deepEqual(d.metadata.labels, { app: 'd' });
    assert.deepEqual(d.spec.selector, { matchLabels: { app: 'd' } });
    assert.deepEqual(d.spec.template.metadata.labels, { app: 'd' });
    const [container, ...more] = d.spec.template.spec.containers;
    assert.equal(more.length, 0);
    assert.deepEqual([container.name, container.image], ['nginx', 'nginx']);
    assert.deepEqual(container.ports, [{ containerPort: 80, protocol: 'TCP' }]);

    // replicas is a pointer in Go: kubectl sends 0, and 0 it stays (not the default 1).
    assertProtobufWrite((await imperative(srv, 'create', 'deployment', 'idle', '--image=nginx', '--replicas=0')).write);
    assert.equal((await stored(srv, '/apis/apps/v1/namespaces/default/deployments/idle')).spec.replicas, 0);
  });

  await t.test('create serviceaccount', async () => {
    const { stdout, write } = await imperative(srv, 'create', 'serviceaccount', 'builder');
    assert.equal(stdout.trim(), 'serviceaccount/builder created');
    assertProtobufWrite(write);
    assertHolds(await stored(srv, '/api/v1/namespaces/default/serviceaccounts/builder'), await intended(srv, 'create', 'serviceaccount', 'builder'));
  });

  await t.test('run sends JSON (kubectl 1.32 creates the pod through its dynamic client)', async () => {
    const args = ['run', 'p', '--image=busybox', '--port=8080', '--', 'sleep', '1'];
    const { stdout, write } = await imperative(srv, ...args);
    assert.equal(stdout.trim(), 'pod/p created');
    assert.equal(write.requestHeaders['content-type'], 'application/json');
    assert.equal(write.status, 201);
    const pod = await stored(srv, '/api/v1/namespaces/default/pods/p');
    assertHolds(pod, await intended(srv, ...args));
    assert.deepEqual(pod.metadata.labels, { run: 'p' });
    const [container, ...more] = pod.spec.containers;
    assert.equal(more.length, 0);
    assert.deepEqual([container.name, container.image, container.args, container.command], ['p', 'busybox', ['sleep', '1'], undefined]);
    assert.deepEqual(container.ports, [{ containerPort: 8080, protocol: 'TCP' }]);
  });

  await t.test('describe reads pods, deployments, nodes and events in protobuf, decoded by kubectl', async () => {
    const pod = await stored(srv, '/api/v1/namespaces/default/pods/p');
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'p.pulled' },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', namespace: 'default', name: 'p', uid: pod.metadata.uid },
      reason: 'Pulled',
      message: 'Successfully pulled image "busybox"',
      type: 'Normal',
      count: 3,
      firstTimestamp: '2026-11-29T15:47:44Z',
      lastTimestamp: '2026-11-29T15:48:02Z',
      source: { component: 'kubelet', host: 'node-1' },
    };
    assert.equal((await srv.request('POST', '/api/v1/namespaces/default/events', event)).status, 201);
    const node = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', labels: { 'kubernetes.io/hostname': 'node-1' } },
      spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', memory: '16Gi', pods: '110' },
        allocatable: { cpu: '3800m', memory: '15Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-29T15:47:44Z', lastTransitionTime: '2026-11-29T15:47:44Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
        nodeInfo: { kubeletVersion: 'v1.32.0', operatingSystem: 'linux', architecture: 'amd64' },
      },
    };
    assert.equal((await srv.request('POST', '/api/v1/nodes', node)).status, 201);

    const describe = async (...args: string[]) => {
      const res = await kubectl(srv, '-v=8', 'describe', ...args);
      assert.equal(res.code, 0, res.stderr.split('\n').slice(-5).join('\n'));
      return { stdout: res.stdout, log: requestLog(res.stderr) };
    };
    const protobufAnswers = (log: LoggedRequest[], path: string) => log.filter((r) => r.method === 'GET' && new URL(r.url).pathname === path && r.responseHeaders['content-type'] === PROTOBUF);

    const p = await describe('pod', 'p');
    assert.equal(protobufAnswers(p.log, '/api/v1/namespaces/default/pods/p').length, 1, 'the pod came in protobuf');
    assert.equal(protobufAnswers(p.log, '/api/v1/namespaces/default/events').length, 1, 'its events came in protobuf');
    assert.match(p.stdout, /^Labels: +run=p$/m);
    assert.match(p.stdout, /^ +Port: +8080\/TCP$/m);
    assert.match(p.stdout, /^ +Args:\n +sleep\n +1$/m);
    assert.match(p.stdout, /node\.kubernetes\.io\/not-ready:NoExecute op=Exists for 300s/);
    assert.match(p.stdout, /Normal +Pulled +\S+ \(x3 over \S+\) +kubelet +Successfully pulled image "busybox"/);

    const d = await describe('deployment', 'd');
    assert.equal(protobufAnswers(d.log, '/apis/apps/v1/namespaces/default/deployments/d').length, 1, 'the deployment came in protobuf');
    assert.match(d.stdout, /^Replicas: +2 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m);
    assert.match(d.stdout, /^RollingUpdateStrategy: +25% max unavailable, 25% max surge$/m);
    assert.match(d.stdout, /^ +Port: +80\/TCP$/m);

    const n = await describe('node', 'node-1');
    assert.equal(protobufAnswers(n.log, '/api/v1/nodes/node-1').length, 1, 'the node came in protobuf');
    assert.match(n.stdout, /^Taints: +dedicated=gpu:NoSchedule$/m);
    assert.match(n.stdout, /^ +Ready +True +\w{3}, 29 Nov 2026 \d\d:\d\d:44 [+-]\d{4} .* KubeletReady +kubelet is posting ready status$/m);
    assert.match(n.stdout, /^Capacity:\n +cpu: +4\n +memory: +16Gi\n +pods: +110$/m);
    assert.match(n.stdout, /^ +InternalIP: +10\.0\.0\.5$/m);
    assert.match(n.stdout, /^ +Kubelet Version: +v1\.32\.0$/m);
  });

  await t.test('an error answers a protobuf client in JSON, and kubectl reports it', async () => {
    const res = await kubectl(srv, 'create', 'namespace', 'team-a');
    assert.equal(res.code, 1);
    assert.equal(res.stderr.trim(), 'Error from server (AlreadyExists): namespaces "team-a" already exists');
    const invalid = await kubectl(srv, 'create', 'deployment', 'Bad_Name', '--image=nginx');
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /Deployment.apps "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"/);
  });
});
