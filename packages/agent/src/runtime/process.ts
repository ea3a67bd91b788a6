/**
 * ProcessRuntime: a PodRuntime that runs each container as a local process — the command and args
 * (no shell), the environment of env.ts, the working directory under the pod's directory in the
 * data dir, stdout and stderr to size-capped log files (logs.ts). The image is recorded in the
 * status, never pulled; resource requests and limits are recorded, never enforced.
 *
 * Expected flow: as PodRuntime. `start()` reads the records a previous agent left (records.ts),
 * adopts the processes still alive, and kills marked processes no record knows; pods are bound to
 * their spec at their first `syncPod`, or killed by `killPod` when they no longer exist.
 *
 * Guarantees: init containers run one at a time, in order, each to success before the next; app
 * containers start together once they all succeeded; a container never has two processes; nothing
 * starts for a pod that is being killed. Every process leads its own process group, and stopping a
 * container signals the whole group.
 *
 * Containment (users.ts, workdir.ts): when the agent may change user, each pod's processes run as
 * a uid and gid of the pod's own (or its securityContext's runAsUser/runAsGroup), never as the
 * agent. The data dir (records, logs) is the agent's: every directory 0700, every file 0600. What
 * a pod may reach lives outside it, in the pods' directory (`podsRoot`, mode 0711: enterable, not
 * listable): `<podsRoot>/<uid>/` (0711, the agent's) holds `rootfs/` (the working directories)
 * and `serviceaccount/`, both the pod's user's (0700; 0750 when its containers run as different
 * uids). A pod's processes reach them by absolute path, and nothing of another pod. workingDir
 * stays inside rootfs/. When the agent cannot change user, processes run as the agent and can
 * read whatever the agent can (said once, at start), and rootfs/ and serviceaccount/ stay in the
 * pod's directory of the data dir.
 */
import { accessSync, chmodSync, chownSync, constants as fsConstants, mkdirSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { realClock, silentLogger, type Clock, type Container, type Logger, type Pod, type Timer } from '@setpoint/api';
import type { Client, DeepReadonly } from '@setpoint/client';
import { ContainerRunner, type CrashLoopBackoffOptions, type Launch } from './container.js';
import { configSourceOf, containerArgv, containerEnv, type ConfigSource } from './env.js';
import type { LogInstance } from './logreader.js';
import { ContainerLog, containerLogPath, DEFAULT_MAX_LOG_BYTES } from './logs.js';
import { chooseLogInstance, ContainerLogError, type ContainerLogSource } from './logsource.js';
import {
  isAlive,
  MARK_ENV,
  markOf,
  markedGroupLeaders,
  podDir,
  PRIVATE_DIR_MODE,
  readRecords,
  removePodDir,
  signalGroup,
  writeContainerRecord,
  writePodRecord,
  type ContainerRecord,
  type PodRecord,
} from './records.js';
import { rfc3339, type PodObservation, type PodRef, type PodRuntime } from './runtime.js';
import type { IdentityOwner, PodIdentities } from './serviceaccount.js';
import { canChangeUser, containerUser, ownUser, podIdRanges, PodUsers, type IdRange, type ProcessUser } from './users.js';
import { prepareWorkingDir, workingDirComponents } from './workdir.js';

/** Options of a ProcessRuntime; each default is stated on its field. */
export interface ProcessRuntimeOptions {
  /** Reads the ConfigMaps and Secrets that env and envFrom name. */
  readonly client: Pick<Client, 'configMaps' | 'secrets'>;
  /** Where pods' records, logs and working directories live (created if missing). */
  readonly dataDir: string;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** The pod IP reported, used by probes and the downward API. Default 127.0.0.1. */
  readonly podIP?: string;
  /** The host IP reported. Default 127.0.0.1. */
  readonly hostIP?: string;
  /** Crash-loop backoff. Default 10 s doubling to 5 min, reset after 10 min of running. */
  readonly backoff?: CrashLoopBackoffOptions;
  /** Size cap of one log file. Default 10 MiB. */
  readonly maxLogBytes?: number;
  /** How often log files are checked for rotation. Default 2000 ms. */
  readonly logCheckIntervalMs?: number;
  /** How often a process adopted after a restart is checked for life. Default 1000 ms. */
  readonly adoptedPollMs?: number;
  /** The environment every container starts from. Default { PATH } of the agent. */
  readonly baseEnv?: Readonly<Record<string, string>>;
  /**
   * Gives each pod its ServiceAccount identity (serviceaccount.ts) before its containers start;
   * the runtime forgets a pod's identity when it kills the pod, and closes this when it closes.
   * Default none: pods get no token and no KUBERNETES_SERVICE_* variables.
   */
  readonly identities?: PodIdentities;
  /**
   * Run each pod as a user of its own (users.ts). Default: when the agent may (root, or the
   * capabilities to change user); true when it may not makes every container fail to start.
   */
  readonly podUsers?: boolean;
  /** Where pods' uids and gids come from. Default /etc/subuid and /etc/subgid for user `setpoint`, else DEFAULT_POD_ID_RANGE. */
  readonly podIdRanges?: { readonly uids: IdRange; readonly gids: IdRange };
  /**
   * When pods run as users of their own: the directory of their working directories and
   * ServiceAccount files (made mode 0711). Outside the data dir, and every directory above it must
   * be enterable by every user (the agent warns at start when one is not). Default DEFAULT_PODS_ROOT.
   */
  readonly podsRoot?: string;
}

/** Where pods that run as users of their own keep their files, unless told otherwise. */
export const DEFAULT_PODS_ROOT = '/var/lib/setpoint/pods';

/**
 * Where a process runtime on `dataDir` keeps pod `uid`'s rootfs/ and serviceaccount/: in the pods'
 * directory (`podsRoot`, default DEFAULT_PODS_ROOT) when this process may change user, else in the
 * pod's directory of the data dir. What ProcessRuntime#podFilesDir answers, for those without the instance.
 */
export function podFilesDir(dataDir: string, uid: string, podsRoot: string = DEFAULT_PODS_ROOT): string {
  return canChangeUser() ? join(resolve(podsRoot), uid) : podDir(dataDir, uid);
}
/** Mode of the pods' directory and of each pod's in it: every user may enter, none may list. */
const ENTER_ONLY_MODE = 0o711;

interface PodState {
  readonly ref: PodRef;
  readonly record: PodRecord;
  /** What a previous agent recorded, until the pod is bound to its spec. */
  recovered: ContainerRecord[];
  init: ContainerRunner[];
  containers: ContainerRunner[];
  bound: boolean;
  terminating?: Promise<void>;
}

/** A PodRuntime of local processes (see the file comment); it keeps its containers' logs. */
export class ProcessRuntime implements PodRuntime, ContainerLogSource {
  readonly dataDir: string;
  readonly #o: ProcessRuntimeOptions;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #source: ConfigSource;
  readonly #mark: string;
  readonly #podIP: string;
  readonly #hostIP: string;
  readonly #pods = new Map<string, PodState>();
  /** Whether pods run as users of their own. */
  readonly #changeUser: boolean;
  readonly #users: PodUsers;
  readonly #idSource: string;
  /** Where pods' rootfs/ and serviceaccount/ live when pods run as users of their own. */
  readonly #podsRoot: string;
  #listener: (pod: PodRef) => void = () => {};
  #logTimer: Timer | undefined;
  #closed = false;

  constructor(options: ProcessRuntimeOptions) {
    this.#o = options;
    this.dataDir = options.dataDir;
    this.#clock = options.clock ?? realClock;
    this.#logger = options.logger ?? silentLogger;
    this.#source = configSourceOf(options.client);
    this.#mark = markOf(options.dataDir);
    this.#podIP = options.podIP ?? '127.0.0.1';
    this.#hostIP = options.hostIP ?? '127.0.0.1';
    this.#changeUser = options.podUsers ?? canChangeUser();
    const ranges = options.podIdRanges === undefined ? podIdRanges() : { ...options.podIdRanges, source: 'the runtime options' };
    this.#idSource = ranges.source;
    this.#users = new PodUsers(ranges.uids, ranges.gids);
    this.#podsRoot = resolve(options.podsRoot ?? DEFAULT_PODS_ROOT);
  }

  /** The directory of pod `uid`'s rootfs/ and serviceaccount/ (see the file comment). */
  podFilesDir(uid: string): string {
    return this.#changeUser ? join(this.#podsRoot, uid) : podDir(this.dataDir, uid);
  }

  /** Makes pod `uid`'s files directory (podFilesDir) and its rootfs/, if missing. */
  #makePodFiles(uid: string): void {
    const dir = this.podFilesDir(uid);
    mkdirSync(dir, { recursive: true, mode: this.#changeUser ? ENTER_ONLY_MODE : PRIVATE_DIR_MODE });
    mkdirSync(join(dir, 'rootfs'), { recursive: true, mode: PRIVATE_DIR_MODE });
  }

  /** Warns when some user could not reach the pods' directory by its path (a directory above it not enterable by others). */
  #checkPodsRoot(): void {
    for (let dir = dirname(this.#podsRoot); ; dir = dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) {
        this.#logger.warn({ podsRoot: this.#podsRoot, dir }, "a directory above the pods' directory is not enterable by other users: pods cannot reach their working directories by path");
        return;
      }
      if (dirname(dir) === dir) return;
    }
  }

  async start(): Promise<void> {
    for (const dir of [this.dataDir, join(this.dataDir, 'pods')]) {
      mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
      chmodSync(dir, PRIVATE_DIR_MODE);
    }
    const own = ownUser();
    if (this.#changeUser) {
      mkdirSync(this.#podsRoot, { recursive: true, mode: ENTER_ONLY_MODE });
      chmodSync(this.#podsRoot, ENTER_ONLY_MODE);
      accessSync(this.#podsRoot, fsConstants.W_OK);
      this.#checkPodsRoot();
      this.#logger.info({ uid: own.uid, source: this.#idSource, capacity: this.#users.capacity, podsRoot: this.#podsRoot }, "pods run as users of their own (a uid and gid per pod, or their securityContext's runAsUser/runAsGroup); they cannot read the data dir");
    } else {
      this.#logger.warn({ uid: own.uid, gid: own.gid }, "the agent cannot change user (not root): every pod runs as the agent's own uid and gid and can read what the agent can, its data dir and other pods' files included (packages/agent/README.md)");
    }
    const { pods, skipped } = readRecords(this.dataDir);
    for (const dir of skipped) this.#logger.warn({ dir }, 'unreadable pod record; its processes, if any, are killed as unknown');
    const known = new Set<number>();
    for (const { pod: recorded, containers } of pods) {
      let pod = recorded;
      if (this.#changeUser && (recorded.user === undefined || !this.#users.adopt(recorded.uid, recorded.user))) {
        // Recorded before pods had users, or outside today's range: new runs get a user now.
        pod = { ...recorded, user: this.#users.allocate(recorded.uid) };
        writePodRecord(this.dataDir, pod);
      }
      this.#pods.set(pod.uid, { ref: { namespace: pod.namespace, name: pod.name, uid: pod.uid }, record: pod, recovered: containers, init: [], containers: [], bound: false });
      for (const c of containers) if (c.run !== undefined && isAlive(c.run)) known.add(c.run.pid);
    }
    for (const pid of markedGroupLeaders(this.#mark)) {
      if (known.has(pid)) continue;
      this.#logger.warn({ pid }, 'killing a process group of this data dir that no record knows');
      signalGroup(pid, 'SIGKILL');
    }
    this.#logger.info({ pods: pods.length, processes: known.size }, 'process runtime started; recovered what a previous agent ran');
    this.#scheduleLogCheck();
  }

  onChange(listener: (pod: PodRef) => void): void {
    this.#listener = listener;
  }

  pods(): PodRef[] {
    return [...this.#pods.values()].map((s) => s.ref);
  }

  podsNamed(namespace: string, name: string): PodRef[] {
    return this.pods().filter((p) => p.namespace === namespace && p.name === name);
  }

  isTerminating(uid: string): boolean {
    return this.#pods.get(uid)?.terminating !== undefined;
  }

  /** The current log file of a container of a pod this runtime holds (it may not exist yet). */
  logPath(uid: string, container: string): string {
    return containerLogPath(podDir(this.dataDir, uid), container);
  }

  /**
   * The run of a container's log a request reads (logsource.ts decides which, from what this
   * runtime observes). Of two pods of the same name (one being replaced), the one not terminating.
   * Throws ContainerLogError 404 (no such pod or container here) or 400 (no run to read).
   */
  containerLog(namespace: string, pod: string, container: string, previous: boolean): LogInstance {
    const states = [...this.#pods.values()].filter((s) => s.ref.namespace === namespace && s.ref.name === pod);
    const state = states.find((s) => s.terminating === undefined) ?? states[0];
    if (state === undefined) throw new ContainerLogError(404, `pod "${pod}" does not exist`);
    const runner = [...state.init, ...state.containers].find((r) => r.name === container);
    const observed = this.#observe(state);
    const observation = [...observed.initContainers, ...observed.containers].find((o) => o.name === container);
    if (runner === undefined || observation === undefined) throw new ContainerLogError(404, `container "${container}" not found in pod "${pod}"`);
    return chooseLogInstance(observation, runner.log, pod, previous);
  }

  async syncPod(pod: DeepReadonly<Pod>): Promise<PodObservation> {
    const uid = pod.metadata.uid ?? '';
    let state = this.#pods.get(uid);
    if (state === undefined) {
      const record: PodRecord = {
        namespace: pod.metadata.namespace ?? '',
        name: pod.metadata.name ?? '',
        uid,
        startTime: rfc3339(this.#clock.now()),
        ...(this.#changeUser ? { user: this.#users.allocate(uid) } : {}),
      };
      writePodRecord(this.dataDir, record);
      this.#makePodFiles(uid);
      state = { ref: { namespace: record.namespace, name: record.name, uid }, record, recovered: [], init: [], containers: [], bound: false };
      this.#pods.set(uid, state);
    }
    if (!state.bound) this.#bind(state, pod);
    const identities = this.#o.identities;
    if (identities !== undefined && state.terminating === undefined && !identities.has(uid) && [...state.init, ...state.containers].some((r) => r.running)) {
      // Processes adopted from a previous agent: keep their token fresh from now on.
      identities.mount(pod, this.podFilesDir(uid), this.#owner(state, pod)).catch((err: unknown) => this.#logger.warn({ err, uid }, "cannot mount the adopted pod's ServiceAccount token; trying again at the next sync"));
    }
    if (state.terminating === undefined && !this.#closed) {
      const now = this.#clock.now();
      const pending = state.init.find((r) => !r.succeeded);
      if (pending !== undefined) {
        if (pending.wantsStart(now)) await pending.start();
      } else {
        await Promise.all(state.containers.filter((r) => r.wantsStart(now)).map((r) => r.start()));
      }
    }
    return this.#observe(state);
  }

  #observe(state: PodState): PodObservation {
    const now = this.#clock.now();
    const pending = state.init.findIndex((r) => !r.succeeded);
    return {
      initContainers: state.init.map((r, i) => r.observe(now, i > pending)),
      containers: state.containers.map((r) => r.observe(now, pending >= 0)),
      startTime: state.record.startTime,
    };
  }

  /** The user pod `state` runs as when its securityContext says nothing: its own, or the agent's. */
  #podUser(state: PodState): ProcessUser {
    return (this.#changeUser ? state.record.user : undefined) ?? ownUser();
  }

  /** The user a container runs as (users.ts); throws ContainerConfigError. */
  #containerUser(state: PodState, pod: DeepReadonly<Pod>, spec: DeepReadonly<Container>): ProcessUser {
    return containerUser(pod, spec, this.#podUser(state), this.#changeUser);
  }

  /**
   * Who the pod's rootfs/ and ServiceAccount files belong to: the pod-level user (its
   * securityContext's, else its own), shared when some container runs as another uid.
   */
  #owner(state: PodState, pod: DeepReadonly<Pod>): IdentityOwner | undefined {
    if (!this.#changeUser) return undefined;
    let user: ProcessUser;
    try {
      user = this.#containerUser(state, pod, { name: '' });
    } catch {
      user = this.#podUser(state);
    }
    const shared = [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])].some((c) => {
      try {
        return this.#containerUser(state, pod, c).uid !== user.uid;
      } catch {
        return false;
      }
    });
    return { user, shared };
  }

  /**
   * Makes the pod's rootfs/ the owner's and the container's working directory inside it, and
   * returns how the container starts. Throws ContainerConfigError (a workingDir leading out, a
   * user that cannot be had).
   */
  #launch(state: PodState, pod: DeepReadonly<Pod>, spec: DeepReadonly<Container>, owner: IdentityOwner | undefined): Launch {
    const user = this.#containerUser(state, pod, spec);
    this.#makePodFiles(state.ref.uid);
    const rootfs = join(this.podFilesDir(state.ref.uid), 'rootfs');
    if (owner !== undefined) {
      chownSync(rootfs, owner.user.uid, owner.user.gid);
      chmodSync(rootfs, owner.shared ? 0o750 : 0o700);
    }
    const cwd = prepareWorkingDir(rootfs, spec.workingDir, owner?.user);
    return { cwd, ...(this.#changeUser ? { user } : {}) };
  }

  /** Builds the pod's runners from its spec (or, for a pod that no longer exists, from its records alone). */
  #bind(state: PodState, pod: DeepReadonly<Pod> | undefined): void {
    const dir = podDir(this.dataDir, state.ref.uid);
    const files = this.podFilesDir(state.ref.uid);
    const owner = pod === undefined ? undefined : this.#owner(state, pod);
    const recovered = new Map(state.recovered.map((r) => [r.name, r]));
    const reported = new Map([...(pod?.status?.initContainerStatuses ?? []), ...(pod?.status?.containerStatuses ?? [])].map((s) => [s.name, s]));
    const runner = (spec: DeepReadonly<Container>, init: boolean): ContainerRunner => {
      const record = recovered.get(spec.name);
      const status = reported.get(spec.name);
      let baseUser: ProcessUser | undefined;
      try {
        baseUser = pod === undefined || !this.#changeUser ? undefined : this.#containerUser(state, pod, spec);
      } catch {
        baseUser = this.#podUser(state);
      }
      const baseLaunch: Launch = { cwd: join(files, 'rootfs', ...workingDirComponents(spec.workingDir)), ...(baseUser === undefined ? {} : { user: baseUser }) };
      return new ContainerRunner({
        spec,
        init,
        restartPolicy: pod?.spec?.restartPolicy ?? 'Never',
        podDir: dir,
        podLabel: `${state.ref.name}_${state.ref.namespace}(${state.ref.uid})`,
        log: new ContainerLog(containerLogPath(dir, spec.name), {
          maxBytes: this.#o.maxLogBytes ?? DEFAULT_MAX_LOG_BYTES,
          logger: this.#logger.child({ container: spec.name, uid: state.ref.uid }),
          clock: this.#clock,
        }),
        clock: this.#clock,
        logger: this.#logger.child({ pod: `${state.ref.namespace}/${state.ref.name}`, uid: state.ref.uid }),
        ...(this.#o.backoff === undefined ? {} : { backoff: this.#o.backoff }),
        ...(this.#o.adoptedPollMs === undefined ? {} : { adoptedPollMs: this.#o.adoptedPollMs }),
        prepare: async () => {
          if (pod === undefined) throw new Error('the pod no longer exists');
          const launch = this.#launch(state, pod, spec, owner);
          const identity = (await this.#o.identities?.mount(pod, files, owner)) ?? {};
          const env = { ...this.#baseEnv(state.ref), ...identity, ...(await containerEnv(spec, pod, this.#source, { podIP: this.#podIP, hostIP: this.#hostIP })), [MARK_ENV]: this.#mark };
          return { argv: containerArgv(spec, env), env, launch };
        },
        persist: (r) => writeContainerRecord(this.dataDir, state.ref.uid, r),
        changed: () => {
          if (!this.#closed) this.#listener(state.ref);
        },
        ...(record === undefined ? {} : { recovered: { record, ready: status?.ready === true, started: status?.started === true } }),
        terminationGraceMs: Math.max(0, pod?.spec?.terminationGracePeriodSeconds ?? 30) * 1000,
        probeHost: this.#podIP,
        baseEnv: this.#baseEnv(state.ref),
        baseLaunch,
      });
    };
    if (pod !== undefined) {
      state.init = (pod.spec?.initContainers ?? []).map((c) => runner(c, true));
      state.containers = (pod.spec?.containers ?? []).map((c) => runner(c, false));
    } else {
      state.containers = state.recovered.map((r) => runner({ name: r.name }, r.init));
    }
    // A recovered container the spec does not name (a damaged record) is stopped, not reported.
    const named = new Set([...state.init, ...state.containers].map((r) => r.name));
    for (const r of state.recovered) if (!named.has(r.name)) void runner({ name: r.name }, r.init).kill(0);
    state.recovered = [];
    state.bound = true;
  }

  #baseEnv(ref: PodRef): Record<string, string> {
    return { ...(this.#o.baseEnv ?? { PATH: process.env['PATH'] ?? '/usr/local/bin:/usr/bin:/bin' }), HOSTNAME: ref.name };
  }

  killPod(uid: string, gracePeriodMs: number): Promise<void> {
    const state = this.#pods.get(uid);
    if (state === undefined) return Promise.resolve();
    const runners = () => [...state.containers, ...state.init];
    if (state.terminating !== undefined) {
      for (const r of runners()) void r.kill(gracePeriodMs); // a shorter grace period shortens the wait
      return state.terminating;
    }
    if (!state.bound) this.#bind(state, undefined);
    this.#logger.info({ pod: `${state.ref.namespace}/${state.ref.name}`, uid, gracePeriodMs }, 'killing the pod');
    state.terminating = (async () => {
      await Promise.all(runners().map((r) => r.kill(gracePeriodMs)));
      this.#o.identities?.forget(uid);
      for (const r of runners()) r.close();
      await removePodDir(this.dataDir, uid);
      if (this.#changeUser) await rm(this.podFilesDir(uid), { recursive: true, force: true });
      this.#pods.delete(uid);
      this.#users.release(uid);
    })();
    return state.terminating;
  }

  /** Kills every pod this runtime holds (tests, or an agent told to leave nothing behind). */
  async killAll(gracePeriodMs: number): Promise<void> {
    await Promise.all([...this.#pods.keys()].map((uid) => this.killPod(uid, gracePeriodMs)));
  }

  #scheduleLogCheck(): void {
    if (this.#closed) return;
    this.#logTimer = this.#clock.setTimeout(() => {
      void this.#rotateLogs().finally(() => this.#scheduleLogCheck());
    }, this.#o.logCheckIntervalMs ?? 2000);
  }

  async #rotateLogs(): Promise<void> {
    for (const state of this.#pods.values()) {
      for (const r of [...state.init, ...state.containers]) {
        if (!r.running) continue;
        try {
          await r.log.rotateIfNeeded();
        } catch (err) {
          this.#logger.warn({ err, container: r.name, uid: state.ref.uid }, 'log rotation failed; trying again at the next check');
        }
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#logTimer?.cancel();
    this.#o.identities?.close();
    for (const state of this.#pods.values()) for (const r of [...state.init, ...state.containers]) r.close();
  }
}
