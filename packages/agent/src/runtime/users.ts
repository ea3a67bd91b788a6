/**
 * Who a pod's processes run as on the process runtime, which has no user namespace, no mount
 * namespace and no image file system: the uid and gid are the host's own.
 *
 * The choice, when the agent may change user (root, or CAP_SETUID + CAP_SETGID + CAP_CHOWN):
 *
 * - Each pod gets a uid and gid of its own from a range (a "slot": uid = first uid + slot, gid =
 *   first gid + slot), kept in its record so an agent restart keeps it, and given back when the pod
 *   is killed. One uid per pod, not one for all pods: processes of one uid can signal and ptrace
 *   each other and read each other's /proc/<pid>/environ (where env-from-Secret values are) and
 *   files, so a shared uid would let any pod reach every other pod.
 * - The range: the entries for user `setpoint` in /etc/subuid and /etc/subgid when there are (the
 *   subordinate ids rootless runtimes map their containers to; the kubelet reads its `kubelet`
 *   user's the same way for user-namespaced pods), else DEFAULT_POD_ID_RANGE: 65,536 ids from
 *   1879048192 (0x70000000), above useradd's subordinate-id ranges (100000–600100000) and
 *   systemd-nspawn's container ranges (524288–1879048191), where no distribution allocates users.
 * - `securityContext.runAsUser` / `runAsGroup` (the container's over the pod's) replace the pod's
 *   uid or gid. runAsUser without runAsGroup keeps the pod's own gid (an image would give its
 *   passwd entry's group, often root's; there is no image here, and group 0 is not given unasked).
 *   uid 0 runs only when asked for in so many words (`runAsUser: 0`). `runAsNonRoot: true` with
 *   uid 0 is refused, with the kubelet's message.
 *
 * When the agent cannot change user, every process runs as the agent's own uid and gid (stated
 * once at start); a runAsUser or runAsGroup other than the agent's own is refused
 * (CreateContainerConfigError) rather than silently not applied.
 */
import { readFileSync } from 'node:fs';
import type { Container, Pod } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import { ContainerConfigError } from './env.js';

/** A uid (or gid) and group to run a process as. */
export interface ProcessUser {
  readonly uid: number;
  readonly gid: number;
}

/** A range of ids: `first` … `first + count - 1`. */
export interface IdRange {
  readonly first: number;
  readonly count: number;
}

/** The ranges pods' uids and gids are taken from when nothing else says (see the file comment). */
export const DEFAULT_POD_ID_RANGE: IdRange = { first: 0x70000000, count: 65_536 };

/** The user whose /etc/subuid and /etc/subgid entries give the pods' ranges. */
export const SUBID_USER = 'setpoint';

/** Linux capability numbers the runtime needs to run pods as other users. */
const CAP_CHOWN = 0;
const CAP_SETGID = 6;
const CAP_SETUID = 7;

/**
 * Whether this process may run children as other users and give them files: on Linux, the
 * effective capabilities CAP_SETUID, CAP_SETGID and CAP_CHOWN (/proc/self/status); elsewhere,
 * uid 0.
 */
export function canChangeUser(): boolean {
  if (process.getuid === undefined) return false;
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return process.getuid() === 0;
  }
  const hex = /^CapEff:\s*([0-9a-f]+)$/m.exec(status)?.[1];
  if (hex === undefined) return process.getuid() === 0;
  const caps = BigInt(`0x${hex}`);
  return [CAP_CHOWN, CAP_SETGID, CAP_SETUID].every((bit) => (caps >> BigInt(bit)) & 1n);
}

/** This process's own uid and gid (0/0 where the platform has none). */
export function ownUser(): ProcessUser {
  return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
}

/**
 * The first range of `user` in a subordinate-id file's text (`name-or-uid:first:count` lines), or
 * undefined. Malformed lines are skipped.
 */
export function parseSubIds(text: string, user: string, userUid?: number): IdRange | undefined {
  for (const line of text.split('\n')) {
    const [name, first, count] = line.trim().split(':');
    if (name === undefined || first === undefined || count === undefined) continue;
    if (name !== user && (userUid === undefined || name !== String(userUid))) continue;
    if (!/^\d+$/.test(first) || !/^\d+$/.test(count)) continue;
    const range = { first: Number(first), count: Number(count) };
    if (range.count > 0 && range.first > 0 && range.first + range.count <= 2 ** 32 - 1) return range;
  }
  return undefined;
}

function readRange(path: string): IdRange | undefined {
  try {
    return parseSubIds(readFileSync(path, 'utf8'), SUBID_USER);
  } catch {
    return undefined;
  }
}

/** The uid and gid ranges pods are given: /etc/subuid and /etc/subgid for user `setpoint`, else the default. */
export function podIdRanges(): { readonly uids: IdRange; readonly gids: IdRange; readonly source: string } {
  const uids = readRange('/etc/subuid');
  const gids = readRange('/etc/subgid');
  if (uids !== undefined && gids !== undefined) return { uids, gids, source: `/etc/subuid and /etc/subgid (user ${SUBID_USER})` };
  return { uids: DEFAULT_POD_ID_RANGE, gids: DEFAULT_POD_ID_RANGE, source: 'the default range' };
}

/**
 * The uids and gids of the pods of one runtime: a slot per pod (see the file comment). Not safe
 * across processes: one agent per data dir.
 */
export class PodUsers {
  readonly #uids: IdRange;
  readonly #gids: IdRange;
  readonly #taken = new Map<string, number>();

  constructor(uids: IdRange, gids: IdRange) {
    this.#uids = uids;
    this.#gids = gids;
  }

  /** How many pods can have a user at once. */
  get capacity(): number {
    return Math.min(this.#uids.count, this.#gids.count);
  }

  /**
   * Keeps `user` (read from a pod's record) for pod `podUid` when it is a slot of these ranges
   * that no other pod holds; returns whether it did.
   */
  adopt(podUid: string, user: ProcessUser): boolean {
    const slot = user.uid - this.#uids.first;
    if (slot < 0 || slot >= this.capacity || user.gid !== this.#gids.first + slot) return false;
    for (const [uid, s] of this.#taken) if (s === slot && uid !== podUid) return false;
    this.#taken.set(podUid, slot);
    return true;
  }

  /** The user of pod `podUid`: the one it holds, else the lowest free slot. Throws RangeError when every slot is taken. */
  allocate(podUid: string): ProcessUser {
    let slot = this.#taken.get(podUid);
    if (slot === undefined) {
      const used = new Set(this.#taken.values());
      slot = 0;
      while (used.has(slot)) slot++;
      if (slot >= this.capacity) throw new RangeError(`every one of the ${this.capacity} pod users is taken`);
      this.#taken.set(podUid, slot);
    }
    return { uid: this.#uids.first + slot, gid: this.#gids.first + slot };
  }

  /** Gives pod `podUid`'s slot back (the pod is gone). */
  release(podUid: string): void {
    this.#taken.delete(podUid);
  }
}

function idField(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && value <= 2 ** 32 - 2 ? value : undefined;
}

/**
 * The user one container of `pod` runs as: runAsUser / runAsGroup of the container, else of the
 * pod, else `podUser` (the pod's own, or the agent's when it cannot change user). Throws
 * ContainerConfigError for runAsNonRoot with uid 0, and, when `changeable` is false, for a uid or
 * gid other than `podUser`'s.
 */
export function containerUser(pod: DeepReadonly<Pod>, container: DeepReadonly<Container>, podUser: ProcessUser, changeable: boolean): ProcessUser {
  const own = container.securityContext;
  const shared = pod.spec?.securityContext;
  const asked = { uid: idField(own?.runAsUser) ?? idField(shared?.runAsUser), gid: idField(own?.runAsGroup) ?? idField(shared?.runAsGroup) };
  const user = { uid: asked.uid ?? podUser.uid, gid: asked.gid ?? podUser.gid };
  const nonRoot = own?.runAsNonRoot ?? shared?.runAsNonRoot;
  if (nonRoot === true && user.uid === 0) {
    throw new ContainerConfigError(`container has runAsNonRoot and image will run as root (pod: "${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? ''}(${pod.metadata.uid ?? ''})", container: ${container.name})`);
  }
  if (!changeable && (user.uid !== podUser.uid || user.gid !== podUser.gid)) {
    throw new ContainerConfigError(`cannot run as uid ${user.uid}, gid ${user.gid}: the node agent runs as uid ${podUser.uid}, gid ${podUser.gid} and cannot change user`);
  }
  return user;
}
