import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { breakdownRule, compactRules, covers, describeMissing } from './covers.js';
import { rule, urlRule } from './rules.js';

describe('covers (escalation checks)', () => {
  it('breaks rules down to one verb, group, resource and name each', () => {
    assert.equal(breakdownRule(rule(['get', 'list'], ['', 'apps'], ['a', 'b'])).length, 8);
    assert.equal(breakdownRule(rule(['get'], [''], ['a'], ['x', 'y'])).length, 2);
    assert.deepEqual(breakdownRule(urlRule(['get', 'post'], ['/x'])), [urlRule(['get'], ['/x']), urlRule(['post'], ['/x'])]);
  });

  it('covers by "*", exact lists, */subresource and URL prefixes; not across resource names', () => {
    assert.equal(covers([rule(['*'], ['*'], ['*'])], [rule(['get'], ['apps'], ['deployments/scale'])]).covered, true);
    assert.equal(covers([rule(['get', 'list'], [''], ['pods'])], [rule(['list'], [''], ['pods'])]).covered, true);
    assert.equal(covers([rule(['get'], [''], ['pods'])], [rule(['get'], [''], ['pods/log'])]).covered, false);
    assert.equal(covers([rule(['get'], [''], ['*/log'])], [rule(['get'], [''], ['pods/log'])]).covered, true);
    assert.equal(covers([urlRule(['get'], ['/healthz/*'])], [urlRule(['get'], ['/healthz/ping'])]).covered, true);
    assert.equal(covers([urlRule(['get'], ['/healthz'])], [urlRule(['get'], ['/healthz/ping'])]).covered, false);
    assert.equal(covers([rule(['get'], [''], ['configmaps'], ['a'])], [rule(['get'], [''], ['configmaps'])]).covered, false, 'a named rule does not cover every name');
    assert.equal(covers([rule(['get'], [''], ['configmaps'])], [rule(['get'], [''], ['configmaps'], ['a'])]).covered, true);
  });

  it('reports what is missing, compacted and sorted as Kubernetes lists it', () => {
    const { covered, missing } = covers([rule(['get'], [''], ['configmaps'])], [rule(['get', 'delete'], [''], ['secrets', 'configmaps']), urlRule(['get'], ['/metrics'])]);
    assert.equal(covered, false);
    assert.deepEqual(compactRules(missing), [urlRule(['get'], ['/metrics']), rule(['get', 'delete'], [''], ['secrets']), rule(['delete'], [''], ['configmaps'])]);
    assert.equal(
      describeMissing(missing),
      ['{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}', '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}', '{NonResourceURLs:["/metrics"], Verbs:["get"]}'].join('\n'),
    );
  });
});
