import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Container, Pod } from '@setpoint/api';
import { makeNode, makePod } from './fixtures.test-support.js';
import { DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST, nodeAllocatable, podRequests } from './resources.js';

const Mi = 1024 * 1024;
const c = (name: string, cpu?: string, memory?: string, extra: Partial<Container> = {}): Container => ({
  name,
  resources: { requests: { ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) } },
  ...extra,
});

describe('podRequests (effective requests, as Kubernetes computes them)', () => {
  const cases: Array<{ name: string; pod: Pod; want: { milliCPU: number; memory: number; nonZeroMilliCPU: number; nonZeroMemory: number } }> = [
    {
      name: 'containers are summed',
      pod: makePod('p', { containers: [c('a', '100m', '64Mi'), c('b', '1', '1Gi')] }),
      want: { milliCPU: 1100, memory: 64 * Mi + 1024 * Mi, nonZeroMilliCPU: 1100, nonZeroMemory: 64 * Mi + 1024 * Mi },
    },
    {
      name: 'an init container larger than the sum wins (max of init containers)',
      pod: makePod('p', { containers: [c('a', '100m', '64Mi')], initContainers: [c('i1', '2', '32Mi'), c('i2', '500m', '1Gi')] }),
      want: { milliCPU: 2000, memory: 1024 * Mi, nonZeroMilliCPU: 2000, nonZeroMemory: 1024 * Mi },
    },
    {
      name: 'a sidecar init container adds to the sum and to later init containers',
      pod: makePod('p', {
        containers: [c('a', '100m', '64Mi')],
        initContainers: [c('side', '200m', '64Mi', { restartPolicy: 'Always' }), c('later', '1', '64Mi')],
      }),
      want: { milliCPU: 1200, memory: 128 * Mi, nonZeroMilliCPU: 1200, nonZeroMemory: 128 * Mi },
    },
    {
      name: 'a limit without a request is the request (defaulting)',
      pod: makePod('p', { containers: [{ name: 'a', resources: { limits: { cpu: '250m', memory: '128Mi' } } }] }),
      want: { milliCPU: 250, memory: 128 * Mi, nonZeroMilliCPU: 250, nonZeroMemory: 128 * Mi },
    },
    {
      name: 'no requests: zero, but the non-zero defaults for scoring',
      pod: makePod('p', { containers: [{ name: 'a' }, { name: 'b' }] }),
      want: { milliCPU: 0, memory: 0, nonZeroMilliCPU: 2 * DEFAULT_MILLI_CPU_REQUEST, nonZeroMemory: 2 * DEFAULT_MEMORY_REQUEST },
    },
    {
      name: 'overhead is added; fractional cpu rounds up to a milli-cpu',
      pod: { ...makePod('p', { containers: [c('a', '0.0005', '1')] }), spec: { containers: [c('a', '0.0005', '1')], overhead: { cpu: '10m', memory: '1Ki' } } },
      want: { milliCPU: 11, memory: 1025, nonZeroMilliCPU: 11, nonZeroMemory: 1025 },
    },
    {
      name: 'pod-level requests replace the containers’ sum',
      pod: { ...makePod('p'), spec: { containers: [c('a', '100m', '64Mi'), c('b', '100m')], resources: { requests: { cpu: '1' } } } },
      want: { milliCPU: 1000, memory: 64 * Mi, nonZeroMilliCPU: 1000, nonZeroMemory: 64 * Mi + DEFAULT_MEMORY_REQUEST },
    },
  ];
  for (const t of cases) {
    it(t.name, () => assert.deepEqual(podRequests(t.pod), t.want));
  }
});

describe('nodeAllocatable', () => {
  it('reads status.allocatable, falling back to capacity per resource; pods default to 0', () => {
    assert.deepEqual(nodeAllocatable(makeNode('n', { cpu: '3500m', memory: '2Gi', pods: '20' })), { milliCPU: 3500, memory: 2048 * Mi, pods: 20 });
    assert.deepEqual(nodeAllocatable({ metadata: { name: 'n' }, status: { capacity: { cpu: '2', pods: '10' }, allocatable: { memory: '1Mi' } } }), {
      milliCPU: 2000,
      memory: Mi,
      pods: 10,
    });
    assert.deepEqual(nodeAllocatable({ metadata: { name: 'n' } }), { milliCPU: 0, memory: 0, pods: 0 });
  });
});
