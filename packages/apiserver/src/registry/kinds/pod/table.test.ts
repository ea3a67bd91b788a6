import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '@setpoint/api';
import { podPrinter, summarizePod } from './table.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

function pod(status: Record<string, unknown>, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', creationTimestamp: ago(10 * 60_000), ...meta },
    spec: { containers: [{ name: 'app', image: 'nginx' }], ...spec },
    status,
  };
}

const running = (name = 'app', ready = true) => ({ name, ready, restartCount: 0, state: { running: { startedAt: ago(60_000) } } });
const waiting = (reason: string, name = 'app') => ({ name, ready: false, restartCount: 0, state: { waiting: { reason } } });
const terminated = (t: Record<string, unknown>, name = 'app') => ({ name, ready: false, restartCount: 0, state: { terminated: { exitCode: 0, ...t } } });

/** READY, STATUS and RESTARTS as the row prints them. */
function summary(p: KubeObject): [string, string, string] {
  const cells = podPrinter.row(p, NOW).cells;
  return [cells[1] as string, cells[2] as string, cells[3] as string];
}

describe('pod STATUS, READY and RESTARTS (kubectl printPod)', () => {
  it('a new pod without container statuses shows its phase', () => {
    assert.deepEqual(summary(pod({ phase: 'Pending' })), ['0/1', 'Pending', '0']);
  });

  it('a running ready container: Running, 1/1', () => {
    assert.deepEqual(summary(pod({ phase: 'Running', containerStatuses: [running()] })), ['1/1', 'Running', '0']);
  });

  it('a waiting container shows its reason', () => {
    assert.deepEqual(summary(pod({ phase: 'Pending', containerStatuses: [waiting('ContainerCreating')] })), ['0/1', 'ContainerCreating', '0']);
    assert.deepEqual(summary(pod({ phase: 'Pending', containerStatuses: [waiting('ErrImagePull')] })), ['0/1', 'ErrImagePull', '0']);
  });

  it('restarts add up and show when the last one was', () => {
    const crashing = { ...waiting('CrashLoopBackOff'), restartCount: 3, lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(5 * 60_000 + 2_000) } } };
    assert.deepEqual(summary(pod({ phase: 'Running', containerStatuses: [crashing] })), ['0/1', 'CrashLoopBackOff', '3 (5m2s ago)']);
    const noTime = { ...running(), restartCount: 2 };
    assert.deepEqual(summary(pod({ phase: 'Running', containerStatuses: [noTime] })), ['1/1', 'Running', '2'], 'without lastState the count alone');
  });

  it('a terminated container shows its reason, else its signal or exit code', () => {
    assert.deepEqual(summary(pod({ phase: 'Succeeded', containerStatuses: [terminated({ reason: 'Completed' })] })), ['0/1', 'Completed', '0']);
    assert.deepEqual(summary(pod({ phase: 'Failed', containerStatuses: [terminated({ exitCode: 1 })] })), ['0/1', 'ExitCode:1', '0']);
    assert.deepEqual(summary(pod({ phase: 'Failed', containerStatuses: [terminated({ exitCode: 137, signal: 9 })] })), ['0/1', 'Signal:9', '0']);
  });

  it('"Completed" with another container still running reads Running (pod Ready) or NotReady', () => {
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    const statuses = [running('a'), terminated({ reason: 'Completed' }, 'b')];
    const ready = pod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: statuses }, spec);
    assert.deepEqual(summary(ready), ['1/2', 'Running', '0']);
    const notReady = pod({ phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: statuses }, spec);
    assert.deepEqual(summary(notReady), ['1/2', 'NotReady', '0']);
  });

  it('the first container in the list decides when several have reasons', () => {
    const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
    const p = pod({ phase: 'Pending', containerStatuses: [waiting('ImagePullBackOff', 'a'), waiting('ContainerCreating', 'b')] }, spec);
    assert.equal(summarizePod(p).status, 'ImagePullBackOff');
  });

  it('Terminating once deletion started, unless the pod already finished; Unknown on a lost node', () => {
    const deleting = { deletionTimestamp: ago(-30_000) };
    assert.equal(summarizePod(pod({ phase: 'Running', containerStatuses: [running()] }, {}, deleting)).status, 'Terminating');
    assert.equal(summarizePod(pod({ phase: 'Pending' }, {}, deleting)).status, 'Terminating');
    assert.equal(summarizePod(pod({ phase: 'Succeeded', containerStatuses: [terminated({ reason: 'Completed' })] }, {}, deleting)).status, 'Completed');
    assert.equal(summarizePod(pod({ phase: 'Running', reason: 'NodeLost', containerStatuses: [running()] }, {}, deleting)).status, 'Unknown');
  });

  it('status.reason replaces the phase (Evicted); a scheduling gate shows SchedulingGated', () => {
    assert.equal(summarizePod(pod({ phase: 'Failed', reason: 'Evicted' })).status, 'Evicted');
    assert.equal(summarizePod(pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] })).status, 'SchedulingGated');
  });

  describe('init containers', () => {
    const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }] };
    it('Init:N/M while they run, counting the ones done', () => {
      const first = pod({ phase: 'Pending', initContainerStatuses: [waiting('PodInitializing', 'i1'), waiting('PodInitializing', 'i2')] }, spec);
      assert.equal(summarizePod(first).status, 'Init:0/2');
      const second = pod({ phase: 'Pending', initContainerStatuses: [terminated({ reason: 'Completed' }, 'i1'), running('i2', false)] }, spec);
      assert.equal(summarizePod(second).status, 'Init:1/2');
    });
    it('Init:<reason> for a waiting or failed one, Init:ExitCode:N without a reason', () => {
      const backoff = pod({ phase: 'Pending', initContainerStatuses: [{ ...waiting('CrashLoopBackOff', 'i1'), restartCount: 4 }] }, spec);
      assert.deepEqual(summary(backoff), ['0/1', 'Init:CrashLoopBackOff', '4']);
      assert.equal(summarizePod(pod({ phase: 'Pending', initContainerStatuses: [terminated({ exitCode: 1, reason: 'Error' }, 'i1')] }, spec)).status, 'Init:Error');
      assert.equal(summarizePod(pod({ phase: 'Pending', initContainerStatuses: [terminated({ exitCode: 2 }, 'i1')] }, spec)).status, 'Init:ExitCode:2');
      assert.equal(summarizePod(pod({ phase: 'Pending', initContainerStatuses: [terminated({ exitCode: 2, signal: 15 }, 'i1')] }, spec)).status, 'Init:Signal:15');
    });
    it('once initialised the containers decide, and init restarts no longer count', () => {
      const done = pod(
        {
          phase: 'Running',
          conditions: [{ type: 'Initialized', status: 'True' }],
          initContainerStatuses: [{ ...terminated({ reason: 'Completed' }, 'i1'), restartCount: 2 }, terminated({ reason: 'Completed' }, 'i2')],
          containerStatuses: [running()],
        },
        spec,
      );
      assert.deepEqual(summary(done), ['1/1', 'Running', '0']);
    });
    it('a started sidecar (restartPolicy Always) counts in READY and in the total', () => {
      const sidecarSpec = { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] };
      const status = {
        phase: 'Running',
        conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ ...running('proxy'), started: true, restartCount: 1 }],
        containerStatuses: [running()],
      };
      assert.deepEqual(summary(pod(status, sidecarSpec)), ['2/2', 'Running', '1']);
    });
  });

  it('prints every column, wide ones included, and a Completed condition on finished pods', () => {
    const p = pod(
      { phase: 'Succeeded', podIPs: [{ ip: '10.0.0.7' }], nominatedNodeName: 'n2', conditions: [{ type: 'example.com/gate', status: 'True' }], containerStatuses: [terminated({ reason: 'Completed' })] },
      { nodeName: 'n1', readinessGates: [{ conditionType: 'example.com/gate' }, { conditionType: 'example.com/other' }] },
    );
    const row = podPrinter.row(p, NOW);
    assert.deepEqual(row.cells, ['web', '0/1', 'Completed', '0', '10m', '10.0.0.7', 'n1', 'n2', '1/2']);
    assert.equal(row.cells.length, podPrinter.columns.length);
    assert.deepEqual(row.conditions, [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
    const bare = podPrinter.row(pod({ phase: 'Pending' }), NOW);
    assert.deepEqual(bare.cells.slice(5), ['<none>', '<none>', '<none>', '<none>']);
    assert.equal(bare.conditions, undefined);
  });

  it('the columns are kubectl get pods (-o wide adds priority 1)', () => {
    assert.deepEqual(
      podPrinter.columns.map((c) => [c.name, c.priority]),
      [['Name', 0], ['Ready', 0], ['Status', 0], ['Restarts', 0], ['Age', 0], ['IP', 1], ['Node', 1], ['Nominated Node', 1], ['Readiness Gates', 1]],
    );
  });

  it('does not throw on malformed objects', () => {
    const odd: KubeObject = { metadata: { name: 'odd' }, spec: 'nope', status: { containerStatuses: [null, 7, { state: 'x' }] } };
    assert.equal(podPrinter.row(odd, NOW).cells.length, podPrinter.columns.length);
  });
});
