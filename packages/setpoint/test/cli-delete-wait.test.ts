/**
 * `setpoint delete` and `setpoint wait` against an in-process control plane: deletion by name,
 * selector and manifest, one-line errors that do not stop the others, --wait holding until
 * finalizers are done; waiting for conditions (also on objects that appear later), for deletion,
 * and timing out with kubectl's message.
 */
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isApiError, type ConfigMap, type KubeObject, type Pod } from '@setpoint/api';
import { eventually, startCliFixture, type CliFixture } from './cli-support.js';
import { conditionMet } from '../src/cli/waiting.js';

const cm = (name: string, labels: Record<string, string> = {}, finalizers?: string[]) =>
  ({ metadata: { name, namespace: 'default', labels, ...(finalizers ? { finalizers } : {}) } }) as ConfigMap;

async function gone(f: CliFixture, name: string): Promise<boolean> {
  try {
    await f.cp.client.configMaps().get(name);
    return false;
  } catch (err) {
    if (isApiError(err, 'NotFound')) return true;
    throw err;
  }
}

describe('setpoint delete', () => {
  let f: CliFixture;
  before(async () => {
    f = await startCliFixture();
  });
  after(async () => {
    await f[Symbol.asyncDispose]();
  });

  it('deletes named objects, reports a missing one in one line, and goes on', async () => {
    const c = f.cp.client.configMaps();
    await c.create(cm('a'));
    await c.create(cm('b'));
    const r = await f.run(['delete', 'configmaps', 'a', 'missing', 'b']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, 'configmap "a" deleted\nconfigmap "b" deleted\n');
    assert.equal(r.stderr, 'error: configmaps "missing" not found\n');
    assert.ok((await gone(f, 'a')) && (await gone(f, 'b')));
    const ignored = await f.run(['delete', 'cm/missing', '--ignore-not-found']);
    assert.deepEqual([ignored.code, ignored.stdout, ignored.stderr], [0, '', '']);
  });

  it('deletes by label selector, and needs names, -l or --all', async () => {
    const c = f.cp.client.configMaps();
    await c.create(cm('s1', { tier: 'cache' }));
    await c.create(cm('s2', { tier: 'cache' }));
    await c.create(cm('s3', { tier: 'db' }));
    const r = await f.run(['delete', 'cm', '-l', 'tier=cache']);
    assert.deepEqual([r.code, r.stdout], [0, 'configmap "s1" deleted\nconfigmap "s2" deleted\n']);
    assert.ok(!(await gone(f, 's3')));
    const none = await f.run(['delete', 'cm', '-l', 'tier=none']);
    assert.deepEqual([none.code, none.stdout, none.stderr], [0, '', 'No resources found\n']);
    const bare = await f.run(['delete', 'cm']);
    assert.equal(bare.stderr, 'error: resource(s) were provided, but no name was specified (give names, -l SELECTOR or --all)\n');
  });

  it('deletes the objects of a manifest, naming the file when one fails', async () => {
    await f.cp.client.configMaps().create(cm('m1'));
    const file = join(f.dir, 'objects.yaml');
    await writeFile(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m1}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: m2}\n');
    const r = await f.run(['delete', '-f', file]);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, 'configmap "m1" deleted\n');
    assert.equal(r.stderr, `error: ${file}: ConfigMap "m2": configmaps "m2" not found\n`);
  });

  it('--wait holds until the finalizers are done, and --timeout gives up with kubectl\'s message', async () => {
    const c = f.cp.client.configMaps();
    await c.create(cm('held', {}, ['example.com/hold']));
    const timedOut = await f.run(['delete', 'cm', 'held', '--wait', '--timeout', '200ms']);
    assert.equal(timedOut.code, 1);
    assert.equal(timedOut.stdout, 'configmap "held" deleted\n');
    assert.equal(timedOut.stderr, 'error: timed out waiting for the condition on configmaps/held\n');

    await c.create(cm('held-too', {}, ['example.com/hold']));
    let finished = false;
    const waiting = f.run(['delete', 'cm', 'held-too', '--wait']).then((r) => ((finished = true), r));
    const held = await eventually('the deletion to be under way', async () => {
      const obj = await c.get('held-too');
      return obj.metadata.deletionTimestamp !== undefined ? obj : undefined;
    });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(finished, false, 'still waiting while the finalizer is there');
    await c.update({ ...held, metadata: { ...held.metadata, finalizers: [] } });
    const r = await waiting;
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'configmap "held-too" deleted\n', '']);
    assert.ok(await gone(f, 'held-too'));
  });
});

describe('setpoint wait', () => {
  let f: CliFixture;
  before(async () => {
    f = await startCliFixture();
  });
  after(async () => {
    await f[Symbol.asyncDispose]();
  });

  const pod = (name: string) => ({ metadata: { name, namespace: 'default', labels: { app: 'w' } }, spec: { containers: [{ name: 'c', image: 'example/c:1' }] } }) as Pod;
  const setReady = async (name: string, status: 'True' | 'False') => {
    const current = await f.cp.client.pods().get(name);
    await f.cp.client.pods().updateStatus({ ...current, status: { ...current.status, conditions: [{ type: 'Ready', status, lastTransitionTime: new Date().toISOString() }] } } as Pod);
  };

  it('waits for a condition, also on an object that does not exist yet', async () => {
    await f.cp.client.pods().create(pod('p1'));
    const waiting = f.run(['wait', 'pod/p1', 'pods/p2', '--for=condition=ready', '--timeout', '20s']);
    await setReady('p1', 'False');
    await setReady('p1', 'True');
    await f.cp.client.pods().create(pod('p2'));
    await setReady('p2', 'True');
    const r = await waiting;
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, 'pod/p1 condition met\npod/p2 condition met\n', '']);
    const selected = await f.run(['wait', 'pods', '-l', 'app=w', '--for', 'condition=Ready=true']);
    assert.equal(selected.stdout, 'pod/p1 condition met\npod/p2 condition met\n');
    const other = await f.run(['wait', 'pod', 'p1', '--for=condition=Ready=False', '--timeout=0s']);
    assert.deepEqual([other.code, other.stderr], [1, 'error: timed out waiting for the condition on pods/p1\n']);
  });

  it('waits for deletion, and times out with kubectl\'s message', async () => {
    const already = await f.run(['wait', 'cm/never', '--for=delete']);
    assert.deepEqual([already.code, already.stdout], [0, 'configmap/never condition met\n']);
    await f.cp.client.configMaps().create(cm('doomed'));
    const late = await f.run(['wait', 'cm/doomed', '--for=delete', '--timeout=150ms']);
    assert.deepEqual([late.code, late.stdout, late.stderr], [1, '', 'error: timed out waiting for the condition on configmaps/doomed\n']);
    const waiting = f.run(['wait', 'cm/doomed', '--for=delete']);
    await f.cp.client.configMaps().delete('doomed');
    assert.equal((await waiting).stdout, 'configmap/doomed condition met\n');
    const bad = await f.run(['wait', 'cm/x', '--for=ready']);
    assert.equal(bad.stderr, 'error: unrecognized condition: "ready" (use --for=condition=TYPE[=STATUS] or --for=delete)\n');
  });

  it('does not count a condition observed for an older generation', () => {
    const obj = (observedGeneration: number | undefined) =>
      ({ metadata: { name: 'd', generation: 2 }, status: { conditions: [{ type: 'Available', status: 'True', ...(observedGeneration === undefined ? {} : { observedGeneration }) }] } }) as unknown as KubeObject;
    assert.equal(conditionMet(obj(1), 'Available', 'True'), false);
    assert.equal(conditionMet(obj(2), 'available', 'true'), true);
    assert.equal(conditionMet(obj(undefined), 'Available', 'True'), true);
    assert.equal(conditionMet(obj(2), 'Available', 'False'), false);
  });
});
