/**
 * PodSecurityAdmission on its own (fake namespaces and pods): label errors fail closed for
 * enforce and open for audit and warn, the audit annotations of each outcome, exemptions, the
 * 500 when the namespace cannot be read, the namespace-update rules and the pod cap.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, type KubeObject } from '@setpoint/api';
import { NAMESPACE_MAX_PODS_TO_CHECK, PodSecurityAdmission, type PodSecurityConfig, type PodSecurityRequest } from './admission.js';
import { parsePodSecurityDefaults } from './config.js';

const PODS = { group: '', resource: 'pods' };
const NAMESPACES = { group: '', resource: 'namespaces' };

function plugin(labels: Record<string, string> | Error, config: PodSecurityConfig = {}, pods: KubeObject[] = []): PodSecurityAdmission {
  return new PodSecurityAdmission(config, {
    namespaceLabels: async () => {
      if (labels instanceof Error) throw labels;
      return labels;
    },
    listPods: async () => pods,
  });
}

function pod(name: string, spec: Record<string, unknown> = {}, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'ns', ...extra }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } };
}

async function run(p: PodSecurityAdmission, req: Partial<PodSecurityRequest> & { obj: KubeObject }): Promise<{ warnings: string[]; annotations: Record<string, string>; error?: ApiError }> {
  const warnings: string[] = [];
  const annotations: Record<string, string> = {};
  try {
    await p.admit({ gr: PODS, subresource: '', namespace: 'ns', operation: 'create', username: 'alice', ...req }, { warn: (t) => warnings.push(t), annotate: (k, v) => (annotations[k] = v) });
    return { warnings, annotations };
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    return { warnings, annotations, error: err };
  }
}

const hostNet = pod('h', { hostNetwork: true });

describe('PodSecurityAdmission', () => {
  it('an enforce label that does not parse is evaluated as restricted (fail closed), and says so in the audit event', async () => {
    const out = await run(plugin({ 'pod-security.kubernetes.io/enforce': 'strict' }), { obj: pod('p') });
    assert.equal(out.error?.code, 403);
    assert.match(out.error!.message, /^pods "p" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false/);
    assert.equal(
      out.annotations['pod-security.kubernetes.io/error'],
      'Failed to parse policy: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted',
    );
    assert.equal(out.annotations['pod-security.kubernetes.io/enforce-policy'], 'restricted:latest');
  });

  it('audit and warn labels that do not parse are privileged (fail open)', async () => {
    const out = await run(plugin({ 'pod-security.kubernetes.io/warn': 'x', 'pod-security.kubernetes.io/audit': 'y' }), { obj: hostNet });
    assert.equal(out.error, undefined);
    assert.deepEqual(out.warnings, []);
    assert.equal(out.annotations['pod-security.kubernetes.io/audit-violations'], undefined);
  });

  it('a privileged namespace records the policy it enforced and evaluates nothing', async () => {
    const out = await run(plugin({}), { obj: hostNet });
    assert.deepEqual(out, { warnings: [], annotations: { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' } });
  });

  it('exemptions: namespace, user, runtime class — each recorded as the reason', async () => {
    const config: PodSecurityConfig = { defaults: parsePodSecurityDefaults('enforce=restricted'), exemptions: { namespaces: ['ns'], usernames: ['ops'], runtimeClasses: ['kata'] } };
    assert.deepEqual((await run(plugin({}, config), { obj: hostNet })).annotations, { 'pod-security.kubernetes.io/exempt': 'namespace' });
    const other = { ...config, exemptions: { ...config.exemptions, namespaces: [] } };
    assert.deepEqual((await run(plugin({}, other), { obj: hostNet, username: 'ops' })).annotations, { 'pod-security.kubernetes.io/exempt': 'user' });
    assert.deepEqual((await run(plugin({}, other), { obj: pod('k', { runtimeClassName: 'kata', hostPID: true }) })).annotations, { 'pod-security.kubernetes.io/exempt': 'runtimeClass' });
    assert.equal((await run(plugin({}, other), { obj: pod('k', { runtimeClassName: 'runc', hostPID: true }) })).error?.code, 403);
  });

  it('a namespace that cannot be read is a 500 for pods, and only an audit annotation for pod templates', async () => {
    const broken = plugin(new Error('store down'));
    const out = await run(broken, { obj: hostNet });
    assert.equal(out.error?.code, 500);
    assert.equal(out.error?.message, 'Internal error occurred: failed to lookup namespace ns');
    const deployment: KubeObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'ns' }, spec: { template: { spec: hostNet['spec'] } } };
    const templ = await run(broken, { gr: { group: 'apps', resource: 'deployments' }, obj: deployment });
    assert.equal(templ.error, undefined);
    assert.match(templ.annotations['pod-security.kubernetes.io/error'] ?? '', /^failed to lookup namespace ns: /);
  });

  it('pod templates: warned and audited, never enforced, no enforce-policy annotation', async () => {
    const labels = { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/audit': 'baseline', 'pod-security.kubernetes.io/warn': 'baseline' };
    const cronJob: KubeObject = { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'c', namespace: 'ns' }, spec: { jobTemplate: { spec: { template: { spec: hostNet['spec'] } } } } };
    const out = await run(plugin(labels), { gr: { group: 'batch', resource: 'cronjobs' }, obj: cronJob });
    assert.equal(out.error, undefined);
    assert.deepEqual(out.warnings, ['would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)']);
    assert.deepEqual(out.annotations, { 'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": host namespaces (hostNetwork=true)' });
    // Subresources (scale…) and kinds without templates are not looked at.
    assert.deepEqual(await run(plugin(labels), { gr: { group: 'batch', resource: 'cronjobs' }, subresource: 'status', obj: cronJob }), { warnings: [], annotations: {} });
    assert.equal(PodSecurityAdmission.handles({ group: '', resource: 'configmaps' }), false);
  });

  it('pod subresources like status and binding are not evaluated', async () => {
    const p = plugin({ 'pod-security.kubernetes.io/enforce': 'baseline' });
    for (const subresource of ['status', 'binding', 'eviction']) assert.deepEqual(await run(p, { obj: hostNet, subresource, operation: 'update', old: hostNet }), { warnings: [], annotations: {} });
  });

  describe('namespaces', () => {
    const ns = (labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels } });
    const update = (p: PodSecurityAdmission, from: Record<string, string>, to: Record<string, string>) => run(p, { gr: NAMESPACES, namespace: 'ns', operation: 'update', obj: ns(to), old: ns(from) });

    it('an update that keeps the same bad labels is allowed; one that changes them is not', async () => {
      const bad = { 'pod-security.kubernetes.io/enforce': 'nope' };
      assert.equal((await update(plugin({}), bad, { ...bad, team: 'a' })).error, undefined);
      assert.equal((await update(plugin({}), bad, { 'pod-security.kubernetes.io/enforce': 'nope2' })).error?.code, 422);
      assert.equal((await update(plugin({}), {}, bad)).error?.code, 422);
    });

    it('only a stricter enforce level (or another version) looks at the existing pods', async () => {
      const p = plugin({}, {}, [hostNet]);
      const baseline = { 'pod-security.kubernetes.io/enforce': 'baseline' };
      assert.equal((await update(p, {}, baseline)).warnings.length, 2);
      assert.deepEqual((await update(p, baseline, baseline)).warnings, []);
      assert.deepEqual((await update(p, { 'pod-security.kubernetes.io/enforce': 'restricted' }, baseline)).warnings, [], 'relaxed at the same version');
      assert.equal((await update(p, { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.20' }, baseline)).warnings.length, 2, 'another version');
      const exempt = plugin({}, { exemptions: { namespaces: ['ns'] } }, [hostNet]);
      assert.deepEqual((await update(exempt, {}, baseline)).warnings, []);
    });

    it('one pod per controller first, and at most the first 3000 pods', async () => {
      const owner = (uid: string) => ({ ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: uid, uid, controller: true }] });
      const many: KubeObject[] = [];
      for (let i = 0; i < NAMESPACE_MAX_PODS_TO_CHECK + 1; i++) many.push(pod(`r-${String(i).padStart(4, '0')}`, {}, owner('rs-1')));
      many.push(pod('priv', { containers: [{ name: 'c', image: 'i', securityContext: { privileged: true } }] }, owner('rs-2')));
      const out = await update(plugin({}, {}, many), {}, { 'pod-security.kubernetes.io/enforce': 'baseline' });
      assert.deepEqual(out.warnings, [
        `new PodSecurity enforce level only checked against the first ${NAMESPACE_MAX_PODS_TO_CHECK} of ${NAMESPACE_MAX_PODS_TO_CHECK + 2} existing pods`,
        'existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest"',
        'priv: privileged (container "c" must not set securityContext.privileged=true)',
      ]);
    });
  });
});
