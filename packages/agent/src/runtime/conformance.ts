/**
 * The PodRuntime conformance suite: the one set of tests every PodRuntime (the process runtime, the
 * simulated runtime, and any later one) must pass, after the store's suite. A runtime's test file
 * calls `podRuntimeConformance` with a harness that opens a fresh runtime; the suite registers
 * node:test `describe`/`it` blocks that prove the contract written in runtime.ts.
 *
 * What a runtime cannot do is said by its capabilities, never by skipping a failing test: a
 * runtime that runs no command (simulated) does not get the tests of exit codes, restarts, init
 * order and grace periods; one that keeps nothing across an agent restart does not get the
 * recovery test. Every other test runs against every runtime.
 *
 * Guarantees: every test opens its own runtime and disposes it, also when it fails. Nothing waits
 * on a fixed sleep: every wait polls a condition under a deadline (WAIT_MS) and fails naming what
 * it waited for. Pods' commands are the test's own node binary (`node -e`); a runtime that runs no
 * command ignores them. Assumes: the tests of one file run one at a time (node:test's default).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { within, type Container, type Pod } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import type { ContainerObservation, PodObservation, PodRef, PodRuntime } from './runtime.js';

/** What a runtime can do beyond the contract every runtime keeps. */
export interface PodRuntimeCapabilities {
  /**
   * It runs the containers' commands: exit codes, restarts under the restart policy, init
   * containers one at a time, SIGTERM then SIGKILL after the grace period are observable.
   */
  readonly runsCommands: boolean;
  /** A new runtime on the same state (`OpenedRuntime.reopen`) recovers the pods the last one ran. */
  readonly recovers: boolean;
}

/** How a runtime's test file gives the suite its runtimes. */
export interface PodRuntimeHarness {
  /** Names the suite, e.g. "process". */
  readonly name: string;
  readonly capabilities: PodRuntimeCapabilities;
  /**
   * Opens a new runtime with no pods, already `start()`ed. A runtime that runs commands restarts
   * a crashed container within a second (a short crash-loop backoff). Every test opens its own.
   */
  open(): Promise<OpenedRuntime>;
}

/** One runtime opened for one test. */
export interface OpenedRuntime {
  readonly runtime: PodRuntime;
  /**
   * Closes the runtime (what runs keeps running) and starts a new one on the same state, as an
   * agent restart does. Required when the harness `recovers`; later calls to `dispose` clean up the new one.
   */
  readonly reopen?: () => Promise<PodRuntime>;
  /** Stops every pod, closes the runtime and removes its files. Called once after every test, also after failures. */
  dispose(): Promise<void>;
}

/** How long any wait of the suite may take. */
const WAIT_MS = 10_000;
const POLL_MS = 10;
const NS = 'conformance';

/** Polls `check` until it returns something other than undefined or false; fails naming `what` after WAIT_MS. */
async function eventually<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) assert.fail(`nothing within ${WAIT_MS} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A container running `node -e script`. */
function container(name: string, script: string, extra: DeepReadonly<Partial<Container>> = {}): DeepReadonly<Container> {
  return { name, image: 'setpoint.dev/node:recorded-not-pulled', command: [process.execPath, '-e', script], ...extra };
}

const FOREVER = 'setInterval(() => {}, 1000)';

/** A pod with a fresh uid. */
function pod(name: string, containers: DeepReadonly<Container>[], spec: DeepReadonly<Partial<NonNullable<Pod['spec']>>> = {}, uid: string = randomUUID()): DeepReadonly<Pod> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: NS, uid }, spec: { nodeName: 'conformance-node', containers, ...spec } };
}

function refOf(p: DeepReadonly<Pod>): PodRef {
  return { namespace: p.metadata.namespace ?? '', name: p.metadata.name ?? '', uid: p.metadata.uid ?? '' };
}

const uids = (refs: PodRef[]) => refs.map((r) => r.uid).sort();
const stateOf = (c: ContainerObservation | undefined) => Object.keys(c?.state ?? {});
const everyRunning = (o: PodObservation) => o.containers.every((c) => c.state.running !== undefined && c.ready && c.started);

/** Syncs `p` until every container runs, started and ready; returns that observation. */
function untilRunning(runtime: PodRuntime, p: DeepReadonly<Pod>): Promise<PodObservation> {
  return eventually(`every container of ${p.metadata.name ?? ''} running and ready`, async () => {
    const o = await runtime.syncPod(p);
    return everyRunning(o) ? o : undefined;
  });
}

/** A directory every pod user may write (pods run as users of their own when the tests run as root). */
async function sharedDir(): Promise<{ readonly path: string } & AsyncDisposable> {
  const path = await mkdtemp(join(tmpdir(), 'setpoint-conformance-'));
  await chmod(path, 0o777);
  return { path, [Symbol.asyncDispose]: () => rm(path, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }) };
}

/** Registers the conformance tests for `harness` under describe("PodRuntime conformance: <name>"). */
export function podRuntimeConformance(harness: PodRuntimeHarness): void {
  const test = (name: string, body: (opened: OpenedRuntime) => Promise<void>) =>
    it(name, async () => {
      const opened = await harness.open();
      try {
        await body(opened);
      } finally {
        await opened.dispose();
      }
    });

  describe(`PodRuntime conformance: ${harness.name}`, () => {
    test('observes every container of the spec in order, each in exactly one state, with a startTime that stays', async ({ runtime }) => {
      const p = pod('shape', [container('a', FOREVER), container('b', FOREVER)], { initContainers: [container('i1', 'process.exit(0)'), container('i2', 'process.exit(0)')] });
      const first = await runtime.syncPod(p);
      assert.deepEqual(
        first.initContainers.map((c) => c.name),
        ['i1', 'i2'],
      );
      assert.deepEqual(
        first.containers.map((c) => c.name),
        ['a', 'b'],
      );
      for (const c of [...first.initContainers, ...first.containers]) {
        assert.equal(stateOf(c).length, 1, `${c.name}: exactly one of waiting, running, terminated`);
        assert.deepEqual([c.restartCount, c.lastState], [0, {}], `${c.name}: no previous run`);
      }
      assert.match(first.startTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const settled = await untilRunning(runtime, p);
      assert.equal(settled.startTime, first.startTime, 'the startTime is when the runtime first took the pod on');
      assert.deepEqual(runtime.pods(), [refOf(p)]);
      assert.deepEqual(runtime.podsNamed(NS, 'shape'), [refOf(p)]);
      assert.deepEqual(runtime.podsNamed(NS, 'other'), []);
    });

    test('runs init containers to success before the containers: each Completed with exit code 0, then every container running, started and ready', async ({ runtime }) => {
      const p = pod('init', [container('main', FOREVER)], { initContainers: [container('setup', 'process.exit(0)')] });
      const o = await untilRunning(runtime, p);
      const init = o.initContainers[0];
      assert.deepEqual([init?.state.terminated?.exitCode, init?.state.terminated?.reason], [0, 'Completed']);
      assert.equal(init?.ready, false, 'an init container that completed is not ready (it does not run)');
      assert.ok(o.containers[0]?.state.running?.startedAt, 'a running container says since when');
    });

    test('syncPod is idempotent: syncing a settled pod again changes nothing that runs', async ({ runtime }) => {
      const p = pod('idem', [container('main', FOREVER)]);
      const settled = await untilRunning(runtime, p);
      const again = await runtime.syncPod(p);
      const third = await runtime.syncPod(p);
      assert.deepEqual(again, settled);
      assert.deepEqual(third, settled);
      assert.deepEqual(runtime.pods(), [refOf(p)], 'the pod is held once');
    });

    test("tells the change listener when a pod's observation changes by itself", async ({ runtime }) => {
      // A process runtime sees the container exit; a simulated one sees its delay end.
      const p = pod('changes', [container('main', 'setTimeout(() => process.exit(0), 200)')], { restartPolicy: 'Never' });
      const first = await runtime.syncPod(p);
      const told: PodRef[] = [];
      runtime.onChange((ref) => told.push(ref));
      const changed = await eventually('the listener told of the pod, and a different observation', async () => {
        if (!told.some((r) => r.uid === refOf(p).uid)) return undefined;
        const o = await runtime.syncPod(p);
        return JSON.stringify(o) === JSON.stringify(first) ? undefined : o;
      });
      assert.notDeepEqual(changed, first);
      assert.ok(
        told.every((r) => r.uid === refOf(p).uid),
        'only the pod that changed is named',
      );
      assert.deepEqual(told[0], refOf(p));
    });

    test('killPod stops everything of the pod and forgets it; a second call joins the first; killing an unknown pod resolves', async ({ runtime }) => {
      const p = pod('killed', [container('main', FOREVER)]);
      const kept = pod('kept', [container('main', FOREVER)]);
      await untilRunning(runtime, p);
      await untilRunning(runtime, kept);
      const uid = refOf(p).uid;
      const first = runtime.killPod(uid, 5_000);
      assert.ok(runtime.isTerminating(uid) || !uids(runtime.pods()).includes(uid), 'a pod being killed is terminating, or already gone');
      const second = runtime.killPod(uid, 5_000);
      await within(Promise.all([first, second]), 'both kills to resolve');
      assert.equal(runtime.isTerminating(uid), false);
      assert.deepEqual(runtime.pods(), [refOf(kept)], 'the killed pod is forgotten, the other one kept');
      assert.deepEqual(runtime.podsNamed(NS, 'killed'), []);
      await within(runtime.killPod(uid, 0), 'a kill of a forgotten pod');
      await within(runtime.killPod(randomUUID(), 0), 'a kill of a pod never seen');
      assert.ok(everyRunning(await runtime.syncPod(kept)), 'the other pod still runs');
    });

    test('holds two pods of one name apart (a pod replaced by a new one of the same name)', async ({ runtime }) => {
      const old = pod('twin', [container('main', FOREVER)]);
      const replacement = pod('twin', [container('main', FOREVER)]);
      await runtime.syncPod(old);
      await runtime.syncPod(replacement);
      assert.deepEqual(uids(runtime.podsNamed(NS, 'twin')), uids([refOf(old), refOf(replacement)]));
      await within(runtime.killPod(refOf(old).uid, 0), 'the old pod killed');
      assert.deepEqual(runtime.podsNamed(NS, 'twin'), [refOf(replacement)]);
      assert.ok(everyRunning(await untilRunning(runtime, replacement)));
    });

    test("a container's failure is part of its pod's observation, not an error, and other pods go on", async ({ runtime }) => {
      const broken = pod('broken', [container('main', FOREVER, { command: ['/nonexistent/setpoint-conformance'] })], { restartPolicy: 'Never' });
      const fine = pod('fine', [container('main', FOREVER)]);
      const o = await runtime.syncPod(broken);
      assert.equal(o.containers.length, 1);
      await untilRunning(runtime, fine);
      if (harness.capabilities.runsCommands) {
        const failed = await eventually('the broken container reported as not running', async () => {
          const c = (await runtime.syncPod(broken)).containers[0];
          return c !== undefined && c.state.running === undefined && (c.state.terminated !== undefined || c.state.waiting?.reason !== 'ContainerCreating') ? c : undefined;
        });
        assert.equal(failed.ready, false);
      }
    });

    if (harness.capabilities.runsCommands) {
      test('reports exit codes: Never leaves the container terminated with its code; Always restarts it, counting restarts and keeping the last run', async ({ runtime }) => {
        const never = pod('exits', [container('main', 'process.exit(3)')], { restartPolicy: 'Never' });
        const terminated = await eventually('the container terminated', async () => (await runtime.syncPod(never)).containers[0]?.state.terminated);
        assert.deepEqual([terminated.exitCode, terminated.reason], [3, 'Error']);
        assert.ok(terminated.startedAt !== undefined && terminated.finishedAt !== undefined);
        const after = (await runtime.syncPod(never)).containers[0];
        assert.equal(after?.restartCount, 0, 'restartPolicy Never: no restart');

        const always = pod('restarts', [container('main', 'process.exit(4)')], { restartPolicy: 'Always' });
        const restarted = await eventually('a restart', async () => {
          const c = (await runtime.syncPod(always)).containers[0];
          return c !== undefined && c.restartCount >= 1 ? c : undefined;
        });
        assert.equal(restarted.lastState.terminated?.exitCode, 4);
        assert.equal(restarted.ready, restarted.state.running !== undefined, 'ready only while a run is running (no readiness probe)');
        assert.match(restarted.containerID ?? '', /^[a-z-]+:\/\/.+/, 'the containerID names the runtime and the run');
      });

      test('runs init containers one at a time, in order, each to success before the next', async ({ runtime }) => {
        await using dir = await sharedDir();
        const release = join(dir.path, 'release');
        // The first init container runs until the test creates the file.
        const waitForFile = `const fs = require('fs'); setInterval(() => { if (fs.existsSync(${JSON.stringify(release)})) process.exit(0); }, 10)`;
        const p = pod('ordered', [container('main', FOREVER)], { initContainers: [container('first', waitForFile), container('second', 'process.exit(0)')] });
        const blocked = await eventually('the first init container running', async () => {
          const o = await runtime.syncPod(p);
          return o.initContainers[0]?.state.running !== undefined ? o : undefined;
        });
        assert.deepEqual(stateOf(blocked.initContainers[1]), ['waiting'], 'the second waits for the first');
        assert.deepEqual(stateOf(blocked.containers[0]), ['waiting'], 'the containers wait for the init containers');
        await writeFile(release, '');
        const o = await untilRunning(runtime, p);
        assert.deepEqual(
          o.initContainers.map((c) => [c.name, c.state.terminated?.exitCode]),
          [
            ['first', 0],
            ['second', 0],
          ],
        );
      });

      test('killPod sends SIGTERM, then SIGKILL after the grace period; a second call with a shorter grace period shortens it', async ({ runtime }) => {
        const polite = pod('polite', [container('main', `process.on('SIGTERM', () => process.exit(0)); ${FOREVER}`)]);
        await untilRunning(runtime, polite);
        await within(runtime.killPod(refOf(polite).uid, 60_000), 'a container that exits on SIGTERM stopped long before its grace period');
        const stubborn = pod('stubborn', [container('main', `process.on('SIGTERM', () => {}); ${FOREVER}`)]);
        await untilRunning(runtime, stubborn);
        const uid = refOf(stubborn).uid;
        const slow = runtime.killPod(uid, 60_000);
        assert.equal(runtime.isTerminating(uid), true);
        await within(Promise.all([slow, runtime.killPod(uid, 0)]), 'a container that ignores SIGTERM killed once the grace period is cut to 0');
        assert.deepEqual(runtime.pods(), []);
      });
    }

    if (harness.capabilities.recovers) {
      test('a new runtime on the same state recovers the pods: it lists them and reports the same run, not a new one', async (opened) => {
        const p = pod('survivor', [container('main', FOREVER)]);
        const before = await untilRunning(opened.runtime, p);
        assert.ok(opened.reopen, 'a harness that recovers gives reopen()');
        const runtime = await opened.reopen();
        assert.deepEqual(runtime.pods(), [refOf(p)], 'the pod is held again after start()');
        const after = await untilRunning(runtime, p);
        assert.deepEqual(
          after.containers.map((c) => [c.containerID, c.restartCount, c.state.running?.startedAt]),
          before.containers.map((c) => [c.containerID, c.restartCount, c.state.running?.startedAt]),
        );
        assert.equal(after.startTime, before.startTime);
      });
    }
  });
}
