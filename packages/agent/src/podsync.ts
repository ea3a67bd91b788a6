/**
 * Pod sync: the node's reconcile loop over its pods, level-triggered. An informer holds the pods
 * bound to the node (field selector spec.nodeName=<node>); the reconcile gets a pod's key, never
 * the event, reads the pod from the cache and makes the runtime match it:
 *
 * - a pod the runtime runs under that name with another uid (deleted, force-deleted, replaced) is
 *   killed;
 * - a pod with a deletionTimestamp is killed with its grace period (SIGTERM, then SIGKILL), and once
 *   nothing of it runs, deleted for good (gracePeriodSeconds 0, uid precondition);
 * - a pod in a final phase (Succeeded, Failed) is never run again;
 * - otherwise the runtime syncs it and the status it observes is written — only when it changed
 *   (updateStatusIfChanged), so a synced pod costs no writes.
 *
 * A pod of a shape the API would refuse (stored by an older or buggy server) is not run: its
 * reconcile fails with a MalformedObjectError (logged with the key, counted, retried with backoff)
 * while every other pod keeps syncing. It is still killed and deleted when it is deleted.
 *
 * The runtime's own events (an exit, a probe result, the end of a delay) enqueue the pod's key;
 * kills run in the background and enqueue the key when done, so a long grace period holds no
 * worker. Pods the runtime recovered after a restart are enqueued at start, so those that no longer
 * exist are found and killed.
 */
import { isApiError, type Pod } from '@setpoint/api';
import { builtin, checkPod, predicate, updateStatusIfChanged, type Client, type Controller, type DeepReadonly, type Manager } from '@setpoint/client';
import { rfc3339, type PodRef, type PodRuntime } from './runtime/runtime.js';
import { isTerminalPhase, podStatus, type PodAddresses } from './runtime/status.js';

/** Options of addPodSync; each default is stated on its field. */
export interface PodSyncOptions {
  readonly manager: Manager;
  readonly client: Pick<Client, 'pods'>;
  readonly runtime: PodRuntime;
  /** The informer's field selector: "spec.nodeName=<node>" for one node. */
  readonly fieldSelector: string;
  /** Which of the informer's pods are this sync's (for many nodes on one informer). Default all. */
  readonly owns?: (pod: DeepReadonly<Pod>) => boolean;
  /** The IPs reported. Default 127.0.0.1 for both. */
  readonly addresses?: PodAddresses;
  /** Pods reconciled at once. Default 4. */
  readonly concurrency?: number;
  /** The grace period of a pod that is gone from the API while something of it runs. Default 2000 ms. */
  readonly orphanGracePeriodMs?: number;
  /** The controller's name. Default "podsync". */
  readonly name?: string;
}

/** The longest delay a timer takes (2^31 - 1 ms, about 24.8 days); longer ones fire at once in Node.js. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The grace period of a pod being deleted, in ms: deletionGracePeriodSeconds, else the spec's,
 * else 30 s. A value that is not a finite number (a malformed object) is skipped; the result is
 * at most MAX_TIMER_MS, so a huge one (2^63) waits that long rather than not at all.
 */
export function gracePeriodMs(pod: DeepReadonly<Pod>): number {
  const seconds = [pod.metadata.deletionGracePeriodSeconds, pod.spec?.terminationGracePeriodSeconds].find((v) => typeof v === 'number' && Number.isFinite(v)) ?? 30;
  return Math.min(Math.max(0, seconds) * 1000, MAX_TIMER_MS);
}

/** Adds the pod sync controller to `manager` (see the file comment) and returns it. */
export function addPodSync(options: PodSyncOptions): Controller {
  const { manager, runtime } = options;
  const pods = options.client.pods();
  const owns = options.owns ?? (() => true);
  const addresses = options.addresses ?? { hostIP: '127.0.0.1', podIP: '127.0.0.1' };
  const orphanGraceMs = options.orphanGracePeriodMs ?? 2000;
  const selectors = { fieldSelector: options.fieldSelector };
  const reader = manager.reader<Pod>(builtin.pods, selectors);
  const logger = manager.logger.child({ controller: options.name ?? 'podsync' });
  const enqueue = (ref: PodRef) => controller.enqueue({ namespace: ref.namespace, name: ref.name });

  /** Starts killing `ref` (joining a kill in progress); its key is enqueued when it is done. */
  const kill = (ref: PodRef, graceMs: number) => {
    runtime.killPod(ref.uid, graceMs).then(
      () => enqueue(ref),
      (err: unknown) => {
        logger.error({ err, pod: `${ref.namespace}/${ref.name}`, uid: ref.uid }, 'killing the pod failed; retrying');
        controller.queue.addRateLimited(`${ref.namespace}/${ref.name}`);
      },
    );
  };

  const controller = manager
    .controller(options.name ?? 'podsync')
    .for<Pod>(builtin.pods, { ...selectors, predicates: [predicate<Pod>((pod) => owns(pod as DeepReadonly<Pod>))] })
    .withConcurrency(options.concurrency ?? 4)
    .reconcile(async ({ namespace, name }) => {
      const cached = reader.get(namespace, name);
      const pod = cached !== undefined && owns(cached) ? cached : undefined;
      const uid = pod?.metadata.uid;
      const held = runtime.podsNamed(namespace, name);
      for (const ref of held) if (ref.uid !== uid) kill(ref, orphanGraceMs);
      if (pod === undefined || uid === undefined) return;
      const running = held.some((ref) => ref.uid === uid);

      if (pod.metadata.deletionTimestamp !== undefined) {
        if (running) {
          kill({ namespace, name, uid }, gracePeriodMs(pod));
          return;
        }
        try {
          await pods.delete(name, { namespace, gracePeriodSeconds: 0, preconditions: { uid } });
          logger.info({ pod: `${namespace}/${name}`, uid }, 'pod stopped; deleted it');
        } catch (err) {
          if (!isApiError(err, 'NotFound') && !isApiError(err, 'Conflict')) throw err;
        }
        return;
      }
      if (isTerminalPhase(pod.status?.phase) && !running) return;

      // A malformed pod (containers [null], a command that is not a list of strings…) is never
      // run: the error names the field, the runtime logs and counts it and retries with backoff.
      checkPod(pod as Pod);
      const observation = await runtime.syncPod(pod);
      if (runtime.isTerminating(uid)) return;
      const status = podStatus(pod, observation, rfc3339(manager.clock.now()), addresses);
      try {
        await updateStatusIfChanged(pods, pod as Pod, status);
      } catch (err) {
        if (isApiError(err, 'Conflict')) return { requeue: true }; // the cache was behind; read again
        if (isApiError(err, 'NotFound')) return;
        throw err;
      }
      return;
    });

  runtime.onChange(enqueue);
  for (const ref of runtime.pods()) enqueue(ref);
  return controller;
}
