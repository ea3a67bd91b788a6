import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OwnerReference } from '@setpoint/api';
import { DependencyGraph, FOREGROUND_FINALIZER, ORPHAN_FINALIZER, alternateOwnerIdentity, referencesDiff, type GraphNode, type ObjectIdentity, type ObservedObject } from './graph.js';

/** A graph whose sink records what it was asked, by name. */
function recordingGraph() {
  const deletes: string[] = [];
  const rateLimited: string[] = [];
  const orphans: string[] = [];
  const invalid: Array<{ dependent: string; owner: string }> = [];
  const graph = new DependencyGraph({
    attemptToDelete: (node: GraphNode, options) => (options?.rateLimited ? rateLimited : deletes).push(node.identity.name),
    attemptToOrphan: (node) => orphans.push(node.identity.name),
    invalidNamespaceOwnerRef: (dep, ref) => invalid.push({ dependent: dep.identity.name, owner: ref.name }),
  });
  const reset = () => {
    deletes.length = 0;
    rateLimited.length = 0;
    orphans.length = 0;
    invalid.length = 0;
  };
  return { graph, deletes, rateLimited, orphans, invalid, reset };
}

function id(name: string, namespace = 'ns', kind = 'ConfigMap', uid = `uid-${name}`): ObjectIdentity {
  return { apiVersion: 'v1', kind, name, uid, namespace };
}

function ref(owner: ObjectIdentity, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid, ...extra };
}

function obj(identity: ObjectIdentity, owners: OwnerReference[] = [], more: Partial<ObservedObject> = {}): ObservedObject {
  return { identity, owners, beingDeleted: false, finalizers: [], ...more };
}

describe('DependencyGraph', () => {
  it('links a dependent to an observed owner and looks at the dependent when the owner is deleted', () => {
    const { graph, deletes } = recordingGraph();
    const owner = id('owner');
    graph.observe(obj(owner));
    graph.observe(obj(id('dep', 'ns', 'Secret'), [ref(owner)]));
    assert.deepEqual(deletes, [], 'an observed owner in the same namespace needs no check');
    assert.equal(graph.node(owner.uid)?.dependents.size, 1);
    graph.observeDelete(obj(owner));
    assert.deepEqual(deletes, ['dep']);
    assert.equal(graph.node(owner.uid), undefined);
  });

  it('creates a virtual node for an unseen owner and asks to verify it', () => {
    const { graph, deletes } = recordingGraph();
    graph.observe(obj(id('dep', 'ns', 'Secret'), [ref(id('ghost'))]));
    assert.deepEqual(deletes, ['ghost']);
    const ghost = graph.node('uid-ghost');
    assert.equal(ghost?.virtual, true);
    assert.equal(ghost?.identity.namespace, 'ns', 'a virtual owner is assumed in its dependent’s namespace');
  });

  it('a virtual delete of a virtual owner removes it and looks at its dependents', () => {
    const { graph, deletes, reset } = recordingGraph();
    graph.observe(obj(id('dep', 'ns', 'Secret'), [ref(id('ghost'))]));
    reset();
    graph.virtualDelete(id('ghost'));
    assert.equal(graph.node('uid-ghost'), undefined);
    assert.deepEqual(deletes, ['dep']);
  });

  it('reports a dependent naming an observed owner of another namespace, and checks it', () => {
    const { graph, deletes, invalid } = recordingGraph();
    const owner = id('owner', 'ns-a');
    graph.observe(obj(owner));
    graph.observe(obj(id('dep', 'ns-b', 'Secret'), [ref(owner)]));
    assert.deepEqual(invalid, [{ dependent: 'dep', owner: 'owner' }]);
    assert.deepEqual(deletes, ['dep']);
  });

  it('reports the namespace mismatch also when the dependent is seen first', () => {
    const { graph, deletes, invalid, reset } = recordingGraph();
    const owner = id('owner', 'ns-a');
    graph.observe(obj(id('dep', 'ns-b', 'Secret'), [ref(owner)]));
    reset();
    graph.observe(obj(owner));
    assert.deepEqual(invalid, [{ dependent: 'dep', owner: 'owner' }]);
    assert.deepEqual(deletes, ['dep']);
    assert.equal(graph.node(owner.uid)?.virtual, false);
    assert.equal(graph.node(owner.uid)?.identity.namespace, 'ns-a');
  });

  it('accepts a cluster-scoped owner of dependents in several namespaces', () => {
    const { graph, deletes, invalid } = recordingGraph();
    const node = id('n1', '', 'Node');
    graph.observe(obj(node));
    graph.observe(obj(id('a', 'ns-a', 'Secret'), [ref(node)]));
    graph.observe(obj(id('b', 'ns-b', 'Secret'), [ref(node)]));
    assert.deepEqual(invalid, []);
    assert.deepEqual(deletes, []);
  });

  it('a foreground deletion looks at every dependent and the owner; a blocking dependent’s removal looks at the owner again', () => {
    const { graph, deletes, reset } = recordingGraph();
    const owner = id('owner');
    graph.observe(obj(owner));
    graph.observe(obj(id('blocker', 'ns', 'Secret'), [ref(owner, { blockOwnerDeletion: true })]));
    graph.observe(obj(id('free', 'ns', 'Secret'), [ref(owner)]));
    graph.observe(obj(owner, [], { beingDeleted: true, finalizers: [FOREGROUND_FINALIZER] }), obj(owner));
    assert.deepEqual(deletes.sort(), ['blocker', 'free', 'owner']);
    const node = graph.node(owner.uid)!;
    assert.equal(node.deletingDependents, true);
    assert.deepEqual(node.blockingDependents().map((d) => d.identity.name), ['blocker']);
    reset();
    graph.observeDelete(obj(id('free', 'ns', 'Secret'), [ref(owner)]));
    assert.deepEqual(deletes, ['owner'], 'any dependent gone lets a deleting owner check again');
    reset();
    graph.observe(obj(id('blocker', 'ns', 'Secret'), [ref(owner, { blockOwnerDeletion: false })]), obj(id('blocker', 'ns', 'Secret'), [ref(owner, { blockOwnerDeletion: true })]));
    assert.deepEqual(deletes, ['owner'], 'an unblocked reference lets the owner check again');
    assert.deepEqual(node.blockingDependents(), []);
  });

  it('asks to orphan an owner once, when its deletion with the orphan finalizer starts', () => {
    const { graph, orphans } = recordingGraph();
    const owner = id('owner');
    const deleting = obj(owner, [], { beingDeleted: true, finalizers: [ORPHAN_FINALIZER] });
    graph.observe(obj(owner));
    graph.observe(deleting, obj(owner));
    graph.observe(deleting, deleting);
    assert.deepEqual(orphans, ['owner']);
  });

  it('an owner first seen already orphaning (a restart) is orphaned', () => {
    const { graph, orphans } = recordingGraph();
    graph.observe(obj(id('owner'), [], { beingDeleted: true, finalizers: [ORPHAN_FINALIZER] }));
    assert.deepEqual(orphans, ['owner']);
  });

  it('moves a dependent between owners when its references change', () => {
    const { graph } = recordingGraph();
    const a = id('a');
    const b = id('b');
    graph.observe(obj(a));
    graph.observe(obj(b));
    const dep = id('dep', 'ns', 'Secret');
    graph.observe(obj(dep, [ref(a)]));
    graph.observe(obj(dep, [ref(b)]), obj(dep, [ref(a)]));
    assert.equal(graph.node(a.uid)?.dependents.size, 0);
    assert.equal(graph.node(b.uid)?.dependents.size, 1);
  });

  it('a virtual owner named by two identities keeps the other one after the first is found absent', () => {
    const { graph, deletes, rateLimited, reset } = recordingGraph();
    const right = id('owner', 'ns', 'ConfigMap', 'u1');
    const wrong = { ...right, name: 'other-name' };
    graph.observe(obj(id('d1', 'ns', 'Secret'), [ref(right)]));
    graph.observe(obj(id('d2', 'ns', 'Secret'), [ref(wrong)]));
    reset();
    graph.virtualDelete(right);
    assert.deepEqual(deletes, ['d1']);
    assert.deepEqual(rateLimited, ['other-name']);
    assert.equal(graph.node('u1')?.identity.name, 'other-name');
  });
});

describe('graph helpers', () => {
  it('referencesDiff matches by uid', () => {
    const a: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: '1' };
    const b: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: '2' };
    const diff = referencesDiff([a, b], [{ ...a, blockOwnerDeletion: true }, { ...b, uid: '3' }]);
    assert.deepEqual(diff.added.map((r) => r.uid), ['3']);
    assert.deepEqual(diff.removed.map((r) => r.uid), ['2']);
    assert.deepEqual(diff.changed.map((c) => c.new.uid), ['1']);
  });

  it('alternateOwnerIdentity prefers the identity after the absent one', () => {
    const absent = id('b', 'ns', 'ConfigMap', 'u');
    const mk = (name: string, ownerName: string) => {
      const { graph } = recordingGraph();
      graph.observe(obj(id(name, 'ns', 'Secret'), [ref({ ...absent, name: ownerName })]));
      return graph.node(`uid-${name}`)!;
    };
    assert.equal(alternateOwnerIdentity([mk('d1', 'a'), mk('d2', 'c')], absent)?.name, 'c');
    assert.equal(alternateOwnerIdentity([mk('d1', 'a')], absent)?.name, 'a');
    assert.equal(alternateOwnerIdentity([mk('d1', 'b')], absent), undefined);
  });
});
