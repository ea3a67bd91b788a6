import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Attributes } from './authorizer.js';
import { forbiddenMessage } from './forbidden.js';
import { compactString, ruleAllows, rule, urlRule } from './rules.js';

const alice = { name: 'alice', groups: [] };

function res(verb: string, resource: string, extra: Partial<Attributes> = {}): Attributes {
  const [r, sub = ''] = resource.split('/');
  return { user: alice, verb, resourceRequest: true, namespace: 'a', apiGroup: '', apiVersion: 'v1', resource: r!, subresource: sub, name: '', path: '', ...extra };
}

function path(verb: string, p: string): Attributes {
  return { user: alice, verb, resourceRequest: false, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '', path: p };
}

describe('RBAC rule matching', () => {
  it('matches verbs and groups exactly or by "*"', () => {
    const r = rule(['get', 'list'], [''], ['pods']);
    assert.equal(ruleAllows(res('get', 'pods'), r), true);
    assert.equal(ruleAllows(res('watch', 'pods'), r), false);
    assert.equal(ruleAllows(res('get', 'pods', { apiGroup: 'apps' }), r), false);
    assert.equal(ruleAllows(res('delete', 'deployments', { apiGroup: 'apps' }), rule(['*'], ['*'], ['*'])), true);
    assert.equal(ruleAllows(res('get', 'deployments', { apiGroup: 'apps' }), rule(['get'], ['apps', 'extensions'], ['deployments'])), true);
  });

  it('keeps subresources apart: pods does not cover pods/log; pods/log and */log do; * covers everything', () => {
    assert.equal(ruleAllows(res('get', 'pods/log'), rule(['get'], [''], ['pods'])), false);
    assert.equal(ruleAllows(res('get', 'pods/log'), rule(['get'], [''], ['pods/log'])), true);
    assert.equal(ruleAllows(res('get', 'pods'), rule(['get'], [''], ['pods/log'])), false);
    assert.equal(ruleAllows(res('get', 'pods/log'), rule(['get'], [''], ['*/log'])), true);
    assert.equal(ruleAllows(res('get', 'pods/status'), rule(['get'], [''], ['*/log'])), false);
    assert.equal(ruleAllows(res('update', 'deployments/scale', { apiGroup: 'apps' }), rule(['update'], ['apps'], ['*/scale'])), true);
    assert.equal(ruleAllows(res('get', 'pods/log'), rule(['get'], [''], ['*'])), true);
  });

  it('limits by resourceNames, which never allow a request without a name (list, create)', () => {
    const r = rule(['get', 'list', 'create'], [''], ['configmaps'], ['settings']);
    assert.equal(ruleAllows(res('get', 'configmaps', { name: 'settings' }), r), true);
    assert.equal(ruleAllows(res('get', 'configmaps', { name: 'other' }), r), false);
    assert.equal(ruleAllows(res('list', 'configmaps'), r), false);
    assert.equal(ruleAllows(res('create', 'configmaps'), r), false);
    assert.equal(ruleAllows(res('list', 'configmaps', { name: 'settings' }), r), true, 'a list by metadata.name carries the name');
  });

  it('matches non-resource URLs exactly, by "*", or by a prefix ending in "*"', () => {
    const r = urlRule(['get'], ['/healthz', '/healthz/*', '/apis*']);
    assert.equal(ruleAllows(path('get', '/healthz'), r), true);
    assert.equal(ruleAllows(path('get', '/healthz/etcd'), r), true);
    assert.equal(ruleAllows(path('get', '/healthzx'), r), false);
    assert.equal(ruleAllows(path('get', '/apis/apps/v1'), r), true);
    assert.equal(ruleAllows(path('get', '/apisx'), r), true);
    assert.equal(ruleAllows(path('post', '/healthz'), r), false);
    assert.equal(ruleAllows(path('get', '/metrics'), urlRule(['*'], ['*'])), true);
    assert.equal(ruleAllows(path('get', '/healthz'), rule(['get'], ['*'], ['*'])), false, 'resource rules never match paths');
    assert.equal(ruleAllows(res('get', 'pods'), urlRule(['*'], ['*'])), false, 'URL rules never match resources');
  });

  it('prints rules as CompactString', () => {
    assert.equal(compactString(rule(['get', 'list'], ['', 'apps'], ['pods'], ['x'])), '{APIGroups:["" "apps"], Resources:["pods"], ResourceNames:["x"], Verbs:["get" "list"]}');
    assert.equal(compactString(urlRule(['get'], ['/healthz'])), '{NonResourceURLs:["/healthz"], Verbs:["get"]}');
  });

  it('words the forbidden message by scope', () => {
    assert.equal(forbiddenMessage(res('list', 'pods', { namespace: 'b' })), 'User "alice" cannot list resource "pods" in API group "" in the namespace "b"');
    assert.equal(forbiddenMessage(res('get', 'nodes/status', { namespace: '' })), 'User "alice" cannot get resource "nodes/status" in API group "" at the cluster scope');
    assert.equal(forbiddenMessage(path('get', '/metrics')), 'User "alice" cannot get path "/metrics"');
  });
});
