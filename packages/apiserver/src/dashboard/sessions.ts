/**
 * Dashboard sign-in links and sessions.
 *
 * Expected flow: a user who may (see routes.ts: `post` on /dashboard/v1/links, which by default only
 * system:masters holds) asks for a link: `issueLink(user)` returns a one-time code. The browser
 * opens `/ui/#/login?code=…` (the code stays in the URL fragment, which browsers never send) and
 * posts the code to /dashboard/v1/login: `exchange(code)` returns a session token that
 * authenticates as that same user (name, uid, groups, extra) — this class is an Authenticator.
 *
 * Guarantees: a code is 128 random bits, works once, and expires after `linkTtlMs` (default 5
 * minutes); a session token is 256 random bits and expires after `sessionTtlMs` (default 8 hours),
 * or at `revoke` (sign out). Only SHA-256 digests of codes and tokens are kept, so a heap dump
 * shows no usable credential. Outstanding codes and sessions are bounded (oldest dropped first).
 *
 * Caveats: everything lives in this process's memory: a restart signs everyone out, and with
 * several API servers a link and its session work on the server that issued them only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { realClock, type Clock } from '@setpoint/api';
import { parseBearerToken } from '../auth/tokens.js';
import type { AuthenticationHeaders, Authenticator, UserInfo } from '../auth/authenticator.js';

export interface DashboardSessionOptions {
  /** How long a sign-in link works. Default 5 minutes. */
  readonly linkTtlMs?: number;
  /** How long a session lasts. Default 8 hours. */
  readonly sessionTtlMs?: number;
  /** At most this many unused links (and, ten times as many, sessions). Default 1,000. */
  readonly maxLinks?: number;
  readonly clock?: Clock;
}

/** A one-time sign-in code. */
export interface IssuedLink {
  readonly code: string;
  /** ms since the epoch. */
  readonly expiresAt: number;
}

/** What a code is exchanged for. */
export interface IssuedSession {
  readonly token: string;
  readonly user: UserInfo;
  /** ms since the epoch. */
  readonly expiresAt: number;
}

/** Session tokens start with this, so logs and people can tell them from other tokens. */
export const SESSION_TOKEN_PREFIX = 'spd_';

interface Entry {
  readonly user: UserInfo;
  readonly expiresAt: number;
}

const digest = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

export class DashboardSessions implements Authenticator {
  private readonly links = new Map<string, Entry>();
  private readonly sessions = new Map<string, Entry>();
  private readonly linkTtlMs: number;
  private readonly sessionTtlMs: number;
  private readonly maxLinks: number;
  private readonly clock: Clock;

  constructor(options: DashboardSessionOptions = {}) {
    this.linkTtlMs = options.linkTtlMs ?? 5 * 60_000;
    this.sessionTtlMs = options.sessionTtlMs ?? 8 * 3_600_000;
    this.maxLinks = options.maxLinks ?? 1000;
    this.clock = options.clock ?? realClock;
  }

  /** A new one-time code that signs in as `user`. */
  issueLink(user: UserInfo): IssuedLink {
    const now = this.clock.now();
    this.prune(this.links, now, this.maxLinks);
    const code = randomBytes(16).toString('base64url');
    const expiresAt = now + this.linkTtlMs;
    this.links.set(digest(code), { user: copyUser(user), expiresAt });
    return { code, expiresAt };
  }

  /** The session a code signs in to; undefined when the code is unknown, used or expired. The code is spent either way. */
  exchange(code: string): IssuedSession | undefined {
    const key = digest(code);
    const link = this.links.get(key);
    this.links.delete(key);
    const now = this.clock.now();
    if (link === undefined || link.expiresAt <= now) return undefined;
    this.prune(this.sessions, now, this.maxLinks * 10);
    const token = SESSION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const expiresAt = now + this.sessionTtlMs;
    this.sessions.set(digest(token), { user: link.user, expiresAt });
    return { token, user: copyUser(link.user), expiresAt };
  }

  /** Ends the session of `token`; true when there was one. */
  revoke(token: string): boolean {
    return this.sessions.delete(digest(token));
  }

  /** The user of a live session token in the Authorization header, else undefined. */
  authenticate(headers: AuthenticationHeaders): UserInfo | undefined {
    const token = parseBearerToken(headers.authorization);
    if (token === undefined || !token.startsWith(SESSION_TOKEN_PREFIX)) return undefined;
    const key = digest(token);
    const entry = this.sessions.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.clock.now()) {
      this.sessions.delete(key);
      return undefined;
    }
    return copyUser(entry.user);
  }

  /** Drops expired entries, then the oldest ones beyond `max - 1` (Maps iterate in insertion order). */
  private prune(map: Map<string, Entry>, now: number, max: number): void {
    for (const [key, entry] of map) if (entry.expiresAt <= now) map.delete(key);
    for (const key of map.keys()) {
      if (map.size < max) break;
      map.delete(key);
    }
  }
}

function copyUser(user: UserInfo): UserInfo {
  return {
    name: user.name,
    groups: [...user.groups],
    ...(user.uid !== undefined ? { uid: user.uid } : {}),
    ...(user.extra !== undefined ? { extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])) } : {}),
  };
}
