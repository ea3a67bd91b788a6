/**
 * ContainerRunner: one container of one pod as a local process — start, exit, crash-loop backoff,
 * probes, stop — and what it observes, in ContainerStatus terms.
 *
 * Expected flow: the process runtime asks `wantsStart(now)` at every sync and calls `start()` when
 * it says yes (so starting is level-triggered: timers only make a container eligible and report a
 * change). `kill(graceMs)` stops it for good. After an agent restart a runner is built from its
 * ContainerRecord; a process still alive is adopted (watched by polling, since it is no longer the
 * agent's child: its exit code then cannot be known and is reported as ContainerStatusUnknown).
 *
 * Guarantees: at most one process per runner at any time; every spawn and exit is recorded on disk
 * (synchronously) before anything else happens; the process group is killed when the leader exits.
 * Restarts follow the restart policy (an init container counts Always as OnFailure) with the
 * kubelet's crash-loop backoff: the first restart at once, then initialMs doubling to maxMs, reset
 * once a run lasted resetAfterMs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Clock, Container, ContainerState, ContainerStateTerminated, Logger, Timer } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';
import { exponentialBackoff } from '@setpoint/workqueue';
import { ContainerConfigError } from './env.js';
import type { ContainerLog } from './logs.js';
import { ProbeWorker, runProbe, type ProbeOutcome, type ProbeTarget } from './probe.js';
import { isAlive, processStartTime, signalRunGroup, type ContainerRecord, type ProcessRun } from './records.js';
import { rfc3339, type ContainerObservation } from './runtime.js';
import type { ProcessUser } from './users.js';

/** How a run is started: its working directory (a real path inside the pod's rootfs) and the user it runs as (absent: the agent's own). */
export interface Launch {
  readonly cwd: string;
  readonly user?: ProcessUser;
}

/** The crash-loop backoff (the kubelet's: 10 s doubling to 5 min, reset after 10 min of running). */
export interface CrashLoopBackoffOptions {
  readonly initialMs?: number;
  readonly maxMs?: number;
  readonly resetAfterMs?: number;
}

/** What a ContainerRunner needs: the container, its pod's directory and policy, and the runtime's callbacks. */
export interface ContainerRunnerOptions {
  readonly spec: DeepReadonly<Container>;
  readonly init: boolean;
  readonly restartPolicy: string;
  readonly podDir: string;
  /** "name_namespace(uid)", for messages. */
  readonly podLabel: string;
  readonly log: ContainerLog;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly backoff?: CrashLoopBackoffOptions;
  /** How often an adopted process is checked for life. Default 1000 ms. */
  readonly adoptedPollMs?: number;
  /** The argv, full environment and launch of a new run; throws ContainerConfigError when they cannot be made. */
  readonly prepare: () => Promise<{ argv: string[]; env: Record<string, string>; launch: Launch }>;
  /** Writes the record (synchronously). */
  readonly persist: (record: ContainerRecord) => void;
  /** Tells the runtime the observation changed. */
  readonly changed: () => void;
  /** What a previous agent recorded, and what the API last reported of readiness, for adoption. */
  readonly recovered?: { readonly record: ContainerRecord; readonly ready: boolean; readonly started: boolean };
  /** The pod's terminationGracePeriodSeconds in ms: how long a container killed by a failed probe gets. Default 30 s. */
  readonly terminationGraceMs?: number;
  /** Where probes connect (the pod's IP). */
  readonly probeHost: string;
  /** The environment of exec probes for a process adopted after a restart (its own is not known). */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** The launch exec probes of a process adopted after a restart use (its own is not known). */
  readonly baseLaunch: Launch;
}

interface Current {
  readonly run: ProcessRun;
  readonly child?: ChildProcess;
  readonly probes: ProbeWorker[];
  startup?: ProbeWorker;
  readiness?: ProbeWorker;
  poll?: Timer;
  exited: Promise<void>;
  markExited: () => void;
  /** When a termination in progress sends SIGKILL; Infinity while none is. */
  killDeadline: number;
}

const SIGNAL_NUMBERS = constants.signals as Record<string, number>;

/** One container of one pod as a local process (see the file comment for the contract). */
export class ContainerRunner {
  readonly name: string;
  readonly #o: ContainerRunnerOptions;
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #resetAfterMs: number;
  #restartCount = 0;
  #crashes = 0;
  #everStarted = false;
  #last: ContainerStateTerminated | undefined;
  #before: ContainerStateTerminated | undefined;
  #exitedAtMs: number | undefined;
  /** When an exited container may start again; undefined: never. */
  #restartAt: number | undefined;
  #restartTimer: Timer | undefined;
  #waiting: { reason: string; message: string; retryAt: number } | undefined;
  #starting = false;
  #stopping = false;
  #current: Current | undefined;
  /** The environment of the last run (exec probes run in it). */
  #env: Readonly<Record<string, string>>;
  /** The launch of the last run (exec probes run as it did). */
  #launch: Launch;

  constructor(options: ContainerRunnerOptions) {
    this.#o = options;
    this.name = options.spec.name;
    this.#initialMs = options.backoff?.initialMs ?? 10_000;
    this.#maxMs = options.backoff?.maxMs ?? 300_000;
    this.#resetAfterMs = options.backoff?.resetAfterMs ?? 600_000;
    this.#env = options.baseEnv;
    this.#launch = options.baseLaunch;
    const recovered = options.recovered;
    if (recovered !== undefined) this.#recover(recovered.record, recovered.ready, recovered.started);
  }

  /** Whether the container exited with code 0 and will not run again (what an init container must do). */
  get succeeded(): boolean {
    return this.#current === undefined && this.#last?.exitCode === 0 && this.#restartAt === undefined;
  }

  get running(): boolean {
    return this.#current !== undefined;
  }

  /** The container's log files (a run is recorded while its process runs). */
  get log(): ContainerLog {
    return this.#o.log;
  }

  /** Whether `start()` should be called now. */
  wantsStart(now: number): boolean {
    if (this.#stopping || this.#starting || this.#current !== undefined) return false;
    if (this.#waiting !== undefined) return now >= this.#waiting.retryAt;
    if (!this.#everStarted) return true;
    return this.#restartAt !== undefined && now >= this.#restartAt;
  }

  /** Starts a run (see the class comment). Never throws: failures become the container's state. */
  async start(): Promise<void> {
    this.#starting = true;
    try {
      await this.#start();
    } finally {
      this.#starting = false;
    }
  }

  async #start(): Promise<void> {
    const { clock } = this.#o;
    let prepared: { argv: string[]; env: Record<string, string>; launch: Launch };
    try {
      prepared = await this.#o.prepare();
      if (prepared.argv.length === 0) throw new ContainerConfigError('the process runtime runs command and args; this container has neither');
    } catch (err) {
      const reason = err instanceof ContainerConfigError ? 'CreateContainerConfigError' : 'CreateContainerError';
      const message = err instanceof Error ? err.message : String(err);
      this.#o.logger.warn({ container: this.name, err }, 'cannot create the container; retrying later');
      this.#setWaiting(reason, message, this.#initialMs);
      return;
    }
    if (this.#stopping) return;
    if (this.#everStarted) {
      // The run before this one stays readable as the previous run (`kubectl logs --previous`).
      try {
        await this.#o.log.moveToPrevious();
      } catch (err) {
        this.#o.logger.warn({ container: this.name, err }, 'cannot move the last run\'s log aside; the new run appends to it');
      }
      if (this.#stopping) return;
    }
    this.#waiting = undefined;
    this.#env = prepared.env;
    this.#launch = prepared.launch;
    const [file, ...args] = prepared.argv as [string, ...string[]];
    const { cwd, user } = prepared.launch;
    let child: ChildProcess;
    let fd: number | undefined;
    try {
      fd = this.#o.log.openForChild();
      child = spawn(file, args, { cwd, env: prepared.env, stdio: ['ignore', fd, fd], detached: true, ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }) });
    } catch (err) {
      this.#setWaiting('CreateContainerError', err instanceof Error ? err.message : String(err), this.#initialMs);
      return;
    } finally {
      if (fd !== undefined) this.#o.log.closeFd(fd);
    }
    const now = clock.now();
    if (this.#everStarted) this.#restartCount++;
    this.#everStarted = true;
    if (child.pid === undefined) {
      // Spawning failed (no such file, not executable): the 'error' event says why.
      const message = await new Promise<string>((resolve) => child.once('error', (err) => resolve(err.message)));
      this.#finish({ exitCode: 128, reason: 'StartError', message, startedAt: rfc3339(now), finishedAt: rfc3339(clock.now()) }, now);
      return;
    }
    const pid = child.pid;
    const procStart = processStartTime(pid);
    const run: ProcessRun = { pid, ...(procStart === undefined ? {} : { procStart }), startedAt: rfc3339(now), startedAtMs: now };
    child.unref();
    this.#o.log.startRecording();
    this.#current = this.#makeCurrent(run, child, false, false);
    this.#persist();
    child.on('exit', (code, signal) => this.#onExit(run, code, signal === null ? undefined : signal));
    child.on('error', (err) => this.#o.logger.warn({ container: this.name, pid, err }, 'container process error'));
    this.#o.logger.info({ container: this.name, pid, command: file, restartCount: this.#restartCount, uid: user?.uid ?? null, gid: user?.gid ?? null }, 'container started');
    this.#o.changed();
  }

  #makeCurrent(run: ProcessRun, child: ChildProcess | undefined, ready: boolean, started: boolean): Current {
    let markExited = () => {};
    const exited = new Promise<void>((resolve) => (markExited = resolve));
    const current: Current = { run, ...(child === undefined ? {} : { child }), probes: [], exited, markExited, killDeadline: Infinity };
    const { spec, clock } = this.#o;
    const { cwd, user } = this.#launch;
    const target: ProbeTarget = { host: this.#o.probeHost, cwd, env: this.#env, ports: spec.ports ?? [], ...(user === undefined ? {} : { user }) };
    const check = (probe: DeepReadonly<NonNullable<Container['livenessProbe']>>) => (): Promise<ProbeOutcome> => runProbe(probe, target);
    const isStarted = () => current.startup === undefined || current.startup.result;
    if (spec.startupProbe !== undefined && !started) {
      current.startup = new ProbeWorker({ kind: 'startup', probe: spec.startupProbe, clock, check: check(spec.startupProbe), onResult: (ok, outcome) => this.#probeResult('Startup', ok, outcome) });
      current.probes.push(current.startup);
    }
    if (spec.readinessProbe !== undefined) {
      current.readiness = new ProbeWorker({
        kind: 'readiness',
        probe: spec.readinessProbe,
        clock,
        check: check(spec.readinessProbe),
        onResult: () => this.#o.changed(),
        active: isStarted,
        ...(ready ? { initial: true } : {}),
      });
      current.probes.push(current.readiness);
    }
    if (spec.livenessProbe !== undefined) {
      current.probes.push(
        new ProbeWorker({ kind: 'liveness', probe: spec.livenessProbe, clock, check: check(spec.livenessProbe), onResult: (ok, outcome) => this.#probeResult('Liveness', ok, outcome), active: isStarted }),
      );
    }
    for (const probe of current.probes) probe.start();
    return current;
  }

  #probeResult(kind: 'Startup' | 'Liveness', ok: boolean, outcome: ProbeOutcome): void {
    if (ok) {
      this.#o.changed();
      return;
    }
    const current = this.#current;
    if (current === undefined) return;
    this.#o.logger.info({ container: this.name, probe: kind, message: outcome.message }, `${kind} probe failed; restarting the container`);
    const probe = kind === 'Startup' ? this.#o.spec.startupProbe : this.#o.spec.livenessProbe;
    const grace = probe?.terminationGracePeriodSeconds !== undefined ? probe.terminationGracePeriodSeconds * 1000 : (this.#o.terminationGraceMs ?? 30_000);
    void this.#terminate(current, grace);
  }

  #onExit(run: ProcessRun, code: number | null, signal: NodeJS.Signals | undefined): void {
    const now = this.#o.clock.now();
    const exitCode = code ?? (signal !== undefined ? 128 + (SIGNAL_NUMBERS[signal] ?? 9) : 137);
    const terminated: ContainerStateTerminated = { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt: run.startedAt, finishedAt: rfc3339(now), containerID: containerID(run) };
    if (signal !== undefined) terminated.signal = SIGNAL_NUMBERS[signal] ?? 0;
    this.#finish(terminated, run.startedAtMs, run);
  }

  /** Records the end of a run and decides whether and when the container runs again. */
  #finish(terminated: ContainerStateTerminated, startedAtMs: number, run?: ProcessRun): void {
    const current = this.#current;
    if (run !== undefined && current?.run !== run) return;
    const now = this.#o.clock.now();
    if (current !== undefined) {
      for (const probe of current.probes) probe.stop();
      current.poll?.cancel();
      signalRunGroup(current.run, 'SIGKILL'); // what the leader left behind goes with it
    }
    this.#current = undefined;
    void this.#o.log.stopRecording();
    this.#before = this.#last;
    this.#last = terminated;
    this.#exitedAtMs = now;
    if (now - startedAtMs >= this.#resetAfterMs) this.#crashes = 0;
    const policy = this.#o.init && this.#o.restartPolicy === 'Always' ? 'OnFailure' : this.#o.restartPolicy;
    const restart = !this.#stopping && (policy === 'Always' || (policy === 'OnFailure' && terminated.exitCode !== 0));
    if (restart) {
      const delay = this.#crashLoopDelay(this.#crashes);
      this.#crashes++;
      this.#restartAt = now + delay;
      this.#restartTimer?.cancel();
      if (delay > 0) this.#restartTimer = this.#o.clock.setTimeout(() => this.#o.changed(), delay);
    } else {
      this.#restartAt = undefined;
    }
    this.#persist();
    this.#o.logger.info({ container: this.name, exitCode: terminated.exitCode, reason: terminated.reason, restartInMs: this.#restartAt === undefined ? null : this.#restartAt - now }, 'container exited');
    current?.markExited();
    this.#o.changed();
  }

  /** The wait before a restart after `crashes` failures in a row: none for the first, then initialMs doubling to maxMs. */
  #crashLoopDelay(crashes: number): number {
    return crashes <= 0 ? 0 : exponentialBackoff(crashes - 1, this.#initialMs, this.#maxMs);
  }

  #setWaiting(reason: string, message: string, retryMs: number): void {
    const now = this.#o.clock.now();
    this.#waiting = { reason, message, retryAt: now + retryMs };
    this.#restartTimer?.cancel();
    this.#restartTimer = this.#o.clock.setTimeout(() => this.#o.changed(), retryMs);
    this.#o.changed();
  }

  #recover(record: ContainerRecord, ready: boolean, started: boolean): void {
    this.#restartCount = record.restartCount;
    this.#crashes = record.crashes;
    this.#last = record.last;
    this.#exitedAtMs = record.exitedAtMs;
    this.#everStarted = record.run !== undefined || record.last !== undefined;
    const run = record.run;
    if (run !== undefined && isAlive(run)) {
      const current = this.#makeCurrent(run, undefined, ready, started);
      this.#current = current;
      this.#o.log.startRecording();
      const poll = () => {
        if (this.#current !== current) return;
        if (isAlive(run)) current.poll = this.#o.clock.setTimeout(poll, this.#o.adoptedPollMs ?? 1000);
        else this.#lost(run);
      };
      current.poll = this.#o.clock.setTimeout(poll, this.#o.adoptedPollMs ?? 1000);
      this.#o.logger.info({ container: this.name, pid: run.pid }, 'adopted a container process started before the agent restarted');
    } else if (run !== undefined) {
      this.#current = { run, probes: [], exited: Promise.resolve(), markExited: () => {}, killDeadline: Infinity };
      this.#lost(run);
    } else if (record.last !== undefined) {
      // Exited and recorded: whether it restarts is decided again from the record.
      const policy = this.#o.init && this.#o.restartPolicy === 'Always' ? 'OnFailure' : this.#o.restartPolicy;
      const restart = policy === 'Always' || (policy === 'OnFailure' && record.last.exitCode !== 0);
      this.#restartAt = restart ? (record.exitedAtMs ?? 0) + this.#crashLoopDelay(record.crashes - 1) : undefined;
      const wait = this.#restartAt === undefined ? 0 : this.#restartAt - this.#o.clock.now();
      if (wait > 0) this.#restartTimer = this.#o.clock.setTimeout(() => this.#o.changed(), wait);
    }
  }

  /** The run ended while nobody could see how (adopted process gone, or gone while the agent was down). */
  #lost(run: ProcessRun): void {
    const message = 'the process ended while the agent was not its parent; its exit code is unknown';
    this.#finish({ exitCode: 137, reason: 'ContainerStatusUnknown', message, startedAt: run.startedAt, finishedAt: rfc3339(this.#o.clock.now()), containerID: containerID(run) }, run.startedAtMs, run);
  }

  /**
   * Stops the container for good: SIGTERM to its process group, SIGKILL after `graceMs` (a later
   * call with a shorter grace shortens it). Resolves once the process is gone.
   */
  async kill(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.#restartTimer?.cancel();
    this.#restartAt = undefined;
    const current = this.#current;
    if (current !== undefined) await this.#terminate(current, graceMs);
  }

  async #terminate(current: Current, graceMs: number): Promise<void> {
    const { clock } = this.#o;
    const deadline = clock.now() + graceMs;
    const first = current.killDeadline === Infinity;
    current.killDeadline = Math.min(current.killDeadline, deadline);
    if (!first) return current.exited; // the termination in progress now ends by the earlier deadline
    const run = current.run;
    signalRunGroup(run, 'SIGTERM');
    while (this.#current === current && isAlive(run) && clock.now() < current.killDeadline) {
      await clock.sleep(Math.min(50, current.killDeadline - clock.now()));
    }
    if (this.#current === current && isAlive(run)) {
      this.#o.logger.info({ container: this.name, pid: run.pid }, 'grace period over; sending SIGKILL');
      signalRunGroup(run, 'SIGKILL');
    }
    while (this.#current === current && isAlive(run)) await clock.sleep(20);
    signalRunGroup(run, 'SIGKILL');
    // A child's exit event carries its exit code; an adopted process has none to wait for.
    if (this.#current === current && current.child !== undefined) await Promise.race([current.exited, clock.sleep(1000)]);
    if (this.#current === current) this.#lost(run);
  }

  /** Stops probes and timers; the process is left alone (the agent stops, the container runs on). */
  close(): void {
    this.#restartTimer?.cancel();
    void this.#o.log.stopRecording();
    const current = this.#current;
    if (current === undefined) return;
    for (const probe of current.probes) probe.stop();
    current.poll?.cancel();
  }

  /** What to keep on disk. */
  record(): ContainerRecord {
    return {
      name: this.name,
      init: this.#o.init,
      restartCount: this.#restartCount,
      crashes: this.#crashes,
      ...(this.#current === undefined ? {} : { run: this.#current.run }),
      ...(this.#last === undefined ? {} : { last: this.#last }),
      ...(this.#exitedAtMs === undefined ? {} : { exitedAtMs: this.#exitedAtMs }),
    };
  }

  /**
   * Writes the container's record (what a restarted agent recovers). A failure is logged, not
   * thrown: it happens in a child's exit handler, where a throw would end the agent, and after a
   * spawn, where it would leave the process untracked. A pod whose directory is gone (deleted
   * while its container exits) has nothing left to recover.
   */
  #persist(): void {
    try {
      this.#o.persist(this.record());
    } catch (err) {
      this.#o.logger.warn({ container: this.name, err }, 'cannot write the container record');
    }
  }

  /** What the container looks like now; `blocked`: containers before it (init containers) are not done. */
  observe(now: number, blocked: boolean): ContainerObservation {
    const base = { name: this.name, restartCount: this.#restartCount };
    const terminated = (t: ContainerStateTerminated | undefined): ContainerState => (t === undefined ? {} : { terminated: t });
    const current = this.#current;
    if (current !== undefined) {
      const started = current.startup === undefined || current.startup.result;
      const ready = started && (current.readiness === undefined || current.readiness.result);
      return { ...base, state: { running: { startedAt: current.run.startedAt } }, lastState: terminated(this.#last), ready, started, containerID: containerID(current.run) };
    }
    const id = this.#last?.containerID === undefined ? {} : { containerID: this.#last.containerID };
    if (this.#waiting !== undefined) return { ...base, state: { waiting: { reason: this.#waiting.reason, message: this.#waiting.message } }, lastState: terminated(this.#last), ready: false, started: false };
    if (this.#last !== undefined && !this.#stopping && this.#restartAt !== undefined && now < this.#restartAt) {
      const seconds = Math.round((this.#restartAt - (this.#exitedAtMs ?? now)) / 1000);
      const message = `back-off ${seconds}s restarting failed container=${this.name} pod=${this.#o.podLabel}`;
      return { ...base, state: { waiting: { reason: 'CrashLoopBackOff', message } }, lastState: terminated(this.#last), ready: false, started: false, ...id };
    }
    if (this.#last !== undefined) return { ...base, state: terminated(this.#last), lastState: terminated(this.#before), ready: false, started: false, ...id };
    return { ...base, state: { waiting: { reason: blocked ? 'PodInitializing' : 'ContainerCreating' } }, lastState: {}, ready: false, started: false };
  }
}

function containerID(run: ProcessRun): string {
  return `setpoint-process://${run.pid}`;
}
