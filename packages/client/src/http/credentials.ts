/**
 * What a request authenticates with, worked out per request from a ClientConfig: a bearer token
 * (static, from a file that may rotate, or from an exec plugin), basic auth, and the client
 * certificate (static or from an exec plugin).
 */
import { stat, readFile } from 'node:fs/promises';
import { ApiError, type Clock, type Logger, silentLogger } from '@setpoint/api';
import { ExecCredentialProvider, type ExecCredential } from '../config/exec.js';
import type { ClientConfig } from '../types.js';

/** The credentials of one request. */
export interface RequestCredentials {
  /** The Authorization header value, if any. */
  readonly authorization?: string;
  /** Client certificate and key (PEM) for TLS, if any. */
  readonly cert?: string;
  readonly key?: string;
  /** The exec credential these came from, to invalidate it on a 401. */
  readonly exec?: ExecCredential;
}

export interface CredentialSourceOptions {
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/**
 * Produces the credentials of each request from a ClientConfig.
 *
 * Precedence, as client-go's: tokenFile, then token, then username/password (Basic), then an exec
 * plugin's token; the client certificate is the exec plugin's when it returns one, else the
 * config's. tokenFile is re-read whenever its mtime or size changes (checked on every request,
 * one stat); when it cannot be read, the last token read (or `token`) is used and a warning logged.
 *
 * Throws ApiError Unauthorized (the cause attached) when no credential can be had: the exec plugin
 * fails, or the token file is unreadable and there is no earlier token.
 */
export class CredentialSource {
  readonly #config: ClientConfig;
  readonly #logger: Logger;
  readonly #exec: ExecCredentialProvider | undefined;
  #fileToken: { token: string; mtimeMs: number; size: number } | undefined;

  constructor(config: ClientConfig, options: CredentialSourceOptions = {}) {
    this.#config = config;
    this.#logger = options.logger ?? silentLogger;
    this.#exec =
      config.exec === undefined
        ? undefined
        : new ExecCredentialProvider(config.exec, {
            ...(options.clock === undefined ? {} : { clock: options.clock }),
            cluster: {
              server: config.server,
              ...(config.ca === undefined ? {} : { ca: config.ca }),
              ...(config.insecureSkipTLSVerify === undefined ? {} : { insecureSkipTLSVerify: config.insecureSkipTLSVerify }),
              ...(config.tlsServerName === undefined ? {} : { tlsServerName: config.tlsServerName }),
            },
          });
  }

  /** Whether a 401 may be cured by fetching the credentials again (a token file or an exec plugin). */
  get refreshable(): boolean {
    return this.#config.tokenFile !== undefined || this.#exec !== undefined;
  }

  async current(): Promise<RequestCredentials> {
    const c = this.#config;
    let authorization: string | undefined;
    if (c.tokenFile !== undefined) authorization = `Bearer ${await this.#tokenFromFile(c.tokenFile)}`;
    else if (c.token !== undefined) authorization = `Bearer ${c.token}`;
    else if (c.username !== undefined || c.password !== undefined) {
      authorization = `Basic ${Buffer.from(`${c.username ?? ''}:${c.password ?? ''}`, 'utf8').toString('base64')}`;
    }
    let exec: ExecCredential | undefined;
    if (this.#exec !== undefined && (authorization === undefined || c.cert === undefined)) {
      try {
        exec = await this.#exec.get();
      } catch (err) {
        throw new ApiError('Unauthorized', `getting credentials: ${(err as Error).message}`, { cause: err });
      }
      if (authorization === undefined && exec.token !== undefined) authorization = `Bearer ${exec.token}`;
    }
    const cert = exec?.cert ?? c.cert;
    const key = exec?.cert !== undefined ? exec.key : c.key;
    return {
      ...(authorization === undefined ? {} : { authorization }),
      ...(cert === undefined || key === undefined ? {} : { cert, key }),
      ...(exec === undefined ? {} : { exec }),
    };
  }

  /** After a 401 with `used`: make the next current() read the token file again and re-run the exec plugin. */
  refresh(used: RequestCredentials): void {
    this.#fileToken = undefined;
    if (used.exec !== undefined) this.#exec?.invalidate(used.exec);
  }

  async #tokenFromFile(path: string): Promise<string> {
    try {
      const st = await stat(path);
      const cached = this.#fileToken;
      if (cached !== undefined && cached.mtimeMs === st.mtimeMs && cached.size === st.size) return cached.token;
      const token = (await readFile(path, 'utf8')).trim();
      if (token === '') throw new Error(`${path} is empty`);
      this.#fileToken = { token, mtimeMs: st.mtimeMs, size: st.size };
      return token;
    } catch (err) {
      const fallback = this.#fileToken?.token ?? this.#config.token;
      if (fallback === undefined) {
        throw new ApiError('Unauthorized', `reading the token file ${path}: ${(err as Error).message}`, { cause: err });
      }
      this.#logger.warn({ path, err: (err as Error).message }, 'cannot read the token file; using the token read before');
      return fallback;
    }
  }
}
