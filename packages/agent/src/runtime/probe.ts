/**
 * Container probes, as the kubelet's prober runs them: exec (exit 0), httpGet (a status from 200 to
 * 399, certificates not checked), tcpSocket (a connection); gRPC probes are not supported and always
 * fail, with a message saying so. A ProbeWorker runs one probe of one container run on a clock:
 * first after initialDelaySeconds, then every periodSeconds, each attempt limited to
 * timeoutSeconds; its result flips only after successThreshold successes or failureThreshold
 * failures in a row (defaults 10 s, 1 s, 1, 3, as Kubernetes').
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect } from 'node:net';
import type { Clock, ContainerPort, Probe, Timer } from '@setpoint/api';
import type { DeepReadonly } from '@setpoint/client';

/** The result of one probe attempt. */
export interface ProbeOutcome {
  readonly ok: boolean;
  readonly message?: string;
}

/** What a probe runs against: the container's address, working directory, environment and ports. */
export interface ProbeTarget {
  readonly host: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly ports: readonly DeepReadonly<ContainerPort>[];
  /** The user exec probes run as (the container's); absent: the agent's own. */
  readonly user?: { readonly uid: number; readonly gid: number };
}

/** A port number, or a named port of the container; undefined when the name is unknown. */
export function resolvePort(port: number | string, ports: readonly DeepReadonly<ContainerPort>[]): number | undefined {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  return ports.find((p) => p.name === port)?.containerPort;
}

function execProbe(command: readonly string[], target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const [file, ...args] = command;
  if (file === undefined) return Promise.resolve({ ok: false, message: 'exec probe without a command' });
  return new Promise((resolve) => {
    let output = '';
    let child: ChildProcess;
    try {
      const user = target.user === undefined ? {} : { uid: target.user.uid, gid: target.user.gid };
      child = spawn(file, args, { cwd: target.cwd, env: { ...target.env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL', ...user });
    } catch (err) {
      resolve({ ok: false, message: (err as Error).message });
      return;
    }
    const collect = (chunk: Buffer) => {
      if (output.length < 10_240) output += chunk.toString('utf8');
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.on('error', (err) => resolve({ ok: false, message: err.message }));
    child.on('close', (code, signal) => {
      if (code === 0) resolve({ ok: true });
      else resolve({ ok: false, message: signal === 'SIGKILL' ? `command timed out after ${timeoutMs} ms` : output.trim() || `exit code ${code ?? signal}` });
    });
  });
}

function httpProbe(probe: NonNullable<DeepReadonly<Probe>['httpGet']>, target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const port = resolvePort(probe.port, target.ports);
  if (port === undefined) return Promise.resolve({ ok: false, message: `unknown port ${String(probe.port)}` });
  const request = probe.scheme === 'HTTPS' ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { 'user-agent': 'kube-probe/1.32', accept: '*/*' };
  for (const h of probe.httpHeaders ?? []) headers[h.name.toLowerCase()] = h.value;
  return new Promise((resolve) => {
    const req = request(
      { host: probe.host || target.host, port, path: probe.path || '/', method: 'GET', headers, timeout: timeoutMs, rejectUnauthorized: false },
      (res) => {
        res.resume();
        const code = res.statusCode ?? 0;
        resolve(code >= 200 && code < 400 ? { ok: true } : { ok: false, message: `HTTP probe failed with statuscode: ${code}` });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
    req.on('error', (err) => resolve({ ok: false, message: err.message }));
    req.end();
  });
}

function tcpProbe(probe: NonNullable<DeepReadonly<Probe>['tcpSocket']>, target: ProbeTarget, timeoutMs: number): Promise<ProbeOutcome> {
  const port = resolvePort(probe.port, target.ports);
  if (port === undefined) return Promise.resolve({ ok: false, message: `unknown port ${String(probe.port)}` });
  return new Promise((resolve) => {
    const socket = connect({ host: probe.host || target.host, port, timeout: timeoutMs });
    socket.on('connect', () => {
      socket.destroy();
      resolve({ ok: true });
    });
    socket.on('timeout', () => socket.destroy(new Error(`dial tcp ${port}: i/o timeout`)));
    socket.on('error', (err) => resolve({ ok: false, message: err.message }));
  });
}

/** Runs one attempt of `probe` against `target`. Never rejects: a failure is an outcome. */
export function runProbe(probe: DeepReadonly<Probe>, target: ProbeTarget): Promise<ProbeOutcome> {
  const timeoutMs = Math.max(1, probe.timeoutSeconds ?? 1) * 1000;
  if (probe.exec !== undefined) return execProbe(probe.exec.command ?? [], target, timeoutMs);
  if (probe.httpGet !== undefined) return httpProbe(probe.httpGet, target, timeoutMs);
  if (probe.tcpSocket !== undefined) return tcpProbe(probe.tcpSocket, target, timeoutMs);
  return Promise.resolve({ ok: false, message: 'only exec, httpGet and tcpSocket probes are supported' });
}

/** Which probe a worker runs: it decides the initial result and what a failure means. */
export type ProbeKind = 'startup' | 'readiness' | 'liveness';

/** Options of a ProbeWorker. */
export interface ProbeWorkerOptions {
  readonly kind: ProbeKind;
  readonly probe: DeepReadonly<Probe>;
  readonly clock: Clock;
  /** One attempt (runProbe against the container, in production). */
  readonly check: () => Promise<ProbeOutcome>;
  /** Called when the result flips, with the new result and the last attempt's outcome. */
  readonly onResult: (ok: boolean, outcome: ProbeOutcome) => void;
  /** Attempts are skipped (not counted) while this says false (liveness and readiness wait for startup). */
  readonly active?: () => boolean;
  /** The result before the first attempt. Default false for readiness and startup, true for liveness. */
  readonly initial?: boolean;
}

/**
 * Runs one probe on a clock (see the file comment). The result starts false for readiness and
 * startup, true for liveness, as the kubelet's (unless `initial` says otherwise). Attempts never overlap.
 */
export class ProbeWorker {
  #result: boolean;
  #run = 0;
  #last: boolean | undefined;
  #timer: Timer | undefined;
  #stopped = false;
  readonly #options: ProbeWorkerOptions;

  constructor(options: ProbeWorkerOptions) {
    this.#options = options;
    this.#result = options.initial ?? options.kind === 'liveness';
  }

  get result(): boolean {
    return this.#result;
  }

  start(): void {
    this.#schedule(Math.max(0, this.#options.probe.initialDelaySeconds ?? 0) * 1000);
  }

  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
  }

  #schedule(ms: number): void {
    if (this.#stopped) return;
    this.#timer = this.#options.clock.setTimeout(() => void this.#attempt(), ms);
  }

  async #attempt(): Promise<void> {
    const { probe, check, onResult, active } = this.#options;
    const period = Math.max(1, probe.periodSeconds ?? 10) * 1000;
    if (active !== undefined && !active()) return this.#schedule(period);
    const outcome = await check();
    if (this.#stopped) return;
    this.#run = outcome.ok === this.#last ? this.#run + 1 : 1;
    this.#last = outcome.ok;
    const threshold = outcome.ok ? Math.max(1, probe.successThreshold ?? 1) : Math.max(1, probe.failureThreshold ?? 3);
    // A startup probe that fails failureThreshold times reports it although its result was already false.
    const startupFailed = this.#options.kind === 'startup' && !outcome.ok;
    if (this.#run >= threshold && (outcome.ok !== this.#result || startupFailed)) {
      this.#result = outcome.ok;
      onResult(outcome.ok, outcome);
    }
    // A startup probe stops at its first success; the container restarts at a startup or liveness failure.
    if (this.#options.kind === 'startup' && this.#result) return;
    this.#schedule(period);
  }
}
