/**
 * Identities end to end, on `setpoint server`'s startServer (HTTPS, its own data dir) in this
 * process: a pod run by a real node agent uses its mounted ServiceAccount token from inside its
 * process to read its own pod; `setpoint kubeconfig create` issues a certificate kubectl
 * authenticates with; --token-auth-file users; the component kubeconfigs. kubectl runs
 * asynchronously with a kill deadline; every wait has a deadline; the pods' processes end on their
 * own (restartPolicy Never) and everything started is stopped.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isApiError, silentLogger } from '@setpoint/api';
import { containerLogPath, podDir, podFilesDir, runAgent } from '@setpoint/agent';
import { agentIdentity, ensureComponentCredentials } from '@setpoint/apiserver';
import { Client, Manager } from '@setpoint/client';
import { registerServiceAccountController } from '@setpoint/controllers';
import { startServer, type RunningServer } from '../src/commands/server.js';
import { runSetpoint } from './cli-support.js';

const here = dirname(fileURLToPath(import.meta.url));
const podProgram = join(here, 'incluster-pod.ts');
const tsx = import.meta.resolve('tsx');

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`, { cause: last });
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('identities: pod ServiceAccount tokens, kubeconfig create, token file, components', () => {
  let home: string;
  let dataDir: string;
  let agentDir: string;
  let running: RunningServer;
  let client: Client;
  const stop = new AbortController();
  let workers: Promise<void>[] = [];

  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'setpoint-identity-'));
    dataDir = join(home, '.setpoint');
    agentDir = join(dataDir, 'agent', 'node-a');
    const tokenFile = join(dataDir, 'tokens.csv');
    await mkdir(dataDir, { mode: 0o700 });
    await writeFile(tokenFile, 'frank-token,frank,frank-uid,"ops,oncall"\n');
    running = await startServer(
      { dataDir, port: '0', host: '127.0.0.1', store: 'memory', compactionInterval: '5m', logLevel: 'error', tokenAuthFile: tokenFile },
      silentLogger,
    );
    client = new Client(running.connection, { qps: 1000, burst: 1000 });
    const manager = new Manager({ client, gracefulShutdownMs: 2_000 });
    registerServiceAccountController(manager);
    workers = [manager.start(stop.signal), runAgent({ client, nodeName: 'node-a', dataDir: agentDir, runtime: 'process', signal: stop.signal })];
  });

  after(async () => {
    stop.abort();
    await Promise.all(workers);
    client.close();
    await running.stop();
    await rm(home, { recursive: true, force: true });
  });

  function kubectl(kubeconfig: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      execFile('kubectl', [`--kubeconfig=${kubeconfig}`, `--cache-dir=${join(dataDir, 'kube-cache')}`, '--request-timeout=10s', ...args], { timeout: 15_000, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
        if (err === null) return resolve({ code: 0, stdout, stderr });
        if (typeof err.code === 'number') return resolve({ code: err.code, stdout, stderr });
        reject(new Error(`kubectl ${args.join(' ')} did not finish (${err.signal ?? err.message}): ${stderr}`, { cause: err }));
      });
    });
  }

  async function whoami(kubeconfig: string): Promise<{ username: string; uid?: string; groups: string[] }> {
    const res = await kubectl(kubeconfig, 'auth', 'whoami', '-o', 'json');
    assert.equal(res.code, 0, res.stderr);
    return JSON.parse(res.stdout).status.userInfo;
  }

  /** A raw HTTPS GET with a bearer token: the status code. */
  function statusWithToken(token: string, path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = https.request(new URL(path, running.server.url), { headers: { authorization: `Bearer ${token}` }, ca: running.connection.ca, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });
  }

  const getPod = (name: string, namespace: string) => client.pods().get(name, { namespace }).catch((err: unknown) => (isApiError(err, 'NotFound') ? undefined : Promise.reject(err)));

  it("a pod's process reads its own pod with its mounted ServiceAccount token; deleting the pod revokes it", { timeout: 90_000 }, async () => {
    await client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'apps' } });
    await waitFor('the default ServiceAccount of apps', () => client.serviceAccounts().get('default', { namespace: 'apps' }));
    // Authorization (RBAC) lets the account read pods of its namespace; the authorizer sees the binding before the pod starts.
    const rbac = '/apis/rbac.authorization.k8s.io/v1/namespaces/apps';
    await client.http.request({ method: 'POST', path: `${rbac}/roles`, body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'pod-reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] } });
    await client.http.request({
      method: 'POST',
      path: `${rbac}/rolebindings`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'default-reads-pods' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: 'apps' }],
      },
    });
    await waitFor('the binding to take effect', async () => {
      const review = await client.http.request<{ status?: { allowed?: boolean } }>({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: 'system:serviceaccount:apps:default', groups: ['system:serviceaccounts', 'system:authenticated'], resourceAttributes: { namespace: 'apps', verb: 'get', resource: 'pods' } },
        },
      });
      return review.body.status?.allowed === true;
    });
    const created = await client.pods().create(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'reader', namespace: 'apps' },
        spec: {
          nodeName: 'node-a',
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: 'main',
              image: 'setpoint.dev/node:recorded-not-pulled',
              command: [process.execPath, '--conditions=setpoint-src', '--import', tsx, podProgram],
              env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
            },
          ],
        },
      },
      { namespace: 'apps' },
    );
    const uid = created.metadata.uid ?? '';
    const done = await waitFor('the pod to finish', async () => {
      const pod = await getPod('reader', 'apps');
      return pod?.status?.phase === 'Succeeded' || pod?.status?.phase === 'Failed' ? pod : undefined;
    }, 60_000);
    const log = await readFile(containerLogPath(podDir(agentDir, uid), 'main'), 'utf8');
    assert.equal(done.status?.phase, 'Succeeded', `the pod's status: ${JSON.stringify(done.status?.containerStatuses)}\nits log:\n${log}`);
    const line = log.split('\n').find((l) => l.startsWith('{'));
    assert.ok(line, `a JSON line in the log:\n${log}`);
    const result = JSON.parse(line) as { namespace: string; pod: { name: string; uid: string }; user: { username: string; groups: string[]; extra: Record<string, string[]> } };
    assert.equal(result.namespace, 'apps');
    assert.deepEqual(result.pod, { name: 'reader', uid });
    assert.equal(result.user.username, 'system:serviceaccount:apps:default');
    assert.deepEqual(result.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:apps', 'system:authenticated']);
    assert.deepEqual(result.user.extra['authentication.kubernetes.io/pod-uid'], [uid]);
    assert.deepEqual(result.user.extra['authentication.kubernetes.io/node-name'], ['node-a']);

    // The mounted files, and the token's life: bound to the pod.
    const mounted = join(podFilesDir(agentDir, uid), 'serviceaccount');
    assert.equal(await readFile(join(mounted, 'namespace'), 'utf8'), 'apps');
    assert.equal(await readFile(join(mounted, 'ca.crt'), 'utf8'), running.connection.ca);
    assert.equal((await stat(join(mounted, 'token'))).mode & 0o777, 0o600);
    const token = (await readFile(join(mounted, 'token'), 'utf8')).trim();
    assert.equal(await statusWithToken(token, '/api/v1/namespaces/apps/pods/reader'), 200);
    await client.pods().delete('reader', { namespace: 'apps' });
    await waitFor('the pod to be gone', async () => (await getPod('reader', 'apps')) === undefined);
    assert.equal(await statusWithToken(token, '/api/v1/namespaces/apps/pods/reader'), 401);
  });

  it('mounts no token into a pod that says automountServiceAccountToken: false', { timeout: 60_000 }, async () => {
    await waitFor('the default ServiceAccount', () => client.serviceAccounts().get('default', { namespace: 'default' }));
    const created = await client.pods().create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'no-token', namespace: 'default' },
      spec: {
        nodeName: 'node-a',
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        containers: [
          {
            name: 'main',
            image: 'setpoint.dev/node:recorded-not-pulled',
            command: [process.execPath, '-e', 'console.log(JSON.stringify({ dir: process.env.SETPOINT_SERVICE_ACCOUNT_DIR ?? null, port: process.env.KUBERNETES_SERVICE_PORT ?? null }))'],
          },
        ],
      },
    });
    await waitFor('the pod to succeed', async () => (await getPod('no-token', 'default'))?.status?.phase === 'Succeeded');
    const log = await readFile(containerLogPath(podDir(agentDir, created.metadata.uid ?? ''), 'main'), 'utf8');
    assert.deepEqual(JSON.parse(log.trim()), { dir: null, port: String(new URL(running.server.url).port) });
    await client.pods().delete('no-token');
    await waitFor('the pod to be gone', async () => (await getPod('no-token', 'default')) === undefined);
  });

  it('setpoint kubeconfig create writes a kubeconfig kubectl authenticates with as that user', async () => {
    const file = join(dataDir, 'alice.kubeconfig');
    const res = await runSetpoint(['kubeconfig', 'create', '--user', 'alice', '--group', 'dev', '--group', 'ops', '--data-dir', dataDir, '--days', '2', '-o', file]);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /wrote a kubeconfig for user "alice" \(groups dev, ops\)/);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(await whoami(file), { username: 'alice', groups: ['dev', 'ops', 'system:authenticated'] });

    const printed = await runSetpoint(['kubeconfig', 'create', '--user', 'bob', '--namespace', 'apps'], { env: { HOME: home } });
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^apiVersion: v1\n/);
    assert.match(printed.stdout, /client-certificate-data: /);
    assert.match(printed.stdout, /namespace: apps/);

    const empty = await mkdtemp(join(tmpdir(), 'setpoint-identity-empty-'));
    try {
      const missing = await runSetpoint(['kubeconfig', 'create', '--user', 'x', '--data-dir', empty]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /^error: .*ca\.crt: no such file/);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
    const noUser = await runSetpoint(['kubeconfig', 'create', '--data-dir', dataDir]);
    assert.notEqual(noUser.code, 0);
    assert.match(noUser.stderr, /--user/);
  });

  it('authenticates the users of --token-auth-file, and refuses to start on a malformed file', async () => {
    const file = join(dataDir, 'frank.kubeconfig');
    const admin = await readFile(running.kubeconfigPath, 'utf8');
    await writeFile(file, admin.replace(/token: .*/, 'token: frank-token'), { mode: 0o600 });
    assert.deepEqual(await whoami(file), { username: 'frank', uid: 'frank-uid', groups: ['ops', 'oncall', 'system:authenticated'] });
    assert.deepEqual(await whoami(running.kubeconfigPath), { username: 'admin', groups: ['system:masters', 'system:authenticated'] });

    const bad = join(dataDir, 'bad-tokens.csv');
    await writeFile(bad, 'ok-token,ok,1\nbroken-line\n');
    const otherDir = await mkdtemp(join(tmpdir(), 'setpoint-identity-bad-'));
    try {
      await assert.rejects(
        startServer({ dataDir: otherDir, port: '0', host: '127.0.0.1', store: 'memory', compactionInterval: '5m', logLevel: 'error', tokenAuthFile: bad }, silentLogger),
        (err: unknown) => err instanceof Error && err.message === `${bad}:2: expected token,user,uid[,"group1,group2"], found 1 column`,
      );
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('offers the components their identities as kubeconfigs in DATA/components', async () => {
    assert.deepEqual(await whoami(join(dataDir, 'components', 'controller-manager.kubeconfig')), { username: 'system:kube-controller-manager', groups: ['system:authenticated'] });
    assert.deepEqual(await whoami(join(dataDir, 'components', 'scheduler.kubeconfig')), { username: 'system:kube-scheduler', groups: ['system:authenticated'] });
    const [agent] = await ensureComponentCredentials({ dataDir, server: running.server.url, identities: [agentIdentity('node-a')] });
    assert.ok(agent);
    assert.deepEqual(await whoami(agent.kubeconfigPath), { username: 'system:node:node-a', groups: ['system:nodes', 'system:authenticated'] });
    // In process: a Client made from a credential's config authenticates as the component.
    const controllerManager = running.components.find((c) => c.identity.user === 'system:kube-controller-manager');
    assert.ok(controllerManager);
    const asComponent = new Client(controllerManager.config);
    try {
      const review = await asComponent.http.request<{ status: { userInfo: { username: string } } }>({
        method: 'POST',
        path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      });
      assert.equal(review.body.status.userInfo.username, 'system:kube-controller-manager');
    } finally {
      asComponent.close();
    }
    const [again] = await ensureComponentCredentials({ dataDir, server: running.server.url, identities: [agentIdentity('node-a')] });
    assert.equal(again?.config.cert, agent.config.cert, 'a valid certificate is reused');
    assert.equal((await stat(join(dataDir, 'components', 'agent-node-a.key'))).mode & 0o777, 0o600);
  });
});

