import assert from 'node:assert/strict';
import { mkdir, realpath, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Container, Pod } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import { tempDir } from '../testing/helpers.js';
import { ContainerConfigError } from './env.js';
import { containerUser, DEFAULT_POD_ID_RANGE, parseSubIds, PodUsers } from './users.js';
import { prepareWorkingDir, workingDirComponents } from './workdir.js';

const pod = (securityContext?: NonNullable<Pod['spec']>['securityContext']): DeepReadonly<Pod> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'team', uid: 'u1' },
  spec: { containers: [{ name: 'c' }], ...(securityContext === undefined ? {} : { securityContext }) },
});
const container = (securityContext?: Container['securityContext']): DeepReadonly<Container> => ({ name: 'c', ...(securityContext === undefined ? {} : { securityContext }) });
const own = { uid: 1_879_048_192, gid: 1_879_048_192 };

describe('pod users', () => {
  it('reads the first range of user setpoint (by name or uid) from a subordinate-id file', () => {
    const text = 'alice:100000:65536\n# comment\nsetpoint:bad:1\nsetpoint:300000:1000\nsetpoint:400000:5\n';
    assert.deepEqual(parseSubIds(text, 'setpoint'), { first: 300000, count: 1000 });
    assert.deepEqual(parseSubIds('999:500000:10\n', 'setpoint', 999), { first: 500000, count: 10 });
    assert.equal(parseSubIds(text, 'bob'), undefined);
    assert.ok(DEFAULT_POD_ID_RANGE.first > 600_100_000, 'above useradd\'s subordinate ids');
  });

  it('gives each pod the lowest free slot, keeps it, takes recorded ones back, and frees it on release', () => {
    const users = new PodUsers({ first: 1000, count: 3 }, { first: 5000, count: 3 });
    assert.deepEqual(users.allocate('a'), { uid: 1000, gid: 5000 });
    assert.deepEqual(users.allocate('b'), { uid: 1001, gid: 5001 });
    assert.deepEqual(users.allocate('a'), { uid: 1000, gid: 5000 }, 'the same pod, the same user');
    assert.equal(users.adopt('c', { uid: 1001, gid: 5001 }), false, 'held by b');
    assert.equal(users.adopt('c', { uid: 1002, gid: 5001 }), false, 'not one slot');
    assert.equal(users.adopt('c', { uid: 1002, gid: 5002 }), true);
    assert.throws(() => users.allocate('d'), RangeError);
    users.release('b');
    assert.deepEqual(users.allocate('d'), { uid: 1001, gid: 5001 });
  });

  it('takes runAsUser and runAsGroup from the container over the pod, else the pod\'s own user', () => {
    assert.deepEqual(containerUser(pod(), container(), own, true), own);
    assert.deepEqual(containerUser(pod({ runAsUser: 1000, runAsGroup: 2000 }), container(), own, true), { uid: 1000, gid: 2000 });
    assert.deepEqual(containerUser(pod({ runAsUser: 1000, runAsGroup: 2000 }), container({ runAsUser: 3000 }), own, true), { uid: 3000, gid: 2000 });
    assert.deepEqual(containerUser(pod(), container({ runAsUser: 1000 }), own, true), { uid: 1000, gid: own.gid }, 'no group 0 unasked');
    assert.deepEqual(containerUser(pod(), container({ runAsUser: 0 }), own, true), { uid: 0, gid: own.gid }, 'root when asked');
  });

  it('refuses runAsNonRoot with uid 0, and any other user when the agent cannot change user', () => {
    assert.throws(() => containerUser(pod({ runAsNonRoot: true }), container({ runAsUser: 0 }), own, true), (err: Error) => err instanceof ContainerConfigError && /^container has runAsNonRoot and image will run as root/.test(err.message));
    assert.deepEqual(containerUser(pod({ runAsNonRoot: true }), container(), own, true), own);
    const agent = { uid: 1000, gid: 1000 };
    assert.deepEqual(containerUser(pod(), container(), agent, false), agent);
    assert.deepEqual(containerUser(pod({ runAsUser: 1000 }), container(), agent, false), agent, 'its own uid is fine');
    assert.throws(() => containerUser(pod(), container({ runAsUser: 0 }), agent, false), /cannot run as uid 0, gid 1000: the node agent runs as uid 1000, gid 1000 and cannot change user/);
  });
});

describe('working directories', () => {
  it('never climbs above the pod\'s root', () => {
    assert.deepEqual(workingDirComponents('/../../../../x'), ['x']);
    assert.deepEqual(workingDirComponents('a/./b/../../../c'), ['c']);
    assert.deepEqual(workingDirComponents(undefined), []);
    assert.deepEqual(workingDirComponents('/'), []);
  });

  it('creates the directory inside rootfs and refuses one reached through a link out of it', async () => {
    await using dir = await tempDir();
    const rootfs = join(dir.path, 'rootfs');
    await mkdir(rootfs);
    const real = await realpath(rootfs);
    assert.equal(prepareWorkingDir(rootfs, '/../../srv/app'), join(real, 'srv', 'app'));
    assert.equal(prepareWorkingDir(rootfs, undefined), real);
    await mkdir(join(dir.path, 'outside'));
    await symlink(join(dir.path, 'outside'), join(rootfs, 'esc'));
    await symlink('srv', join(rootfs, 'inner'));
    assert.equal(prepareWorkingDir(rootfs, '/inner/app'), join(real, 'srv', 'app'), 'a link that stays inside is followed');
    assert.throws(() => prepareWorkingDir(rootfs, '/esc/deeper'), (err: Error) => err instanceof ContainerConfigError && /leads outside the pod's directory/.test(err.message));
    await assert.rejects(realpath(join(dir.path, 'outside', 'deeper')), /ENOENT/, 'nothing was made through the link');
  });
});
