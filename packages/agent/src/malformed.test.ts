/**
 * Pod sync contains malformed pods (issue 19): pods bound to the node but of a shape the API would
 * refuse, written straight into the store, are reported (logged with their key, counted as
 * reconcile panics) and never run, while a healthy pod created after them runs as usual.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordingLogger, type Pod } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import { Manager, builtin } from '@setpoint/client';
import { startControlPlaneServingStoreAsIs, writeRaw } from '@setpoint/testing';
import { addPodSync, gracePeriodMs } from './podsync.js';
import { SimulatedRuntime } from './runtime/simulated.js';
import { eventually } from './testing/helpers.js';

const NODE = 'malformed-node';
const container = { name: 'main', image: 'busybox' };

describe('pod sync and malformed pods', () => {
  it('reports and skips pods with containers [null], a string command or env entries of the wrong shape; a healthy pod runs', async () => {
    await using cp = await startControlPlaneServingStoreAsIs();
    const bad = {
      'null-container': { nodeName: NODE, containers: [null] },
      'string-command': { nodeName: NODE, containers: [{ ...container, command: 'sleep 1' }] },
      'bad-env': { nodeName: NODE, containers: [{ ...container, env: [{ name: 'A', value: 1 }] }] },
    };
    for (const [name, spec] of Object.entries(bad)) await writeRaw(cp, builtin.pods, { metadata: { name, namespace: 'default' }, spec });

    const logger = recordingLogger();
    const manager = new Manager({ client: cp.client, logger, gracefulShutdownMs: 1000 });
    const simulated = new SimulatedRuntime({ readyDelayMs: 0 });
    const synced = new Set<string>();
    const runtime = new Proxy(simulated, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver) as unknown;
        if (prop === 'syncPod') return (pod: DeepReadonly<Pod>) => (synced.add(pod.metadata.name ?? ''), simulated.syncPod(pod));
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    addPodSync({ manager, client: cp.client, runtime, fieldSelector: `spec.nodeName=${NODE}` });
    const abort = new AbortController();
    const running = manager.start(abort.signal);
    try {
      await cp.client.pods().create({ metadata: { name: 'healthy', namespace: 'default' }, spec: { nodeName: NODE, containers: [container] } }, { namespace: 'default' });
      await eventually('the healthy pod Running', async () => (await cp.client.pods().get('healthy', { namespace: 'default' })).status?.phase === 'Running');
      for (const name of Object.keys(bad)) {
        await eventually(`a report of ${name}`, () => logger.lines.some((l) => l.level === 'warn' && l.fields.key === `default/${name}` && /panicked/.test(l.message)));
      }
      const panics = await manager.metrics.registry.getSingleMetric('controller_runtime_reconcile_panics_total')!.get();
      assert.ok(panics.values.reduce((n, v) => n + v.value, 0) >= 3, 'each malformed pod is counted');
      assert.deepEqual([...synced], ['healthy'], 'no malformed pod reached the runtime');
      const err = logger.lines.find((l) => l.fields.key === 'default/null-container')?.fields.err as Error;
      assert.match(err.message, /json: cannot unmarshal null into Go struct field PodSpec\.spec\.containers of type v1\.Container/);
    } finally {
      abort.abort();
      await running;
    }
  });

  it('a grace period that is not a finite number is skipped; a huge one is capped at the longest timer', () => {
    const pod = (metadata: object, spec: object) => ({ metadata, spec }) as unknown as DeepReadonly<Pod>;
    assert.equal(gracePeriodMs(pod({}, { terminationGracePeriodSeconds: 2 ** 63 })), 2 ** 31 - 1);
    assert.equal(gracePeriodMs(pod({ deletionGracePeriodSeconds: 'x' }, { terminationGracePeriodSeconds: 5 })), 5000);
    assert.equal(gracePeriodMs(pod({}, { terminationGracePeriodSeconds: {} })), 30_000);
    assert.equal(gracePeriodMs(pod({ deletionGracePeriodSeconds: 0 }, {})), 0);
  });
});
