/**
 * Signing in: with a bearer token the server accepts (checked with a SelfSubjectReview, which also
 * names the user), or with the one-time code of a sign-in link (exchanged at
 * /dashboard/v1/login for a session token of the user who asked for the link).
 *
 * The session lives in sessionStorage: it survives a reload of the tab, ends with the tab, and is
 * never sent anywhere but in the Authorization header of this origin's API calls.
 */
import { ApiClient, ApiStatusError } from './client.js';
import type { Status } from './types.js';

export interface Session {
  readonly token: string;
  readonly username: string;
  readonly groups: readonly string[];
  /** ISO time the session token stops working (sign-in links only). */
  readonly expiresAt?: string;
  /** Whether the token came from a sign-in link (so signing out ends it on the server). */
  readonly fromLink: boolean;
}

const KEY = 'setpoint.dashboard.session';

export function loadSession(): Session | undefined {
  try {
    const text = sessionStorage.getItem(KEY);
    if (text === null) return undefined;
    const s = JSON.parse(text) as Session;
    if (typeof s.token !== 'string' || typeof s.username !== 'string') return undefined;
    if (s.expiresAt !== undefined && Date.parse(s.expiresAt) <= Date.now()) return undefined;
    return s;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session | undefined): void {
  if (session === undefined) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, JSON.stringify(session));
}

/** Who `token` authenticates as; throws ApiStatusError (401 for a token the server refuses). */
export async function signInWithToken(token: string): Promise<Session> {
  const client = new ApiClient(token.trim());
  const review = await client.json<{ status?: { userInfo?: { username?: string; groups?: string[] } } }>('/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    method: 'POST',
    contentType: 'application/json',
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {} }),
  });
  const info = review.status?.userInfo;
  return { token: token.trim(), username: info?.username ?? 'unknown', groups: info?.groups ?? [], fromLink: false };
}

/** The session a sign-in code opens; throws ApiStatusError (401 for an unknown, used or expired code). */
export async function signInWithCode(code: string): Promise<Session> {
  const res = await fetch('/dashboard/v1/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ code }),
    credentials: 'omit',
    cache: 'no-store',
  });
  const body = (await res.json().catch(() => ({}))) as Status & { token?: string; user?: { username?: string; groups?: string[] }; expiresAt?: string };
  if (!res.ok || typeof body.token !== 'string') throw new ApiStatusError(res.status, body.kind === 'Status' ? body : { message: `sign-in failed (${res.status})` });
  return { token: body.token, username: body.user?.username ?? 'unknown', groups: body.user?.groups ?? [], fromLink: true, ...(body.expiresAt ? { expiresAt: body.expiresAt } : {}) };
}

/** Ends a link session on the server (a plain token stays valid: it is not the dashboard's to end). */
export async function signOut(session: Session): Promise<void> {
  if (!session.fromLink) return;
  await fetch('/dashboard/v1/logout', { method: 'POST', headers: { authorization: `Bearer ${session.token}` }, credentials: 'omit' }).catch(() => undefined);
}
