/**
 * Resource arithmetic of scheduling: what a pod requests and what a node offers, as numbers
 * (milli-CPU and bytes), computed the way Kubernetes computes them.
 *
 * A pod's effective request (component-helpers' PodRequests) is the sum of its containers'
 * requests, raised to the largest init container's (a sidecar init container — restartPolicy
 * Always — runs beside the others, so it is added to the sum and to every later init container),
 * replaced by the pod-level request where spec.resources.requests sets one, plus spec.overhead.
 * A container without a request for a resource but with a limit requests its limit (Kubernetes'
 * defaulting, which Setpoint's API server does not apply). The "non-zero" variant counts a
 * container that requests no cpu as 100m and no memory as 200 MiB: what the scorers use so that
 * pods without requests still spread.
 */
import { milliValue, quantityValue, tryParseQuantity, type Node, type Pod, type ResourceList } from '@setpoint/api';

/** What scoring assumes a container without a cpu request uses (Kubernetes' DefaultMilliCPURequest). */
export const DEFAULT_MILLI_CPU_REQUEST = 100;
/** What scoring assumes a container without a memory request uses (Kubernetes' DefaultMemoryRequest). */
export const DEFAULT_MEMORY_REQUEST = 200 * 1024 * 1024;

/** A pod's effective requests: actual (filtering, balanced allocation) and non-zero (least allocated). */
export interface PodRequests {
  readonly milliCPU: number;
  readonly memory: number;
  readonly nonZeroMilliCPU: number;
  readonly nonZeroMemory: number;
}

/** What a node offers to pods (status.allocatable, falling back to status.capacity per resource). */
export interface Allocatable {
  readonly milliCPU: number;
  readonly memory: number;
  /** How many pods the node takes (0 when neither allocatable nor capacity says). */
  readonly pods: number;
}

type ReadonlyResources = Readonly<ResourceList> | undefined;
type ReadonlyContainer = Readonly<NonNullable<NonNullable<Pod['spec']>['containers']>[number]>;

/** Milli-units of `name` in `list` (rounded up, as MilliValue), or undefined when absent or invalid. */
export function milliOf(list: ReadonlyResources, name: string): number | undefined {
  const raw = list?.[name];
  if (raw === undefined) return undefined;
  const q = tryParseQuantity(raw);
  return q === undefined ? undefined : Number(milliValue(q));
}

/** Whole units of `name` in `list` (rounded up, as Value), or undefined when absent or invalid. */
export function valueOf(list: ReadonlyResources, name: string): number | undefined {
  const raw = list?.[name];
  if (raw === undefined) return undefined;
  const q = tryParseQuantity(raw);
  return q === undefined ? undefined : Number(quantityValue(q));
}

interface Pair {
  cpu: number;
  memory: number;
}

/** One container's request: requests, else limits (defaulting), else the default when `nonZero`. */
function containerRequest(c: ReadonlyContainer, nonZero: boolean): Pair {
  const requests = c.resources?.requests;
  const limits = c.resources?.limits;
  const cpu = milliOf(requests, 'cpu') ?? milliOf(limits, 'cpu');
  const memory = valueOf(requests, 'memory') ?? valueOf(limits, 'memory');
  return {
    cpu: cpu ?? (nonZero ? DEFAULT_MILLI_CPU_REQUEST : 0),
    memory: memory ?? (nonZero ? DEFAULT_MEMORY_REQUEST : 0),
  };
}

function aggregate(spec: Readonly<NonNullable<Pod['spec']>> | undefined, nonZero: boolean): Pair {
  const sum: Pair = { cpu: 0, memory: 0 };
  for (const c of spec?.containers ?? []) {
    const r = containerRequest(c, nonZero);
    sum.cpu += r.cpu;
    sum.memory += r.memory;
  }
  const sidecars: Pair = { cpu: 0, memory: 0 };
  const initMax: Pair = { cpu: 0, memory: 0 };
  for (const c of spec?.initContainers ?? []) {
    const r = containerRequest(c, nonZero);
    let effective: Pair;
    if (c.restartPolicy === 'Always') {
      sum.cpu += r.cpu;
      sum.memory += r.memory;
      sidecars.cpu += r.cpu;
      sidecars.memory += r.memory;
      effective = sidecars;
    } else {
      effective = { cpu: r.cpu + sidecars.cpu, memory: r.memory + sidecars.memory };
    }
    initMax.cpu = Math.max(initMax.cpu, effective.cpu);
    initMax.memory = Math.max(initMax.memory, effective.memory);
  }
  const result: Pair = { cpu: Math.max(sum.cpu, initMax.cpu), memory: Math.max(sum.memory, initMax.memory) };
  const podLevel = spec?.resources?.requests;
  result.cpu = milliOf(podLevel, 'cpu') ?? result.cpu;
  result.memory = valueOf(podLevel, 'memory') ?? result.memory;
  result.cpu += milliOf(spec?.overhead, 'cpu') ?? 0;
  result.memory += valueOf(spec?.overhead, 'memory') ?? 0;
  return result;
}

/** The effective requests of a pod (see the file comment). Invalid quantities count as absent. */
export function podRequests(pod: Readonly<Pod>): PodRequests {
  const actual = aggregate(pod.spec, false);
  const nonZero = aggregate(pod.spec, true);
  return { milliCPU: actual.cpu, memory: actual.memory, nonZeroMilliCPU: nonZero.cpu, nonZeroMemory: nonZero.memory };
}

/** What a node offers (see Allocatable). */
export function nodeAllocatable(node: Readonly<Node>): Allocatable {
  const allocatable = node.status?.allocatable;
  const capacity = node.status?.capacity;
  return {
    milliCPU: milliOf(allocatable, 'cpu') ?? milliOf(capacity, 'cpu') ?? 0,
    memory: valueOf(allocatable, 'memory') ?? valueOf(capacity, 'memory') ?? 0,
    pods: valueOf(allocatable, 'pods') ?? valueOf(capacity, 'pods') ?? 0,
  };
}
