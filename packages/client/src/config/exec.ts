/**
 * Exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), as client-go runs them:
 * the plugin is started with KUBERNETES_EXEC_INFO describing the request, prints an ExecCredential
 * on stdout, and its status (a bearer token, or a client certificate and key) is used until its
 * expirationTimestamp — or until the server answers 401, when the plugin is run again.
 */
import { spawn } from 'node:child_process';
import { type Clock, realClock } from '@setpoint/api';
import type { ExecConfig } from '../types.js';
import { ConfigError } from './errors.js';
import { isMapping } from './kubeconfig-file.js';

/** What a plugin run gave: a token, or a client certificate and key (PEM), and until when. */
export interface ExecCredential {
  readonly token?: string;
  readonly cert?: string;
  readonly key?: string;
  /** Epoch ms after which the credential must not be used; absent: until a 401. */
  readonly expiresAt?: number;
}

/** The cluster a plugin with provideClusterInfo is told about (ExecCredential spec.cluster). */
export interface ExecClusterInfo {
  readonly server: string;
  readonly ca?: string;
  readonly insecureSkipTLSVerify?: boolean;
  readonly tlsServerName?: string;
}

export interface ExecCredentialProviderOptions {
  /** Where expiry is checked. Default realClock. */
  readonly clock?: Clock;
  /** Sent in KUBERNETES_EXEC_INFO when the plugin asks for it (provideClusterInfo). */
  readonly cluster?: ExecClusterInfo;
  /** The environment the plugin inherits (the plugin's own env entries are added). Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** A plugin still running after this many ms is killed and the run fails. Default 60,000. */
  readonly timeoutMs?: number;
}

const MAX_OUTPUT = 1 << 20;

/**
 * Runs an exec plugin on demand and caches what it returns.
 *
 * Guarantees: concurrent get() calls share one plugin run; a cached credential is returned until
 * its expirationTimestamp (read on the injected clock) or until invalidate() drops it; the plugin
 * runs with stdin closed and `spec.interactive: false` (interactiveMode Always therefore fails).
 * Throws ConfigError (one line naming the command) when the plugin cannot be started, exits
 * non-zero (the first line of its stderr is quoted), times out, or prints something other than an
 * ExecCredential of the configured apiVersion with a token or a certificate and key.
 */
export class ExecCredentialProvider {
  readonly #exec: ExecConfig;
  readonly #clock: Clock;
  readonly #options: ExecCredentialProviderOptions;
  #cached: ExecCredential | undefined;
  #running: Promise<ExecCredential> | undefined;

  constructor(exec: ExecConfig, options: ExecCredentialProviderOptions = {}) {
    this.#exec = exec;
    this.#clock = options.clock ?? realClock;
    this.#options = options;
  }

  /** The current credential, running the plugin when none is cached or it has expired. */
  async get(): Promise<ExecCredential> {
    const cached = this.#cached;
    if (cached !== undefined && (cached.expiresAt === undefined || this.#clock.now() < cached.expiresAt)) return cached;
    this.#running ??= this.#run().then(
      (cred) => {
        this.#running = undefined;
        this.#cached = cred;
        return cred;
      },
      (err: unknown) => {
        this.#running = undefined;
        throw err;
      },
    );
    return this.#running;
  }

  /**
   * Forgets the cached credential after the server refused it, so the next get() runs the plugin
   * again. With `used`, only when the cache still holds that credential (another caller may have
   * refreshed it already).
   */
  invalidate(used?: ExecCredential): void {
    if (used === undefined || this.#cached === used) this.#cached = undefined;
  }

  #fail(problem: string, cause?: unknown): ConfigError {
    return new ConfigError(`exec credential plugin: ${problem}`, { file: this.#exec.command, ...(cause === undefined ? {} : { cause }) });
  }

  #execInfo(): string {
    const apiVersion = this.#exec.apiVersion ?? 'client.authentication.k8s.io/v1';
    const spec: Record<string, unknown> = { interactive: false };
    const cluster = this.#options.cluster;
    if (this.#exec.provideClusterInfo === true && cluster !== undefined) {
      spec.cluster = {
        server: cluster.server,
        ...(cluster.ca === undefined ? {} : { 'certificate-authority-data': Buffer.from(cluster.ca, 'utf8').toString('base64') }),
        ...(cluster.insecureSkipTLSVerify === true ? { 'insecure-skip-tls-verify': true } : {}),
        ...(cluster.tlsServerName === undefined ? {} : { 'tls-server-name': cluster.tlsServerName }),
      };
    }
    return JSON.stringify({ apiVersion, kind: 'ExecCredential', spec });
  }

  async #run(): Promise<ExecCredential> {
    if (this.#exec.interactiveMode === 'Always') throw this.#fail('interactiveMode Always needs a terminal, and this client runs plugins without one');
    const env: Record<string, string | undefined> = { ...(this.#options.env ?? process.env) };
    for (const { name, value } of this.#exec.env ?? []) env[name] = value;
    env.KUBERNETES_EXEC_INFO = this.#execInfo();
    const { stdout, stderr, code, signal } = await new Promise<{ stdout: string; stderr: string; code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        const child = spawn(this.#exec.command, [...(this.#exec.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        // Not spawn's own `timeout`: its timer outlives a command that failed to start.
        const timer = this.#clock.setTimeout(() => child.kill('SIGKILL'), this.#options.timeoutMs ?? 60_000).unref();
        const out: Buffer[] = [];
        const errOut: Buffer[] = [];
        let size = 0;
        const collect = (into: Buffer[]) => (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_OUTPUT) into.push(chunk);
        };
        child.stdout.on('data', collect(out));
        child.stderr.on('data', collect(errOut));
        child.on('error', (err) => {
          timer.cancel();
          reject(this.#fail(`cannot run: ${err.message}`, err));
        });
        child.on('close', (code, signal) => {
          timer.cancel();
          resolve({ stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(errOut).toString('utf8'), code, signal });
        });
      },
    );
    if (code !== 0) {
      const why = code === null ? `was killed by ${signal ?? 'a signal'}` : `exited with code ${code}`;
      const first = stderr.trim().split('\n')[0]?.trim();
      throw this.#fail(first ? `${why}: ${first}` : why);
    }
    return this.#parse(stdout);
  }

  #parse(stdout: string): ExecCredential {
    let doc: unknown;
    try {
      doc = JSON.parse(stdout);
    } catch (err) {
      throw this.#fail('did not print JSON', err);
    }
    const want = this.#exec.apiVersion ?? 'client.authentication.k8s.io/v1';
    if (!isMapping(doc) || doc.kind !== 'ExecCredential') throw this.#fail('did not print an ExecCredential');
    if (doc.apiVersion !== want) throw this.#fail(`printed apiVersion ${String(doc.apiVersion)}, configured for ${want}`);
    const status = doc.status;
    if (!isMapping(status)) throw this.#fail('printed an ExecCredential without status');
    const str = (k: string): string | undefined => (typeof status[k] === 'string' && status[k] !== '' ? (status[k] as string) : undefined);
    const token = str('token');
    const cert = str('clientCertificateData');
    const key = str('clientKeyData');
    if ((cert === undefined) !== (key === undefined)) throw this.#fail('status needs both clientCertificateData and clientKeyData');
    if (token === undefined && cert === undefined) throw this.#fail('status has neither a token nor a client certificate');
    let expiresAt: number | undefined;
    const expiry = str('expirationTimestamp');
    if (expiry !== undefined) {
      expiresAt = Date.parse(expiry);
      if (Number.isNaN(expiresAt)) throw this.#fail(`status.expirationTimestamp ${JSON.stringify(expiry)} is not an RFC 3339 time`);
    }
    return {
      ...(token === undefined ? {} : { token }),
      ...(cert === undefined || key === undefined ? {} : { cert, key }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
  }
}
