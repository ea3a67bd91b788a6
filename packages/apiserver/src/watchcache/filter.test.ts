import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, type KubeObject } from '@setpoint/api';
import { configMapResource as configmaps } from '../registry/kinds/configmap/configmap.js';
import { namespaceResource as namespaces } from '../registry/kinds/namespace/namespace.js';
import { pods } from '../registry/kinds/pod/pod.js';
import { fieldsOf, isNamespaceOnly, matchesFilter, namespaceFilter, parseFilter } from './filter.js';

function pod(name: string, namespace: string, labels: Record<string, string> = {}, nodeName?: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels }, spec: nodeName === undefined ? {} : { nodeName } };
}

describe('watch cache filters', () => {
  it('namespaceFilter lets everything in its namespace through, and nothing from elsewhere', () => {
    const f = namespaceFilter('a');
    assert.equal(isNamespaceOnly(f), true);
    assert.equal(matchesFilter(pods, f, pod('p', 'a', { x: 'y' })), true);
    assert.equal(matchesFilter(pods, f, pod('p', 'b')), false);
    const all = namespaceFilter('');
    assert.equal(matchesFilter(pods, all, pod('p', 'a')), true);
    assert.equal(matchesFilter(pods, all, pod('p', 'b')), true);
  });

  it('parses label selectors and applies them to the labels (none counts as empty)', () => {
    const f = parseFilter(pods, 'a', 'app=web,tier!=db');
    assert.equal(isNamespaceOnly(f), false);
    assert.equal(matchesFilter(pods, f, pod('p', 'a', { app: 'web' })), true);
    assert.equal(matchesFilter(pods, f, pod('p', 'a', { app: 'web', tier: 'db' })), false);
    assert.equal(matchesFilter(pods, f, pod('p', 'a', { app: 'api' })), false);
    assert.equal(matchesFilter(pods, f, pod('p', 'b', { app: 'web' })), false, 'the namespace still applies');
    const unlabelled: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'a' } };
    assert.equal(matchesFilter(pods, parseFilter(pods, 'a', '!app'), unlabelled), true);
    assert.equal(matchesFilter(pods, parseFilter(pods, 'a', 'app'), unlabelled), false);
  });

  it("parses field selectors over metadata and the kind's field labels", () => {
    const f = parseFilter(pods, '', undefined, 'spec.nodeName=n1');
    assert.equal(isNamespaceOnly(f), false);
    assert.equal(matchesFilter(pods, f, pod('p', 'a', {}, 'n1')), true);
    assert.equal(matchesFilter(pods, f, pod('p', 'a', {}, 'n2')), false);
    assert.equal(matchesFilter(pods, f, pod('p', 'a')), false);
    const byName = parseFilter(configmaps, 'ns', undefined, 'metadata.name=x,metadata.namespace=ns');
    const cm = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } });
    assert.equal(matchesFilter(configmaps, byName, cm('x')), true);
    assert.equal(matchesFilter(configmaps, byName, cm('y')), false);
    const notInNs = parseFilter(configmaps, '', undefined, 'metadata.namespace!=ns');
    assert.equal(matchesFilter(configmaps, notInNs, cm('x')), false);
  });

  it('an empty selector string selects everything', () => {
    const f = parseFilter(pods, 'a', '', '');
    assert.equal(isNamespaceOnly(f), true);
    assert.equal(matchesFilter(pods, f, pod('p', 'a', { any: 'thing' }, 'n9')), true);
  });

  it('rejects a field label the kind does not support, as kube-apiserver does', () => {
    assert.throws(
      () => parseFilter(configmaps, 'ns', undefined, 'spec.nodeName=n1'),
      (err: unknown) => err instanceof ApiError && err.code === 400 && err.message === 'field label not supported: spec.nodeName',
    );
    assert.throws(() => parseFilter(pods, 'ns', undefined, 'metadata.name=a,status.bogus=x'), /field label not supported: status\.bogus/);
    assert.throws(() => parseFilter(pods, 'ns', undefined, 'spec.nodeName'), (err: unknown) => err instanceof ApiError && err.code === 400);
    assert.throws(() => parseFilter(pods, 'ns', 'app in ('), (err: unknown) => err instanceof ApiError && err.code === 400);
  });

  it('a cluster-scoped kind ignores the namespace it is asked for', () => {
    const f = parseFilter(namespaces, 'ignored', undefined, 'status.phase=Active');
    assert.equal(f.namespace, '');
    const ns: KubeObject = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n' }, status: { phase: 'Active' } };
    assert.equal(matchesFilter(namespaces, f, ns), true);
    assert.equal(parseFilter(pods, 'kept').namespace, 'kept');
  });

  it('fieldsOf gives metadata.name and metadata.namespace ("" when unset) and every field label of the kind', () => {
    const fields = fieldsOf(pods, pod('p', 'a', {}, 'n1'));
    assert.equal(fields['metadata.name'], 'p');
    assert.equal(fields['metadata.namespace'], 'a');
    assert.equal(fields['spec.nodeName'], 'n1');
    assert.deepEqual(Object.keys(fields).sort(), ['metadata.name', 'metadata.namespace', ...Object.keys(pods.fieldSelectors ?? {})].sort());
    assert.deepEqual(fieldsOf(configmaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }), { 'metadata.name': '', 'metadata.namespace': '' });
  });
});
