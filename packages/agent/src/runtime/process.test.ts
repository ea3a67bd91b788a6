/**
 * The process runtime with real processes (`node -e …` as the container command): the PodRuntime
 * conformance suite on a runtime of its own, then the runtime driven by the agent against
 * Setpoint's API server in process. Short crash-loop backoff; every process killed at the end.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Pod } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import { startControlPlane, type ControlPlane } from '@setpoint/testing';
import { boundPod, eventually, nodeContainer, startProcessAgent, tempDir, type TestAgent } from '../testing/helpers.js';
import { podRuntimeConformance } from './conformance.js';
import { ProcessRuntime, type ProcessRuntimeOptions } from './process.js';

/** Reads no ConfigMap or Secret: the conformance suite's pods name none. */
const noConfig: ProcessRuntimeOptions['client'] = {
  configMaps: () => assert.fail('the conformance suite reads no ConfigMap'),
  secrets: () => assert.fail('the conformance suite reads no Secret'),
};

podRuntimeConformance({
  name: 'process',
  capabilities: { runsCommands: true, recovers: true },
  async open() {
    const dir = await tempDir();
    const make = () => new ProcessRuntime({ client: noConfig, dataDir: dir.path, podsRoot: join(tmpdir(), 'setpoint-test-pods'), backoff: { initialMs: 100, maxMs: 200 } });
    let runtime = make();
    await runtime.start();
    return {
      get runtime() {
        return runtime;
      },
      async reopen() {
        await runtime.close();
        runtime = make();
        await runtime.start();
        return runtime;
      },
      async dispose() {
        await runtime.killAll(0);
        await runtime.close();
        await dir[Symbol.asyncDispose]();
      },
    };
  },
});

describe('process runtime records', () => {
  it('a container that exits after its pod directory is gone is reported, not a crash of the agent', async () => {
    await using dir = await tempDir();
    const runtime = new ProcessRuntime({ client: noConfig, dataDir: dir.path, podsRoot: join(tmpdir(), 'setpoint-test-pods') });
    await runtime.start();
    try {
      // A directory the pod may read when it runs as a user of its own (tests as root).
      const shared = await mkdtemp(join(tmpdir(), 'setpoint-release-'));
      await chmod(shared, 0o777);
      const release = join(shared, 'release');
      const script = `const fs = require('fs'); setInterval(() => { if (fs.existsSync(${JSON.stringify(release)})) process.exit(0); }, 10)`;
      const pod: DeepReadonly<Pod> = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gone', namespace: 'default', uid: 'uid-gone' }, spec: { nodeName: 'n', restartPolicy: 'Never', containers: [nodeContainer('main', script)] } };
      await eventually('the container running', async () => (await runtime.syncPod(pod)).containers[0]?.state.running !== undefined);
      await rm(join(dir.path, 'pods', 'uid-gone'), { recursive: true, force: true });
      await writeFile(release, '');
      const exited = await eventually('the exit observed', async () => (await runtime.syncPod(pod)).containers[0]?.state.terminated);
      assert.equal(exited.exitCode, 0);
      await rm(shared, { recursive: true, force: true });
    } finally {
      await runtime.killAll(0);
      await runtime.close();
    }
  });
});

const NODE = 'proc-node';
const NS = 'default';
let cp: ControlPlane;
let dataDir: Awaited<ReturnType<typeof tempDir>>;
let agent: TestAgent;

before(async () => {
  cp = await startControlPlane();
  dataDir = await tempDir();
  agent = startProcessAgent(cp.client, { nodeName: NODE, dataDir: dataDir.path, backoff: { initialMs: 300, maxMs: 1200 }, logCheckIntervalMs: 100 });
});
after(async () => {
  await agent.stop();
  await cp.stop();
  await dataDir[Symbol.asyncDispose]();
});

const getPod = (name: string) => cp.client.pods().get(name, { namespace: NS });
async function waitPod(name: string, what: string, test: (pod: Pod) => boolean, ms?: number): Promise<Pod> {
  return eventually(`${name}: ${what}`, async () => {
    const pod = await getPod(name);
    return test(pod) ? pod : undefined;
  }, ms);
}
const main = (pod: Pod) => pod.status?.containerStatuses?.[0];

describe('process runtime', () => {
  it('runs the command with env from ConfigMap, Secret and the downward API; logs to its file; reports Running and Ready', async () => {
    await cp.client.configMaps().create({ metadata: { name: 'greetings', namespace: NS }, data: { greeting: 'hello' } });
    await cp.client.secrets().create({ metadata: { name: 'creds', namespace: NS }, stringData: { token: 's3cret' } });
    const script = `console.log([process.env.GREETING, process.env.TOKEN, process.env.POD, process.env.NS, process.env.UID, process.env.NODE, process.env.IP, process.env.URL, process.cwd()].join('|')); console.error('to stderr'); setInterval(() => {}, 1000);`;
    const created = await cp.client.pods().create(
      boundPod(NS, 'web', NODE, [
        nodeContainer('main', script, {
          workingDir: '/srv/app',
          resources: { limits: { cpu: '100m', memory: '64Mi' } },
          env: [
            { name: 'GREETING', valueFrom: { configMapKeyRef: { name: 'greetings', key: 'greeting' } } },
            { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
            { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
            { name: 'UID', valueFrom: { fieldRef: { fieldPath: 'metadata.uid' } } },
            { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
            { name: 'IP', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
            { name: 'URL', value: 'http://$(IP)/$(POD)' },
          ],
        }),
      ]),
    );
    const uid = created.metadata.uid ?? '';
    const pod = await waitPod('web', 'Running and Ready', (p) => p.status?.phase === 'Running' && main(p)?.ready === true);
    assert.deepEqual(
      pod.status?.conditions?.map((c) => [c.type, c.status]),
      [
        ['PodScheduled', 'True'],
        ['Initialized', 'True'],
        ['ContainersReady', 'True'],
        ['Ready', 'True'],
      ],
    );
    assert.deepEqual([pod.status?.hostIP, pod.status?.podIP], ['127.0.0.1', '127.0.0.1']);
    assert.ok(pod.status?.startTime);
    const status = main(pod);
    assert.ok(status?.state?.running?.startedAt);
    assert.deepEqual([status?.restartCount, status?.started, status?.image], [0, true, 'setpoint.dev/node:recorded-not-pulled']);
    assert.match(status?.containerID ?? '', /^setpoint-process:\/\/\d+$/);
    const cwd = join(agent.runtime.podFilesDir(uid), 'rootfs', 'srv', 'app');
    const log = await eventually('the log line', async () => {
      const text = await readFile(agent.runtime.logPath(uid, 'main'), 'utf8');
      return text.includes('to stderr') ? text : undefined;
    });
    assert.equal(log.split('\n')[0], ['hello', 's3cret', 'web', NS, uid, NODE, '127.0.0.1', 'http://127.0.0.1/web', cwd].join('|'));
  });

  it('restarts a crashing container with backoff, reporting restartCount, lastState and CrashLoopBackOff', async () => {
    await cp.client.pods().create(boundPod(NS, 'crasher', NODE, [nodeContainer('main', `console.log('crashing'); process.exit(3)`)]));
    const pod = await waitPod('crasher', 'CrashLoopBackOff after 2 restarts', (p) => (main(p)?.restartCount ?? 0) >= 2 && main(p)?.state?.waiting?.reason === 'CrashLoopBackOff');
    const status = main(pod);
    assert.equal(status?.lastState?.terminated?.exitCode, 3);
    assert.equal(status?.lastState?.terminated?.reason, 'Error');
    assert.match(status?.state?.waiting?.message ?? '', /^back-off \d+s restarting failed container=main pod=crasher_default\(/);
    assert.equal(status?.ready, false);
    assert.equal(pod.status?.phase, 'Running', 'a crash-looping pod under restartPolicy Always is Running');
    assert.equal(pod.status?.conditions?.find((c) => c.type === 'Ready')?.status, 'False');
    // Each run's log is its own: the last run in the current file, the one before moved aside.
    const log = await readFile(agent.runtime.logPath(pod.metadata.uid ?? '', 'main'), 'utf8');
    assert.equal(log, 'crashing\n');
    const previous = await readFile(agent.runtime.logPath(pod.metadata.uid ?? '', 'main').replace(/\.log$/, '.previous.log'), 'utf8');
    assert.equal(previous, 'crashing\n');
  });

  it('runs init containers in order before the app; restartPolicy Never ends Succeeded; OnFailure reruns a failure', async () => {
    await using out = await tempDir('setpoint-out-', 0o777);
    const file = join(out.path, 'order.txt');
    const append = (word: string) => `require('fs').appendFileSync(process.env.OUT, '${word}\\n')`;
    const env = [{ name: 'OUT', value: file }];
    await cp.client.pods().create(
      boundPod(NS, 'job', NODE, [nodeContainer('main', append('main'), { env })], {
        restartPolicy: 'Never',
        initContainers: [nodeContainer('first', `setTimeout(() => { ${append('first')} }, 200)`, { env }), nodeContainer('second', append('second'), { env })],
      }),
    );
    const done = await waitPod('job', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    assert.equal(await readFile(file, 'utf8'), 'first\nsecond\nmain\n');
    assert.deepEqual(
      done.status?.initContainerStatuses?.map((s) => [s.name, s.state?.terminated?.reason, s.state?.terminated?.exitCode, s.ready]),
      [
        ['first', 'Completed', 0, true],
        ['second', 'Completed', 0, true],
      ],
    );
    assert.deepEqual([main(done)?.state?.terminated?.reason, main(done)?.state?.terminated?.exitCode], ['Completed', 0]);
    assert.equal(done.status?.conditions?.find((c) => c.type === 'Ready')?.reason, 'PodCompleted');

    // OnFailure: fails once (no marker yet), succeeds the second time.
    const marker = join(out.path, 'tried');
    const flaky = `const fs = require('fs'); if (fs.existsSync(process.env.M)) process.exit(0); fs.writeFileSync(process.env.M, ''); process.exit(1)`;
    await cp.client.pods().create(boundPod(NS, 'flaky', NODE, [nodeContainer('main', flaky, { env: [{ name: 'M', value: marker }] })], { restartPolicy: 'OnFailure' }));
    const flakyDone = await waitPod('flaky', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    assert.equal(main(flakyDone)?.restartCount, 1);
    assert.equal(main(flakyDone)?.lastState?.terminated?.exitCode, 1);
  });

  it('waits in CreateContainerConfigError for a missing ConfigMap, and starts once it exists', async () => {
    await cp.client.pods().create(
      boundPod(NS, 'needs-config', NODE, [nodeContainer('main', `console.log(process.env.V); setInterval(() => {}, 1000)`, { env: [{ name: 'V', valueFrom: { configMapKeyRef: { name: 'late', key: 'v' } } }] })]),
    );
    const waiting = await waitPod('needs-config', 'CreateContainerConfigError', (p) => main(p)?.state?.waiting?.reason === 'CreateContainerConfigError');
    assert.equal(main(waiting)?.state?.waiting?.message, 'configmap "late" not found');
    assert.equal(waiting.status?.phase, 'Pending');
    await cp.client.configMaps().create({ metadata: { name: 'late', namespace: NS }, data: { v: 'now' } });
    await waitPod('needs-config', 'Running', (p) => main(p)?.state?.running !== undefined);
  });

  it('writes status only when it changes: a settled pod keeps its resourceVersion through other events', async () => {
    const settled = await waitPod('web', 'Running and Ready', (p) => main(p)?.ready === true);
    // A label change makes the agent reconcile the pod again; it must find nothing to write.
    const labelled = await cp.client.pods().patch('web', { metadata: { labels: { touched: 'yes' } } }, { type: 'merge', namespace: NS });
    assert.notEqual(labelled.metadata.resourceVersion, settled.metadata.resourceVersion);
    // Another pod's lifecycle passes through the same agent meanwhile; then web is unchanged.
    await cp.client.pods().create(boundPod(NS, 'bystander', NODE, [nodeContainer('main', 'process.exit(0)')], { restartPolicy: 'Never' }));
    await waitPod('bystander', 'Succeeded', (p) => p.status?.phase === 'Succeeded');
    assert.equal((await getPod('web')).metadata.resourceVersion, labelled.metadata.resourceVersion);
  });
});
