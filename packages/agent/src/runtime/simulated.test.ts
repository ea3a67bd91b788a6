/**
 * The simulated runtime against the PodRuntime conformance suite: it runs no command and keeps
 * nothing across an agent restart, so it gets the tests every runtime must pass. A short ready
 * delay, on the real clock (the suite polls under deadlines).
 */
import { podRuntimeConformance } from './conformance.js';
import type { PodRuntime } from './runtime.js';
import { SimulatedRuntime } from './simulated.js';

podRuntimeConformance({
  name: 'simulated',
  capabilities: { runsCommands: false, recovers: false },
  async open() {
    const runtime: PodRuntime = new SimulatedRuntime({ readyDelayMs: 50 });
    await runtime.start();
    return {
      runtime,
      async dispose() {
        for (const pod of runtime.pods()) await runtime.killPod(pod.uid, 0);
        await runtime.close();
      },
    };
  },
});
