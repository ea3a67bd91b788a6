/**
 * Server-side printing (meta.k8s.io Table) through HTTP and through kubectl: `kubectl get` for
 * pods, deployments, replicasets, nodes, namespaces, leases, configmaps and events prints the
 * columns kube-apiserver serves, with -o wide, --show-labels, -A and -w; clients that do not ask
 * for a Table still get plain JSON.
 *
 * The server's clock runs 3 days 4 hours ahead once the fixtures exist, so every AGE reads "3d4h".
 * kubectl always runs asynchronously with a deadline (the server is in this process).
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { realClock, type Clock } from '@setpoint/api';
import { openWatch, startTestServer, type TestServer } from './harness.js';
import { assertStatus, ok, waitFor } from './support.js';

const KUBECTL_DEADLINE_MS = 15_000;
const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const SKEW_MS = (3 * 24 + 4) * 3600_000;
const MERGE = { 'content-type': 'application/merge-patch+json' };
const PODS = '/api/v1/namespaces/default/pods';

let skew = 0;
/** The real clock, `skew` ms ahead: timers stay real, server time (ages, timestamps) moves. */
const clock: Clock = { ...realClock, now: () => Date.now() + skew };
const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function kubectlArgs(srv: TestServer, args: string[]): string[] {
  return [`--kubeconfig=${srv.kubeconfig!}`, `--cache-dir=${join(srv.dir, 'kube-cache')}`, '--request-timeout=10s', ...args];
}

/** Runs kubectl; requires exit 0 and an empty stderr; resolves with stdout. */
function kubectl(srv: TestServer, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('kubectl', kubectlArgs(srv, args), { timeout: KUBECTL_DEADLINE_MS, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      if (err !== null) return reject(new Error(`kubectl ${args.join(' ')} failed: ${stderr}`, { cause: err }));
      if (stderr !== '') return reject(new Error(`kubectl ${args.join(' ')} wrote to stderr: ${stderr}`));
      resolve(stdout);
    });
  });
}

/** The output's lines, each with runs of spaces collapsed to one ("NAME READY STATUS"). */
function lines(out: string): string[] {
  return out
    .trimEnd()
    .split('\n')
    .map((l) => l.trim().replace(/ {2,}/g, '  '));
}

/** The line of `out` whose first column is `first`, its columns split. */
function rowOf(out: string, first: string): string[] | undefined {
  return lines(out)
    .map((l) => l.split('  '))
    .find((cols) => cols[0] === first);
}

async function patchStatus(srv: TestServer, path: string, status: Record<string, unknown>): Promise<void> {
  ok(await srv.request('PATCH', `${path}/status`, { status }, MERGE));
}

function container(name: string, state: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { name, image: 'nginx', imageID: '', ready: false, restartCount: 0, state, ...extra };
}

/** Pods, workloads, nodes, a terminating namespace, a lease, a configmap and an event. */
async function createFixtures(srv: TestServer): Promise<void> {
  const pod = (name: string) => ({ metadata: { name, labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
  for (const name of ['web-1', 'web-2', 'done']) ok(await srv.request('POST', PODS, pod(name)), 201);
  ok(await srv.request('POST', `${PODS}/web-1/binding`, { metadata: { name: 'web-1' }, target: { kind: 'Node', name: 'n1' } }), 201);
  await patchStatus(srv, `${PODS}/web-1`, {
    phase: 'Running',
    podIP: '10.0.0.5',
    podIPs: [{ ip: '10.0.0.5' }],
    conditions: [{ type: 'Ready', status: 'True' }],
    containerStatuses: [container('app', { running: { startedAt: rfc3339(clock.now()) } }, { ready: true, started: true })],
  });
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } };
  const workload = (name: string, replicas: number) => ({ metadata: { name }, spec: { replicas, selector: { matchLabels: { app: 'web' } }, template } });
  ok(await srv.request('POST', '/apis/apps/v1/namespaces/default/deployments', workload('web', 3)), 201);
  await patchStatus(srv, '/apis/apps/v1/namespaces/default/deployments/web', { replicas: 3, updatedReplicas: 3, readyReplicas: 2, availableReplicas: 2 });
  ok(await srv.request('POST', '/apis/apps/v1/namespaces/default/replicasets', workload('web-5d8f', 2)), 201);
  await patchStatus(srv, '/apis/apps/v1/namespaces/default/replicasets/web-5d8f', { replicas: 2, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1 });

  ok(await srv.request('POST', '/api/v1/nodes', { metadata: { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '' } } }), 201);
  await patchStatus(srv, '/api/v1/nodes/n1', {
    conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady' }],
    addresses: [{ type: 'InternalIP', address: '192.168.1.10' }],
    nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian GNU/Linux 12', kernelVersion: '6.1.0', containerRuntimeVersion: 'setpoint://0.1.0', machineID: '', systemUUID: '', bootID: '', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
  });
  ok(await srv.request('POST', '/api/v1/nodes', { metadata: { name: 'n2' }, spec: { unschedulable: true } }), 201);
  await patchStatus(srv, '/api/v1/nodes/n2', { conditions: [{ type: 'Ready', status: 'False', reason: 'KubeletNotReady' }] });
  ok(await srv.request('POST', '/api/v1/nodes', { metadata: { name: 'n3' } }), 201);

  ok(await srv.request('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } }), 201);
  ok(await srv.request('DELETE', '/api/v1/namespaces/doomed'));
  ok(await srv.request('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', { metadata: { name: 'n1' }, spec: { holderIdentity: 'n1', leaseDurationSeconds: 40 } }), 201);
  ok(await srv.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'settings' }, data: { a: '1', b: '2' } }), 201);
  ok(await srv.request('POST', '/api/v1/namespaces/kube-system/configmaps', { metadata: { name: 'system-settings' }, data: { c: '3' } }), 201);
  const seen = rfc3339(clock.now());
  ok(
    await srv.request('POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'web-1.1' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1', apiVersion: 'v1' },
      reason: 'Scheduled',
      message: 'Successfully assigned default/web-1 to n1',
      type: 'Normal',
      source: { component: 'setpoint-scheduler' },
      firstTimestamp: seen,
      lastTimestamp: seen,
      count: 1,
    }),
    201,
  );
}

test('kubectl get prints server-side tables', async (t: TestContext) => {
  skew = 0;
  await using srv = await startTestServer({ secure: true, clock });
  await createFixtures(srv);
  skew = SKEW_MS;
  // web-2 crash-loops: restarted 3 times, the last 10 minutes ago (server time).
  await patchStatus(srv, `${PODS}/web-2`, {
    phase: 'Running',
    containerStatuses: [
      container('app', { waiting: { reason: 'CrashLoopBackOff' } }, { restartCount: 3, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: rfc3339(clock.now() - 10 * 60_000) } } }),
    ],
  });
  await patchStatus(srv, `${PODS}/done`, { phase: 'Succeeded', containerStatuses: [container('app', { terminated: { exitCode: 0, reason: 'Completed' } })] });

  await t.test('get pods: NAME READY STATUS RESTARTS AGE with kubectl-style STATUS', async () => {
    const out = await kubectl(srv, 'get', 'pods');
    assert.equal(lines(out)[0], 'NAME  READY  STATUS  RESTARTS  AGE');
    assert.deepEqual(rowOf(out, 'web-1'), ['web-1', '1/1', 'Running', '0', '3d4h']);
    assert.deepEqual(rowOf(out, 'web-2'), ['web-2', '0/1', 'CrashLoopBackOff', '3 (10m ago)', '3d4h']);
    assert.deepEqual(rowOf(out, 'done'), ['done', '0/1', 'Completed', '0', '3d4h']);
    assert.deepEqual(lines(await kubectl(srv, 'get', 'pod', 'web-1')), ['NAME  READY  STATUS  RESTARTS  AGE', 'web-1  1/1  Running  0  3d4h']);
  });

  await t.test('get pods -o wide adds IP NODE NOMINATED NODE READINESS GATES', async () => {
    const out = await kubectl(srv, 'get', 'pods', '-o', 'wide');
    assert.equal(lines(out)[0], 'NAME  READY  STATUS  RESTARTS  AGE  IP  NODE  NOMINATED NODE  READINESS GATES');
    assert.deepEqual(rowOf(out, 'web-1'), ['web-1', '1/1', 'Running', '0', '3d4h', '10.0.0.5', 'n1', '<none>', '<none>']);
  });

  await t.test('--show-labels and -A (NAMESPACE) come from the rows\' object metadata', async () => {
    const labelled = await kubectl(srv, 'get', 'pods', '--show-labels');
    assert.equal(lines(labelled)[0], 'NAME  READY  STATUS  RESTARTS  AGE  LABELS');
    assert.deepEqual(rowOf(labelled, 'web-1'), ['web-1', '1/1', 'Running', '0', '3d4h', 'app=web']);
    const all = await kubectl(srv, 'get', 'cm', '-A');
    assert.equal(lines(all)[0], 'NAMESPACE  NAME  DATA  AGE');
    assert.ok(lines(all).includes('default  settings  2  3d4h'), all);
    assert.ok(lines(all).includes('kube-system  system-settings  1  3d4h'), all);
  });

  await t.test('get deploy and get rs (-o wide: CONTAINERS IMAGES SELECTOR)', async () => {
    const deploy = await kubectl(srv, 'get', 'deploy');
    assert.deepEqual(lines(deploy), ['NAME  READY  UP-TO-DATE  AVAILABLE  AGE', 'web  2/3  3  2  3d4h']);
    const wide = await kubectl(srv, 'get', 'deploy', '-o', 'wide');
    assert.deepEqual(lines(wide), ['NAME  READY  UP-TO-DATE  AVAILABLE  AGE  CONTAINERS  IMAGES  SELECTOR', 'web  2/3  3  2  3d4h  app  nginx:1.27  app=web']);
    const rs = await kubectl(srv, 'get', 'rs', '-o', 'wide');
    assert.deepEqual(lines(rs), ['NAME  DESIRED  CURRENT  READY  AGE  CONTAINERS  IMAGES  SELECTOR', 'web-5d8f  2  2  1  3d4h  app  nginx:1.27  app=web']);
  });

  await t.test('get nodes: STATUS Ready / NotReady,SchedulingDisabled / Unknown, ROLES, VERSION', async () => {
    const out = await kubectl(srv, 'get', 'nodes');
    assert.deepEqual(lines(out), [
      'NAME  STATUS  ROLES  AGE  VERSION',
      'n1  Ready  control-plane  3d4h  v1.32.0',
      'n2  NotReady,SchedulingDisabled  <none>  3d4h',
      'n3  Unknown  <none>  3d4h',
    ]);
    const wide = await kubectl(srv, 'get', 'node', 'n1', '-o', 'wide');
    assert.deepEqual(lines(wide), [
      'NAME  STATUS  ROLES  AGE  VERSION  INTERNAL-IP  EXTERNAL-IP  OS-IMAGE  KERNEL-VERSION  CONTAINER-RUNTIME',
      'n1  Ready  control-plane  3d4h  v1.32.0  192.168.1.10  <none>  Debian GNU/Linux 12  6.1.0  setpoint://0.1.0',
    ]);
  });

  await t.test('get ns shows STATUS Active and Terminating', async () => {
    const out = await kubectl(srv, 'get', 'ns');
    assert.equal(lines(out)[0], 'NAME  STATUS  AGE');
    assert.deepEqual(rowOf(out, 'default'), ['default', 'Active', '3d4h']);
    assert.deepEqual(rowOf(out, 'doomed'), ['doomed', 'Terminating', '3d4h']);
  });

  await t.test('get leases, get cm (DATA) and get events', async () => {
    assert.deepEqual(lines(await kubectl(srv, 'get', 'leases', '-n', 'kube-node-lease')), ['NAME  HOLDER  AGE', 'n1  n1  3d4h']);
    const cms = await kubectl(srv, 'get', 'cm');
    assert.equal(lines(cms)[0], 'NAME  DATA  AGE');
    assert.deepEqual(rowOf(cms, 'settings'), ['settings', '2', '3d4h']);
    const events = await kubectl(srv, 'get', 'events');
    assert.deepEqual(lines(events), ['LAST SEEN  TYPE  REASON  OBJECT  MESSAGE', '3d4h  Normal  Scheduled  pod/web-1  Successfully assigned default/web-1 to n1']);
  });

  await t.test('get pods -w prints a row per change', async () => {
    const child = spawn('kubectl', kubectlArgs(srv, ['get', 'pods', '-w']), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    const killer = setTimeout(() => child.kill('SIGKILL'), KUBECTL_DEADLINE_MS);
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    try {
      await waitFor(() => rowOf(stdout, 'web-1') !== undefined || child.exitCode !== null, 10_000, 'the listed pods');
      ok(await srv.request('POST', PODS, { metadata: { name: 'new' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } }), 201);
      await waitFor(() => rowOf(stdout, 'new') !== undefined || child.exitCode !== null, 10_000, 'the new pod\'s row');
      const added = rowOf(stdout, 'new');
      assert.deepEqual(added?.slice(0, 4), ['new', '0/1', 'Pending', '0'], stdout);
      assert.match(added[4] ?? '', /^[01]s$/, 'just created (timestamps have whole seconds)');
      ok(await srv.request('DELETE', `${PODS}/web-1`, { propagationPolicy: 'Background' }));
      const terminating = () => lines(stdout).some((l) => l.startsWith('web-1  1/1  Terminating  0  3d4h'));
      await waitFor(() => terminating() || child.exitCode !== null, 10_000, 'the Terminating row');
      assert.ok(terminating(), `no Terminating row:\n${stdout}`);
      assert.equal(child.exitCode, null, 'kubectl get -w is still watching');
      assert.equal(stderr, '');
      assert.equal(lines(stdout).filter((l) => l.startsWith('NAME')).length, 1, `one header:\n${stdout}`);
    } finally {
      clearTimeout(killer);
      child.kill('SIGTERM');
      await exited;
    }
  });
});

test('Tables over HTTP', async (t: TestContext) => {
  await using srv = await startTestServer();
  const CMS = '/api/v1/namespaces/default/configmaps';
  ok(await srv.request('POST', CMS, { metadata: { name: 'a', labels: { x: 'y' } }, data: { k: 'v' } }), 201);

  await t.test('a list as a Table: columns, rows with PartialObjectMetadata, the list resourceVersion', async () => {
    const table = ok(await srv.request('GET', CMS, undefined, { accept: TABLE_ACCEPT }));
    assert.equal(table.kind, 'Table');
    assert.equal(table.apiVersion, 'meta.k8s.io/v1');
    assert.match(table.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(
      table.columnDefinitions.map((c: { name: string; type: string; format: string; priority: number }) => [c.name, c.type, c.format, c.priority]),
      [['Name', 'string', 'name', 0], ['Data', 'string', '', 0], ['Age', 'string', '', 0]],
    );
    const row = table.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'a');
    assert.deepEqual(row.cells.slice(0, 2), ['a', 1]);
    assert.equal(row.object.kind, 'PartialObjectMetadata');
    assert.equal(row.object.apiVersion, 'meta.k8s.io/v1');
    assert.deepEqual(row.object.metadata.labels, { x: 'y' });
    assert.equal(row.object.data, undefined);
  });

  await t.test('includeObject=Object and None; an unknown value is a 400; v1beta1 on request', async () => {
    const full = ok(await srv.request('GET', `${CMS}/a?includeObject=Object`, undefined, { accept: TABLE_ACCEPT }));
    assert.deepEqual(full.rows[0].object.data, { k: 'v' });
    assert.equal(full.rows[0].object.kind, 'ConfigMap');
    const none = ok(await srv.request('GET', `${CMS}/a?includeObject=None`, undefined, { accept: TABLE_ACCEPT }));
    assert.equal(none.rows[0].object, undefined);
    assertStatus(await srv.request('GET', `${CMS}?includeObject=All`, undefined, { accept: TABLE_ACCEPT }), 400, 'BadRequest', 'unrecognized includeObject value: "All"');
    const beta = ok(await srv.request('GET', CMS, undefined, { accept: 'application/json;as=Table;v=v1beta1;g=meta.k8s.io' }));
    assert.equal(beta.apiVersion, 'meta.k8s.io/v1beta1');
  });

  await t.test('without as=Table the answer is plain JSON; a Table of an unknown version is 406', async () => {
    assert.equal(ok(await srv.request('GET', CMS)).kind, 'ConfigMapList');
    assert.equal(ok(await srv.request('GET', CMS, undefined, { accept: 'application/json' })).kind, 'ConfigMapList');
    assertStatus(await srv.request('GET', CMS, undefined, { accept: 'application/json;as=Table;v=v2;g=meta.k8s.io' }), 406, 'NotAcceptable');
  });

  await t.test('a watch of Tables: one row per event, columns only on the first', async () => {
    const headers = { accept: TABLE_ACCEPT };
    const w = openWatch(srv.url, `${CMS}?watch=true`, headers);
    try {
      const first = await w.next();
      assert.equal(first.type, 'ADDED');
      assert.equal(first.object.kind, 'Table');
      assert.equal(first.object.columnDefinitions.length, 3);
      assert.deepEqual(first.object.rows.map((r: { cells: unknown[] }) => r.cells[0]), ['a']);
      ok(await srv.request('PATCH', `${CMS}/a`, { data: { k: 'v', k2: 'v2' } }, MERGE));
      const second = await w.next();
      assert.equal(second.type, 'MODIFIED');
      assert.equal(second.object.columnDefinitions, null);
      assert.deepEqual(second.object.rows[0].cells.slice(0, 2), ['a', 2]);
      assert.equal(second.object.metadata.resourceVersion, second.object.rows[0].object.metadata.resourceVersion);
    } finally {
      w.close();
    }
    const plain = openWatch(srv.url, `${CMS}?watch=true`);
    try {
      assert.equal((await plain.next()).object.kind, 'ConfigMap', 'plain JSON without as=Table');
    } finally {
      plain.close();
    }
  });
});
