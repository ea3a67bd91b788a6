/**
 * The namespace controller: empties a namespace being deleted, then releases it (Kubernetes'
 * pkg/controller/namespace).
 *
 * Expected flow for a Namespace with a deletionTimestamp (phase Terminating):
 * 1. read it live (several controllers may edit a terminating namespace); make its phase
 *    Terminating if it is not; stop if spec.finalizers is already empty;
 * 2. delete every namespaced object in it, of every served kind (see content.ts);
 * 3. write what blocks into status.conditions (see conditions.ts), only when it changed;
 * 4. errors: retry with backoff; content still going (finalizers, pods in their grace period):
 *    look again with backoff; nothing left: remove the `kubernetes` finalizer through
 *    PUT /api/v1/namespaces/{name}/finalize. The API server deletes the namespace once its
 *    spec.finalizers and metadata.finalizers are both empty.
 *
 * Divergence: Kubernetes looks again estimate/2 + 1 s later (8 s for finalizers); this controller
 * retries with its per-key backoff (5 ms doubling, at most `maxRetryDelayMs`), so a namespace is
 * released soon after its last finalizer goes.
 */
import { isApiError, type Logger, type Namespace, type NamespaceStatus } from '@setpoint/api';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  builtin,
  predicate,
  resourcePath,
  retryOnConflict,
  type Client,
  type Controller,
  type Manager,
  type ReconcileResult, checkNamespace,
} from '@setpoint/client';
import { readPreferredResources, type DiscoveryResult } from '../gc/discovery.js';
import { failingConditions, mergeNamespaceConditions, type ContentObservation } from './conditions.js';
import { deleteAllContent } from './content.js';

export * from './conditions.js';
export { deleteAllContent, FINALIZER_ESTIMATE_SECONDS, type ContentDeletion } from './content.js';

/** The finalizer token this controller owns in a namespace's spec.finalizers. */
export const KUBERNETES_FINALIZER = 'kubernetes';

/** Options of the namespace controller; every one has a default. */
export interface NamespaceControllerOptions {
  /** Namespaces processed at once. Default 10 (kube-controller-manager's --concurrent-namespace-syncs). */
  readonly workers?: number;
  /** The longest wait before a namespace is looked at again. Default 60,000 ms (Kubernetes' cap). */
  readonly maxRetryDelayMs?: number;
  /** Reads the served kinds. Default readPreferredResources(manager.client.discovery), fresh each pass. */
  readonly discover?: () => Promise<DiscoveryResult>;
}

/** Registers the namespace controller on `manager` (leader-elected) and returns it. */
export function registerNamespaceController(manager: Manager, options: NamespaceControllerOptions = {}): Controller {
  const client = manager.client;
  const namespaces = manager.reader<Namespace>(builtin.namespaces);
  const discover = options.discover ?? (() => readPreferredResources(client.discovery));
  const terminating = (ns: Readonly<Namespace>) => ns.metadata.deletionTimestamp !== undefined;
  return manager
    .controller('namespace')
    .for(builtin.namespaces, { predicates: [predicate<Namespace>(terminating)] })
    .withConcurrency(options.workers ?? 10)
    .withRateLimiter(
      new MaxOfRateLimiter<string>(
        new ItemExponentialFailureRateLimiter<string>({ baseMs: 5, maxMs: options.maxRetryDelayMs ?? 60_000 }),
        new BucketRateLimiter<string>({ qps: 10, burst: 100, clock: manager.clock }),
      ),
    )
    .reconcile(async ({ name }, { logger }) => {
      const cached = namespaces.get('', name);
      if (cached === undefined || !terminating(cached)) return undefined;
      checkNamespace(cached);
      return syncNamespace(client, name, { discover, now: () => manager.clock.now(), logger });
    });
}

interface SyncContext {
  readonly discover: () => Promise<DiscoveryResult>;
  readonly now: () => number;
  readonly logger: Logger;
}

/** One pass over a terminating namespace (steps 1–4 of the file comment). Throws when the pass failed. */
export async function syncNamespace(client: Client, name: string, ctx: SyncContext): Promise<ReconcileResult> {
  const api = client.namespaces();
  let ns = await api.get(name).catch(notFoundAsUndefined);
  if (ns === undefined || ns.metadata.deletionTimestamp === undefined) return undefined;
  checkNamespace(ns);
  if (ns.status?.phase !== 'Terminating') {
    ns = await retryOnConflict(async () => {
      const fresh = await api.get(name);
      return fresh.status?.phase === 'Terminating' ? fresh : api.updateStatus({ ...fresh, status: { ...fresh.status, phase: 'Terminating' } });
    }).catch(notFoundAsUndefined);
    if (ns === undefined) return undefined;
  }
  if ((ns.spec?.finalizers ?? []).length === 0) return undefined;
  const content = await deleteAllContent(client, ns, ctx.discover, ctx.now());
  await writeConditions(client, ns, content.observation, ctx);
  if (content.errors.length > 0) {
    const messages = content.errors.map((e) => e.message);
    throw new Error(messages.length === 1 ? messages[0] : `[${messages.join(', ')}]`, { cause: content.errors[0] });
  }
  if (content.estimateSeconds > 0) {
    ctx.logger.info({ namespace: name, estimateSeconds: content.estimateSeconds }, 'content remains in the namespace; looking again later');
    return { requeue: true };
  }
  await finalize(client, ns);
  return undefined;
}

/** Writes the conditions the observation calls for, when they differ from the namespace's. Failures are logged. */
async function writeConditions(client: Client, ns: Namespace, observation: ContentObservation, ctx: SyncContext): Promise<void> {
  const api = client.namespaces();
  const failing = failingConditions(observation);
  const now = new Date(ctx.now()).toISOString().replace(/\.\d+Z$/, 'Z');
  let current = ns;
  let first = true;
  try {
    await retryOnConflict(async () => {
      if (!first) current = await api.get(ns.metadata.name ?? '');
      first = false;
      const { conditions, changed } = mergeNamespaceConditions(current.status?.conditions, failing, now);
      if (!changed) return;
      const status: NamespaceStatus = { ...current.status, conditions };
      await api.updateStatus({ ...current, status });
    });
  } catch (err) {
    if (!isApiError(err, 'NotFound')) ctx.logger.warn({ err, namespace: ns.metadata.name }, "couldn't update status conditions of the namespace");
  }
}

/** Removes the `kubernetes` token from spec.finalizers through the finalize subresource (re-read on conflict). */
async function finalize(client: Client, ns: Namespace): Promise<void> {
  const name = ns.metadata.name ?? '';
  let current = ns;
  let first = true;
  await retryOnConflict(async () => {
    if (!first) current = await client.namespaces().get(name);
    first = false;
    const finalizers = [...new Set((current.spec?.finalizers ?? []).filter((f) => f !== KUBERNETES_FINALIZER))].sort();
    const body: Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: current.metadata, spec: { ...current.spec, finalizers } };
    await client.http.request({ method: 'PUT', path: resourcePath(builtin.namespaces, { name, subresource: 'finalize' }), body });
  }).catch((err: unknown) => {
    if (!isApiError(err, 'NotFound')) throw err;
  });
}

function notFoundAsUndefined(err: unknown): undefined {
  if (isApiError(err, 'NotFound')) return undefined;
  throw err;
}
