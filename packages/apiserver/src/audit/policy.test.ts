import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditPolicyChecker, parseAuditPolicy, type AuditAttributes } from './policy.js';

/** A resource request's attributes. */
function res(verb: string, resource: string, more: Partial<AuditAttributes> = {}): AuditAttributes {
  return { user: { name: 'alice', groups: ['dev', 'system:authenticated'] }, verb, resourceRequest: true, path: '/api/v1/x', apiGroup: '', namespace: 'default', resource, subresource: '', name: '', ...more };
}

/** A non-resource request's attributes. */
function path(p: string, more: Partial<AuditAttributes> = {}): AuditAttributes {
  return { user: { name: 'alice', groups: ['system:authenticated'] }, verb: 'get', resourceRequest: false, path: p, apiGroup: '', namespace: '', resource: '', subresource: '', name: '', ...more };
}

function levelOf(policyYaml: string, attrs: AuditAttributes): string {
  return new AuditPolicyChecker(parseAuditPolicy(policyYaml)).decide(attrs).level;
}

// Kubernetes' documented example policy (kubernetes.io, "Auditing"), trimmed to what Setpoint serves.
const EXAMPLE = `
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages:
  - "RequestReceived"
rules:
  - level: RequestResponse
    resources:
    - group: ""
      resources: ["pods"]
  - level: Metadata
    resources:
    - group: ""
      resources: ["pods/log", "pods/status"]
  - level: None
    resources:
    - group: ""
      resources: ["configmaps"]
      resourceNames: ["controller-leader"]
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
    resources:
    - group: ""
      resources: ["endpoints", "services"]
  - level: None
    userGroups: ["system:authenticated"]
    nonResourceURLs:
    - "/api*"
    - "/version"
  - level: Request
    resources:
    - group: ""
      resources: ["configmaps"]
    namespaces: ["kube-system"]
  - level: Metadata
    resources:
    - group: ""
      resources: ["secrets", "configmaps"]
  - level: Request
    resources:
    - group: ""
    - group: "extensions"
  - level: Metadata
    omitStages:
      - "RequestReceived"
`;

describe('audit policy', () => {
  it("gives each request the level of the first rule that matches (Kubernetes' example policy)", () => {
    const check = (attrs: AuditAttributes) => levelOf(EXAMPLE, attrs);
    assert.equal(check(res('create', 'pods')), 'RequestResponse');
    assert.equal(check(res('get', 'pods', { subresource: 'log' })), 'Metadata');
    assert.equal(check(res('update', 'pods', { subresource: 'status' })), 'Metadata');
    assert.equal(check(res('update', 'configmaps', { name: 'controller-leader' })), 'None');
    assert.equal(check(res('update', 'configmaps', { name: 'other', namespace: 'kube-system' })), 'Request');
    assert.equal(check(res('get', 'configmaps', { name: 'other' })), 'Metadata');
    assert.equal(check(res('list', 'configmaps')), 'Metadata', 'resourceNames never match a request without a name');
    assert.equal(check(res('get', 'secrets', { name: 's' })), 'Metadata');
    assert.equal(check(res('watch', 'services', { user: { name: 'system:kube-proxy', groups: [] } })), 'None');
    assert.equal(check(res('watch', 'services')), 'Request', 'another user is not kube-proxy');
    assert.equal(check(res('get', 'nodes', { namespace: '' })), 'Request', 'a group entry without resources matches every resource of the group');
    assert.equal(check(path('/apis/apps/v1')), 'None');
    assert.equal(check(path('/version')), 'None');
    assert.equal(check(path('/version', { user: undefined })), 'Metadata', 'a request that did not authenticate has no groups');
    assert.equal(check(res('create', 'deployments', { apiGroup: 'apps' })), 'Metadata', 'the catch-all rule');
    assert.deepEqual(new AuditPolicyChecker(parseAuditPolicy(EXAMPLE)).decide(res('get', 'pods')).omitStages, ['RequestReceived']);
  });

  it('matches resources by name, resource/subresource, *, */subresource and resource/*', () => {
    const policy = (resources: string, names = '') => `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Request
  resources: [{group: "", resources: ${resources}${names ? `, resourceNames: ${names}` : ''}}]
`;
    assert.equal(levelOf(policy('["pods"]'), res('get', 'pods', { subresource: 'log' })), 'None', '"pods" does not cover pods/log');
    assert.equal(levelOf(policy('["pods/log"]'), res('get', 'pods', { subresource: 'log' })), 'Request');
    assert.equal(levelOf(policy('["*"]'), res('get', 'pods', { subresource: 'log' })), 'Request');
    assert.equal(levelOf(policy('["*/status"]'), res('update', 'deployments', { subresource: 'status' })), 'Request');
    assert.equal(levelOf(policy('["*/status"]'), res('update', 'deployments')), 'None');
    assert.equal(levelOf(policy('["pods/*"]'), res('get', 'pods', { subresource: 'log' })), 'Request');
    assert.equal(levelOf(policy('["pods/*"]'), res('get', 'pods')), 'Request', "Kubernetes' resource/* also matches the resource itself");
    assert.equal(levelOf(policy('["pods"]', '["a"]'), res('get', 'pods', { name: 'a' })), 'Request');
    assert.equal(levelOf(policy('["pods"]', '["a"]'), res('get', 'pods', { name: 'b' })), 'None');
    assert.equal(levelOf(policy('["pods"]'), res('get', 'pods', { apiGroup: 'apps' })), 'None', 'the group must be the same');
  });

  it('matches namespaces ("" for cluster-scoped), non-resource URLs and verbs', () => {
    const ns = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  namespaces: ["", "kube-system"]
`;
    assert.equal(levelOf(ns, res('get', 'nodes', { namespace: '' })), 'Metadata');
    assert.equal(levelOf(ns, res('get', 'pods', { namespace: 'kube-system' })), 'Metadata');
    assert.equal(levelOf(ns, res('get', 'pods', { namespace: 'default' })), 'None');
    assert.equal(levelOf(ns, path('/healthz')), 'None', 'namespaces apply to resource requests only');
    const urls = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  nonResourceURLs: ["/healthz*", "/version"]
- level: RequestResponse
  verbs: ["post"]
`;
    assert.equal(levelOf(urls, path('/healthz')), 'None');
    assert.equal(levelOf(urls, path('/healthz/etcd')), 'None');
    assert.equal(levelOf(urls, path('/metrics')), 'None', 'no rule matches: None');
    assert.equal(levelOf(urls, path('/metrics', { verb: 'post' })), 'RequestResponse');
    assert.equal(levelOf(urls, res('get', 'pods', { path: '/healthz' })), 'None', 'nonResourceURLs never match resource requests');
  });

  it('unions the policy-wide omitStages with each rule\'s, and reads omitManagedFields', () => {
    const checker = new AuditPolicyChecker(
      parseAuditPolicy(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
omitManagedFields: true
rules:
- level: Metadata
  omitStages: [ResponseStarted]
  omitManagedFields: false
- level: Request
`),
    );
    const first = checker.decide(res('get', 'pods'));
    assert.deepEqual([...first.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
    assert.equal(first.omitManagedFields, false);
  });

  it("refuses what kube-apiserver refuses, with its messages and the file's name", () => {
    const refused = (text: string, pattern: RegExp) =>
      assert.throws(() => parseAuditPolicy(text, 'policy.yaml'), (err: Error) => pattern.test(err.message) && err.message.endsWith('from file policy.yaml'), `${text} → ${String(pattern)}`);
    const head = 'apiVersion: audit.k8s.io/v1\nkind: Policy\n';
    refused(`${head}rules: []\n`, /^loaded illegal policy with 0 rules/);
    refused(head, /^loaded illegal policy with 0 rules/);
    refused(`${head}rules:\n- level: Verbose\n`, /^rules\[0\]\.level: Unsupported value: "Verbose": supported values: "None", "Metadata", "Request", "RequestResponse"/);
    refused(`${head}rules:\n- users: [a]\n`, /^rules\[0\]\.level: Required value/);
    refused(`${head}rules:\n- level: None\n  nonResourceURLs: ["/a"]\n  namespaces: [x]\n`, /rules cannot apply to both regular resources and non-resource URLs/);
    refused(`${head}rules:\n- level: None\n  nonResourceURLs: ["/a*/b"]\n`, /non-resource URL wildcards '\*' must be the final character of the rule/);
    refused(`${head}rules:\n- level: None\n  nonResourceURLs: ["healthz"]\n`, /non-resource URL rules must begin with a '\/' character/);
    refused(`${head}rules:\n- level: None\n  omitStages: [Sometimes]\n`, /rules\[0\]\.omitStages\[0\]: Invalid value: "Sometimes": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic/);
    refused(`${head}rules:\n- level: None\n  resources: [{group: "apps/v1"}]\n`, /rules\[0\]\.resources\.group: Invalid value: "apps\/v1"/);
    refused(`${head}rules:\n- level: None\n  resources: [{group: "", resourceNames: [a]}]\n`, /using resourceNames requires at least one resource/);
    refused(`${head}rules:\n- level: None\n  verbs: get\n`, /rules\[0\]\.verbs: Invalid value: "get": must be a list of strings/);
    refused('apiVersion: v1\nkind: ConfigMap\n', /^unknown group version field v1, Kind=ConfigMap in policy/);
    refused('rules: [\n', /^failed decoding: /);
    refused('- a\n- b\n', /^failed decoding: the policy is not a YAML or JSON object/);
  });

  it('reads JSON, and the older audit.k8s.io versions as v1', () => {
    const policy = parseAuditPolicy('{"apiVersion":"audit.k8s.io/v1beta1","kind":"Policy","rules":[{"level":"Metadata"}]}');
    assert.equal(policy.rules.length, 1);
    assert.equal(new AuditPolicyChecker(policy).decide(path('/anything')).level, 'Metadata');
  });
});
