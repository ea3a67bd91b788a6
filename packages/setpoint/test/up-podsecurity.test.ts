/**
 * `setpoint up` enforces the baseline Pod Security Standard by default outside kube-system: a
 * privileged pod, a pod with a hostPath volume and a pod sharing the host's network are refused
 * in `default` with Kubernetes' 403, admitted in kube-system; a namespace labelled
 * enforce=privileged admits them. The flags' parsing is checked without a process.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { podSecurityOptions } from '../src/commands/podsecurityflags.js';
import { startUp } from './setpoint-process.js';


interface Connection {
  readonly server: string;
  readonly ca: string;
  readonly token: string;
}

function call(conn: Connection, method: string, path: string, body?: unknown): Promise<{ status: number; body: { message?: string; reason?: string } }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(path, conn.server), { method, ca: conn.ca, headers: { authorization: `Bearer ${conn.token}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { message?: string } }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('no answer in 30 s')));
    req.end(payload);
  });
}


async function connection(home: string): Promise<Connection> {
  const config = parseYaml(await readFile(join(home, '.setpoint', 'kubeconfig.yaml'), 'utf8')) as {
    clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
    users: Array<{ user: { token: string } }>;
  };
  const cluster = config.clusters[0]!.cluster;
  return { server: cluster.server, ca: Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'), token: config.users[0]!.user.token };
}

const pod = (name: string, spec: Record<string, unknown>, securityContext?: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'busybox', command: ['sleep', '1'], ...(securityContext ? { securityContext } : {}) }], ...spec },
});

describe('setpoint up: Pod Security', () => {
  it('refuses pods that would own the host in default (403) and admits them in kube-system', { timeout: 180_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'setpoint-up-psa-'));
    let up: Awaited<ReturnType<typeof startUp>> | undefined;
    try {
      up = await startUp(home, ['--agents', '0']);
      const conn = await connection(home);
      const cases = [
        { body: pod('priv', {}, { privileged: true }), why: 'privileged (container "c" must not set securityContext.privileged=true)' },
        { body: pod('host-path', { volumes: [{ name: 'data', hostPath: { path: '/' } }] }), why: 'hostPath volumes (volume "data")' },
        { body: pod('host-net', { hostNetwork: true }), why: 'host namespaces (hostNetwork=true)' },
        // Root in a pod is the host's root on the process runtime: baseline refuses it here
        // (Kubernetes' baseline admits it; its restricted check and message are used).
        { body: pod('root', {}, { runAsUser: 0 }), why: 'runAsUser=0 (container "c" must not set runAsUser=0)' },
      ];
      for (const c of cases) {
        const refused = await call(conn, 'POST', '/api/v1/namespaces/default/pods', c.body);
        assert.equal(refused.status, 403, JSON.stringify(refused.body));
        assert.equal(refused.body.reason, 'Forbidden');
        assert.equal(refused.body.message, `pods "${c.body.metadata.name}" is forbidden: violates PodSecurity "baseline:latest": ${c.why}`);
        const admitted = await call(conn, 'POST', '/api/v1/namespaces/kube-system/pods', c.body);
        assert.equal(admitted.status, 201, JSON.stringify(admitted.body));
      }
      // Any other uid is baseline.
      assert.equal((await call(conn, 'POST', '/api/v1/namespaces/default/pods', pod('uid-1000', {}, { runAsUser: 1000 }))).status, 201);
      // A namespace an administrator labels privileged admits them.
      const ns = await call(conn, 'POST', '/api/v1/namespaces', { metadata: { name: 'ops', labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } } });
      assert.equal(ns.status, 201, JSON.stringify(ns.body));
      assert.equal((await call(conn, 'POST', '/api/v1/namespaces/ops/pods', cases[0]!.body)).status, 201);
      up.child.kill('SIGINT');
      assert.equal(await up.exited, 0);
      up = undefined;
    } finally {
      if (up !== undefined) {
        up.child.kill('SIGKILL');
        await up.exited;
      }
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('PodSecurity flags', () => {
  it('default: enforce baseline, kube-system exempt', () => {
    const config = podSecurityOptions({});
    assert.equal(config.defaults?.enforce.level, 'baseline');
    assert.equal(config.defaults?.warn.level, 'privileged');
    assert.deepEqual(config.exemptions?.namespaces, ['kube-system']);
  });
  it('--pod-security-default sets each mode; enforce=privileged turns enforcement off', () => {
    const config = podSecurityOptions({ podSecurityDefault: 'enforce=privileged,warn=restricted:v1.30' });
    assert.equal(config.defaults?.enforce.level, 'privileged');
    assert.deepEqual(config.defaults?.warn, { level: 'restricted', version: { latest: false, minor: 30 } });
    assert.throws(() => podSecurityOptions({ podSecurityDefault: 'enforce=strict' }), /^Error: --pod-security-default: "enforce=strict": must be one of privileged, baseline, restricted$/);
    assert.throws(() => podSecurityOptions({ podSecurityDefault: 'block=baseline' }), /--pod-security-default: "block=baseline": expected MODE=LEVEL\[:VERSION\]/);
  });
  it('--admission-control-config-file reads the PodSecurity plugin configuration (inline or by path), replacing the defaults', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-psa-config-'));
    try {
      const inline = join(dir, 'admission.yaml');
      await writeFile(
        inline,
        `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodSecurity
  configuration:
    apiVersion: pod-security.admission.config.k8s.io/v1
    kind: PodSecurityConfiguration
    defaults:
      enforce: restricted
      enforce-version: v1.29
      audit: baseline
    exemptions:
      usernames: [ops]
      runtimeClasses: [trusted]
      namespaces: [infra]
`,
      );
      const config = podSecurityOptions({ admissionControlConfigFile: inline });
      assert.deepEqual(config.defaults?.enforce, { level: 'restricted', version: { latest: false, minor: 29 } });
      assert.equal(config.defaults?.audit.level, 'baseline');
      assert.equal(config.defaults?.warn.level, 'privileged');
      assert.deepEqual(config.exemptions, { usernames: ['ops'], namespaces: ['infra'], runtimeClasses: ['trusted'] });
      // --pod-security-default still applies over the file's defaults.
      assert.equal(podSecurityOptions({ admissionControlConfigFile: inline, podSecurityDefault: 'enforce=baseline' }).defaults?.enforce.level, 'baseline');

      await writeFile(join(dir, 'psa.yaml'), 'apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  warn: restricted\n');
      const byPath = join(dir, 'by-path.yaml');
      await writeFile(byPath, 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: psa.yaml\n');
      const fromPath = podSecurityOptions({ admissionControlConfigFile: byPath });
      assert.equal(fromPath.defaults?.warn.level, 'restricted');
      assert.equal(fromPath.defaults?.enforce.level, 'privileged');

      const bad = join(dir, 'bad.yaml');
      await writeFile(bad, 'apiVersion: pod-security.admission.config.k8s.io/v1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: strict\n');
      assert.throws(() => podSecurityOptions({ admissionControlConfigFile: bad }), /--admission-control-config-file: .*bad\.yaml: defaults\.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted/);
      assert.throws(() => podSecurityOptions({ admissionControlConfigFile: join(dir, 'missing.yaml') }), /--admission-control-config-file: cannot read/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
