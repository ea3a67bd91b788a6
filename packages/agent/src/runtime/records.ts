/**
 * What the process runtime keeps on disk so that an agent killed with SIGKILL finds its pods again
 * (restart safety), and how it tells its processes from others.
 *
 * Layout under the data dir (one directory per pod uid):
 *
 *   pods/<uid>/pod.json                  { namespace, name, uid, startTime }
 *   pods/<uid>/containers/<name>.json    a ContainerRecord: the running process (pid and its start
 *                                        time), the last finished run, restart count
 *   pods/<uid>/logs/<name>.log[.1]       stdout and stderr (logs.ts)
 *   pods/<uid>/rootfs/                   containers' working directories, and
 *   pods/<uid>/serviceaccount/           the pod's token, when pods run as the agent's user; when
 *                                        they run as users of their own, both are in the pods'
 *                                        directory outside the data dir (process.ts)
 *
 * Every record is written (to a temporary file, then renamed) synchronously right after the event
 * it records — a spawn, an exit — so a crash leaves either the old record or the new one.
 *
 * A process is identified by pid plus its start time (field 22 of /proc/<pid>/stat, on Linux), so
 * a recycled pid is not mistaken for a container. Every process the runtime starts leads its own
 * process group (spawned detached) and carries SETPOINT_AGENT_MARK=<mark of the data dir> in its
 * environment: a group leader carrying the mark that no record knows (the agent died between the
 * spawn and the record) is found by scanning /proc and killed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import type { ContainerStateTerminated } from '@setpoint/api';
import type { PodRef } from './runtime.js';
import type { ProcessUser } from './users.js';

/** Mode of the runtime's own directories (the data dir, pods/, each pod's and its records' and logs'). */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of the runtime's own files (records, logs and their times). */
export const PRIVATE_FILE_MODE = 0o600;

/** The environment variable that marks the processes of one data dir. */
export const MARK_ENV = 'SETPOINT_AGENT_MARK';

/** A process the runtime started. */
export interface ProcessRun {
  readonly pid: number;
  /** /proc start time (clock ticks since boot), when the platform has it. */
  readonly procStart?: string;
  /** RFC 3339. */
  readonly startedAt: string;
  readonly startedAtMs: number;
}

/** What is kept of one container. */
export interface ContainerRecord {
  readonly name: string;
  readonly init: boolean;
  readonly restartCount: number;
  /** Failures in a row since the backoff was last reset (crash-loop backoff). */
  readonly crashes: number;
  /** The running process, if one was started and its exit not yet seen. */
  readonly run?: ProcessRun;
  /** The last finished run. */
  readonly last?: ContainerStateTerminated;
  /** When the last run finished (epoch ms). */
  readonly exitedAtMs?: number;
}

/** What is kept of one pod. */
export interface PodRecord extends PodRef {
  /** RFC 3339: when the agent took the pod on. */
  readonly startTime: string;
  /** The uid and gid the pod was given (users.ts), when the agent could give one. */
  readonly user?: ProcessUser;
}

/** The mark of a data dir's processes (a hash of its absolute path). */
export function markOf(dataDir: string): string {
  return createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
}

/** The directory of pod `uid`. */
export function podDir(dataDir: string, uid: string): string {
  return join(dataDir, 'pods', uid);
}

function writeAtomically(path: string, value: unknown): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify(value), { mode: PRIVATE_FILE_MODE });
  renameSync(tmp, path);
}

/** Creates the pod's directories for records and logs (mode 0700, the agent's alone) and writes pod.json. */
export function writePodRecord(dataDir: string, pod: PodRecord): void {
  const dir = podDir(dataDir, pod.uid);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const sub of ['containers', 'logs']) mkdirSync(join(dir, sub), { recursive: true, mode: PRIVATE_DIR_MODE });
  writeAtomically(join(dir, 'pod.json'), pod);
}

/** Writes a container's record (atomically, synchronously). */
export function writeContainerRecord(dataDir: string, uid: string, record: ContainerRecord): void {
  writeAtomically(join(podDir(dataDir, uid), 'containers', `${record.name}.json`), record);
}

/** Removes everything of pod `uid` (records, logs, working directories). */
export async function removePodDir(dataDir: string, uid: string): Promise<void> {
  await rm(podDir(dataDir, uid), { recursive: true, force: true });
}

/** Every pod record under the data dir with its container records; unreadable ones are skipped and named in `skipped`. */
export function readRecords(dataDir: string): { pods: Array<{ pod: PodRecord; containers: ContainerRecord[] }>; skipped: string[] } {
  const root = join(dataDir, 'pods');
  const pods: Array<{ pod: PodRecord; containers: ContainerRecord[] }> = [];
  const skipped: string[] = [];
  if (!existsSync(root)) return { pods, skipped };
  for (const uid of readdirSync(root)) {
    const dir = join(root, uid);
    try {
      const pod = JSON.parse(readFileSync(join(dir, 'pod.json'), 'utf8')) as PodRecord;
      const containers: ContainerRecord[] = [];
      for (const file of readdirSync(join(dir, 'containers'))) {
        if (file.endsWith('.json')) containers.push(JSON.parse(readFileSync(join(dir, 'containers', file), 'utf8')) as ContainerRecord);
      }
      pods.push({ pod, containers });
    } catch {
      skipped.push(dir);
    }
  }
  return { pods, skipped };
}

// ---------------------------------------------------------------------------------------------
// Processes

function procStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses; split after the last ')'.
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The process's start time from /proc (field 22), or undefined where there is no /proc. */
export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/**
 * Whether `run` is still the same live process: the pid exists, is not a zombie, and (where /proc
 * tells) started when the record says.
 */
export function isAlive(run: Pick<ProcessRun, 'pid' | 'procStart'>): boolean {
  try {
    process.kill(run.pid, 0);
  } catch {
    return false;
  }
  const stat = procStat(run.pid);
  if (stat === undefined) return !existsSync('/proc/self/stat'); // no /proc: trust kill(0)
  if (stat[0] === 'Z' || stat[0] === 'X') return false;
  return run.procStart === undefined || stat[19] === run.procStart;
}

/** Sends `signal` to process group `pgid`; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/**
 * Sends `signal` to the process group `run` leads, if that group is still the run's: while the
 * leader lives, or after it is gone entirely (a pid is not reused while its group has members).
 * When the pid belongs to another process now, nothing is sent. False when nothing was signalled.
 */
export function signalRunGroup(run: Pick<ProcessRun, 'pid' | 'procStart'>, signal: NodeJS.Signals): boolean {
  if (isAlive(run)) return signalGroup(run.pid, signal);
  try {
    process.kill(run.pid, 0);
    return false; // a zombie, or another process under a recycled pid
  } catch {
    return signalGroup(run.pid, signal);
  }
}

/** Process group leaders (pid = pgid) whose environment carries MARK_ENV=`mark`. Empty where there is no /proc. */
export function markedGroupLeaders(mark: string): number[] {
  if (!existsSync('/proc/self/environ')) return [];
  const needle = `${MARK_ENV}=${mark}`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      if (!env.includes(needle)) continue;
      const stat = procStat(pid);
      if (stat !== undefined && Number(stat[2]) === pid && stat[0] !== 'Z') found.push(pid);
    } catch {
      // not ours to read, or gone meanwhile
    }
  }
  return found;
}
