/**
 * The namespaces every cluster has (default, kube-system, kube-public, kube-node-lease): they
 * cannot be deleted, and they come back when they go missing anyway.
 *
 * - `systemNamespaceDeletion` is the delete half of kube-apiserver's NamespaceLifecycle admission:
 *   DELETE of one of them is a 403 `namespaces "default" is forbidden: this namespace may not be
 *   deleted` (kube-apiserver protects default, kube-system and kube-public; Setpoint also
 *   kube-node-lease, where node heartbeats live). A delete of the whole collection of namespaces is
 *   a 405, as kube-apiserver, which serves no deletecollection on namespaces, answers.
 * - `createMissingSystemNamespaces` creates them at start;
 * - `SystemNamespacesLoop` is kube's system namespaces controller: every minute (on the injected
 *   clock) it creates whichever of them is missing (removed straight from the store, or finalized
 *   after a deletion that started before this rule).
 */
import { ApiError, silentLogger, type Clock, type Logger, type Timer } from '@setpoint/api';
import type { Store } from '@setpoint/store';
import type { ResourceRequestInfo } from '../http/requestinfo.js';
import { objectKey } from '../storage/codec.js';
import type { ResourceStorage } from '../storage/rest.js';

/** The namespaces every cluster has, created at start and never deleted. */
export const SYSTEM_NAMESPACES: readonly string[] = Object.freeze(['default', 'kube-system', 'kube-public', 'kube-node-lease']);

/** How often missing system namespaces are created again: kube's system namespaces controller's minute. */
export const SYSTEM_NAMESPACES_INTERVAL_MS = 60_000;

/**
 * The error a request deleting a system namespace gets (403), or a delete of every namespace at
 * once (405); undefined for every other request.
 */
export function systemNamespaceDeletion(info: ResourceRequestInfo): ApiError | undefined {
  if (info.group !== '' || info.resource !== 'namespaces' || info.subresource !== '') return undefined;
  if (info.verb === 'deletecollection') return new ApiError('MethodNotAllowed', 'the server does not allow this method on the requested resource');
  if (info.verb === 'delete' && SYSTEM_NAMESPACES.includes(info.name)) return ApiError.forbidden({ group: '', resource: 'namespaces' }, info.name, 'this namespace may not be deleted');
  return undefined;
}

/**
 * Creates the system namespaces that are missing (read straight from `store`, so a namespace the
 * cache has not seen yet is not created twice); resolves with those it created.
 */
export async function createMissingSystemNamespaces(namespaces: ResourceStorage, store: Store): Promise<string[]> {
  const created: string[] = [];
  for (const name of SYSTEM_NAMESPACES) {
    const existing = await store.get(objectKey(namespaces.def, '', name));
    if (existing !== undefined) continue;
    try {
      await namespaces.create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      created.push(name);
    } catch (err) {
      if (!(err instanceof ApiError && err.reason === 'AlreadyExists')) throw err;
    }
  }
  return created;
}

export interface SystemNamespacesLoopOptions {
  readonly clock: Clock;
  readonly logger?: Logger;
  /** Default SYSTEM_NAMESPACES_INTERVAL_MS. */
  readonly intervalMs?: number;
}

/**
 * Runs `ensure` (create the missing system namespaces) every interval until stopped. A failing
 * round is logged and the next one tries again; rounds never overlap.
 */
export class SystemNamespacesLoop {
  private readonly ensure: () => Promise<void>;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly intervalMs: number;
  private timer: Timer | undefined;
  private stopped = false;
  private round: Promise<void> | undefined;

  constructor(ensure: () => Promise<void>, options: SystemNamespacesLoopOptions) {
    this.ensure = ensure;
    this.clock = options.clock;
    this.logger = (options.logger ?? silentLogger).child({ component: 'system-namespaces' });
    this.intervalMs = options.intervalMs ?? SYSTEM_NAMESPACES_INTERVAL_MS;
  }

  /** Schedules the first round one interval from now (the server ensured them at start). */
  start(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.schedule();
  }

  /** Stops the loop; resolves once a round under way has finished. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.round;
  }

  private schedule(): void {
    this.timer = this.clock.setTimeout(() => {
      this.round = this.run();
    }, this.intervalMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    try {
      await this.ensure();
    } catch (err) {
      if (!this.stopped) this.logger.warn({ err }, 'creating the system namespaces failed; trying again later');
    }
    if (!this.stopped) this.schedule();
  }
}
