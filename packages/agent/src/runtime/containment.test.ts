/**
 * What a pod can reach on the process runtime: run as root (as CI and this repository's tests
 * do), the agent gives each pod a user of its own, so a container cannot read the data dir, the
 * credentials beside it or another pod's files, runs with the uid and gid its securityContext asks
 * for, and its workingDir stays inside the pod's directory.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Container, Logger, Pod } from '@setpoint/api';
import type { Client } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { boundPod, eventually, startProcessAgent, tempDir, type TestAgent } from '../testing/helpers.js';
import { PodIdentities } from './serviceaccount.js';
import { canChangeUser, ownUser } from './users.js';

const NODE = 'box';
const NS = 'default';
const FIRST_ID = 1_879_100_000;
const SECRET = 'admin-token-that-must-not-leak';

/** A container running `sh -c script`. */
function sh(name: string, script: string, extra: Partial<Container> = {}): Container {
  return { name, image: 'setpoint.dev/sh:recorded-not-pulled', command: ['sh', '-c', script], ...extra };
}

let cp: ControlPlane;
let agent: TestAgent;
let dataDir: Awaited<ReturnType<typeof tempDir>>;
let outside: Awaited<ReturnType<typeof tempDir>>;
let podsRoot: Awaited<ReturnType<typeof tempDir>>;

/** A client whose ServiceAccounts all exist and whose TokenRequests answer `token-for-<pod>`. */
function tokenClient(): Pick<Client, 'serviceAccounts'> {
  return {
    serviceAccounts: () => ({
      get: async (name: string, o: { namespace: string }) => ({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: o.namespace } }),
      createSubresource: async (_name: string, _sub: string, body: { spec: { boundObjectRef: { name: string } } }) => ({
        status: { token: `token-for-${body.spec.boundObjectRef.name}`, expirationTimestamp: new Date(Date.now() + 3_600_000).toISOString() },
      }),
    }),
  } as unknown as Pick<Client, 'serviceAccounts'>;
}

before(async () => {
  assert.ok(canChangeUser(), 'these tests run as root, as CI does: the agent gives pods users of their own only when it may change user');
  cp = await startControlPlane();
  dataDir = await tempDir();
  outside = await tempDir('setpoint-outside-');
  podsRoot = await tempDir('setpoint-pods-');
  // What an attacker would go for: a credential in the data dir, beside the agent's own files.
  await writeFile(join(dataDir.path, 'admin.token'), SECRET, { mode: 0o600 });
  const identities = new PodIdentities({ client: tokenClient(), server: 'https://127.0.0.1:6443', ca: 'CA\n' });
  agent = startProcessAgent(cp.client, { nodeName: NODE, dataDir: dataDir.path, podsRoot: podsRoot.path, identities, podIdRanges: { uids: { first: FIRST_ID, count: 100 }, gids: { first: FIRST_ID + 500, count: 100 } } });
});

after(async () => {
  await agent.stop();
  await cp.stop();
  await dataDir[Symbol.asyncDispose]();
  await outside[Symbol.asyncDispose]();
  await podsRoot[Symbol.asyncDispose]();
});

async function run(name: string, containers: Container[], spec: Partial<NonNullable<Pod['spec']>> = {}): Promise<Pod> {
  await cp.client.pods().create(boundPod(NS, name, NODE, containers, { restartPolicy: 'Never', ...spec }));
  return eventually(`pod ${name} to finish`, async () => {
    const pod = await cp.client.pods().get(name, { namespace: NS });
    return pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed' ? pod : undefined;
  });
}

async function logOf(pod: Pod, container = 'main'): Promise<string> {
  return readFile(agent.runtime.logPath(pod.metadata.uid ?? '', container), 'utf8');
}

describe('process runtime containment (run as root)', () => {
  it('runs each pod as a uid and gid of its own, never the agent\'s', async () => {
    const a = await run('who-a', [sh('main', 'id -u; id -g; id -G')]);
    const b = await run('who-b', [sh('main', 'id -u; id -g')]);
    const [uidA, gidA, groupsA] = (await logOf(a)).trim().split('\n');
    const [uidB, gidB] = (await logOf(b)).trim().split('\n');
    assert.ok(Number(uidA) >= FIRST_ID && Number(uidA) < FIRST_ID + 100, `uid ${uidA} from the range`);
    assert.equal(Number(gidA) - Number(uidA), 500, 'the gid of the same slot of the gid range');
    assert.equal(groupsA, gidA, 'no supplementary groups (none of the agent\'s)');
    assert.notEqual(uidA, uidB, 'two pods, two uids');
    assert.notEqual(gidA, gidB);
    assert.notEqual(Number(uidA), ownUser().uid);
    // What is the pod's: its working directory and its identity, outside the data dir; nothing else.
    const files = join(podsRoot.path, a.metadata.uid ?? '');
    assert.equal(agent.runtime.podFilesDir(a.metadata.uid ?? ''), files);
    for (const sub of ['rootfs', 'serviceaccount', 'serviceaccount/token']) assert.equal(lstatSync(join(files, sub)).uid, Number(uidA), sub);
    assert.equal(lstatSync(files).uid, ownUser().uid);
    assert.equal(lstatSync(files).mode & 0o777, 0o711, 'enterable, not listable');
    assert.equal(lstatSync(podsRoot.path).mode & 0o777, 0o711);
    const dir = join(dataDir.path, 'pods', a.metadata.uid ?? '');
    for (const sub of ['.', 'containers', 'logs', 'logs/main.log', 'pod.json']) assert.equal(lstatSync(join(dir, sub)).uid, ownUser().uid, sub);
    assert.equal(lstatSync(dir).mode & 0o777, 0o700);
    assert.equal(existsSync(join(dir, 'rootfs')), false, 'nothing of the pod\'s in the data dir');
  });

  it('cannot read the data dir, its credentials or another pod\'s files, and the secret never reaches the log', async () => {
    const victim = await run('victim', [sh('main', 'echo private > mine.txt; cat mine.txt')]);
    assert.equal(await logOf(victim), 'private\n');
    const victimDir = join(dataDir.path, 'pods', victim.metadata.uid ?? '');
    const victimFiles = join(podsRoot.path, victim.metadata.uid ?? '');
    const attack = [
      `cat ${dataDir.path}/admin.token`,
      `ls ${dataDir.path}`,
      `cat ${victimDir}/containers/main.json`,
      `cat ${victimDir}/logs/main.log`,
      `cat ${victimFiles}/rootfs/mine.txt`,
      `cat ${victimFiles}/serviceaccount/token`,
      `ls ${podsRoot.path}`,
      'ls ..',
    ].map((c) => `${c} || echo "denied: ${c}"`);
    const attacker = await run('attacker', [sh('main', attack.join('; '))]);
    const log = await logOf(attacker);
    assert.doesNotMatch(log, new RegExp(SECRET), 'the data dir\'s token is not in the log');
    assert.doesNotMatch(log, /private/, 'the other pod\'s file is not in the log');
    assert.doesNotMatch(log, /token-for-victim/, 'the other pod\'s token is not in the log');
    assert.equal((log.match(/Permission denied/g) ?? []).length, 8, log);
    assert.equal((log.match(/^denied: /gm) ?? []).length, 8, log);
  });

  it('reads its own ServiceAccount token and works in its directory by absolute path', async () => {
    const pod = await run('reader', [sh('main', 'echo "$SETPOINT_SERVICE_ACCOUNT_DIR"; cat "$SETPOINT_SERVICE_ACCOUNT_DIR/token"; echo; cat "$SETPOINT_SERVICE_ACCOUNT_DIR/namespace"; echo; echo hi > "$PWD/out.txt" && cat "$(pwd)/out.txt"')]);
    const files = join(podsRoot.path, pod.metadata.uid ?? '');
    assert.equal(await logOf(pod), `${files}/serviceaccount\ntoken-for-reader\n${NS}\nhi\n`);
  });

  it('honours runAsUser and runAsGroup, the container\'s over the pod\'s, and runs uid 0 only when asked', async () => {
    const pod = await run('as-asked', [sh('main', 'id -u; id -g', { securityContext: { runAsGroup: 4343 } }), sh('other', 'id -u; id -g', { securityContext: { runAsUser: 4444 } })], { securityContext: { runAsUser: 4242, runAsGroup: 4040 } });
    assert.equal(await logOf(pod, 'main'), '4242\n4343\n');
    assert.equal(await logOf(pod, 'other'), '4444\n4040\n');
    const root = await run('as-root', [sh('main', 'id -u', { securityContext: { runAsUser: 0 } })]);
    assert.equal(await logOf(root), '0\n');
    const userOnly = await run('user-only', [sh('main', 'id -u; id -g', { securityContext: { runAsUser: 5000 } })]);
    const [uid, gid] = (await logOf(userOnly)).trim().split('\n').map(Number);
    assert.equal(uid, 5000);
    assert.ok(gid !== undefined && gid >= FIRST_ID + 500, `runAsUser alone keeps the pod's own gid, not group 0 (got ${gid})`);
  });

  it('refuses runAsNonRoot with uid 0, with the kubelet\'s reason', async () => {
    await cp.client.pods().create(boundPod(NS, 'non-root', NODE, [sh('main', 'id -u', { securityContext: { runAsUser: 0, runAsNonRoot: true } })]));
    const pod = await eventually('CreateContainerConfigError', async () => {
      const p = await cp.client.pods().get('non-root', { namespace: NS });
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError' ? p : undefined;
    });
    assert.match(pod.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '', /^container has runAsNonRoot and image will run as root/);
  });

  it('keeps workingDir inside the pod\'s directory, through .. and through links the pod made', async () => {
    const climb = await run('climb', [sh('main', 'pwd', { workingDir: '/../../../../x' })]);
    const rootfs = join(podsRoot.path, climb.metadata.uid ?? '', 'rootfs');
    assert.equal(await logOf(climb), `${rootfs}/x\n`);
    assert.equal(existsSync('/x'), false);
    // An init container links out of rootfs; the app's workingDir through that link is refused.
    await mkdir(join(outside.path, 'target'), { mode: 0o777 });
    await cp.client.pods().create(
      boundPod(NS, 'link', NODE, [sh('main', 'pwd', { workingDir: '/esc/sub' })], {
        restartPolicy: 'Never',
        initContainers: [sh('link', `ln -s ${outside.path}/target esc`)],
      }),
    );
    const pod = await eventually('the link to be refused', async () => {
      const p = await cp.client.pods().get('link', { namespace: NS });
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError' ? p : undefined;
    });
    assert.match(pod.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '', /leads outside the pod's directory/);
    assert.deepEqual(readdirSync(join(outside.path, 'target')), [], 'nothing was created through the link');
  });

  it('keeps every directory of its data dir 0700 and every file 0600', () => {
    const loose: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const st = lstatSync(path);
        if (st.isDirectory()) {
          if ((st.mode & 0o777) !== 0o700) loose.push(`${path} ${(st.mode & 0o777).toString(8)}`);
          walk(path);
        } else if ((st.mode & 0o777) !== 0o600) {
          loose.push(`${path} ${(st.mode & 0o777).toString(8)}`);
        }
      }
    };
    assert.equal(lstatSync(dataDir.path).mode & 0o777, 0o700);
    walk(dataDir.path);
    assert.deepEqual(loose, []);
  });
});

describe('process runtime of an agent that cannot change user', () => {
  it('says so once at start, runs pods as the agent, and refuses a runAsUser it cannot give', async () => {
    const lines: Array<{ level: string; message: string }> = [];
    const logger: Logger = {
      debug: () => {},
      info: (_f, message) => lines.push({ level: 'info', message }),
      warn: (_f, message) => lines.push({ level: 'warn', message }),
      error: (_f, message) => lines.push({ level: 'error', message }),
      child: () => logger,
    };
    await using dir = await tempDir();
    await using plain = startProcessAgent(cp.client, { nodeName: 'plain', dataDir: dir.path, podUsers: false, logger });
    await cp.client.pods().create(boundPod(NS, 'as-agent', 'plain', [sh('main', 'id -u')], { restartPolicy: 'Never' }));
    await cp.client.pods().create(boundPod(NS, 'as-other', 'plain', [sh('main', 'id -u', { securityContext: { runAsUser: 4242 } })], { restartPolicy: 'Never' }));
    const done = await eventually('as-agent to finish', async () => {
      const p = await cp.client.pods().get('as-agent', { namespace: NS });
      return p.status?.phase === 'Succeeded' ? p : undefined;
    });
    assert.equal(await readFile(plain.runtime.logPath(done.metadata.uid ?? '', 'main'), 'utf8'), `${ownUser().uid}\n`);
    const refused = await eventually('as-other to be refused', async () => {
      const p = await cp.client.pods().get('as-other', { namespace: NS });
      return p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CreateContainerConfigError' ? p : undefined;
    });
    assert.match(refused.status?.containerStatuses?.[0]?.state?.waiting?.message ?? '', /^cannot run as uid 4242, gid \d+: the node agent runs as uid \d+, gid \d+ and cannot change user$/);
    const said = lines.filter((l) => l.message.startsWith('the agent cannot change user'));
    assert.equal(said.length, 1);
    assert.equal(said[0]?.level, 'warn');
    assert.equal(plain.runtime.podFilesDir(done.metadata.uid ?? ''), join(dir.path, 'pods', done.metadata.uid ?? ''), "the pod's files stay in the data dir");
    await plain.stop();
  });
});

