/**
 * Continue tokens of paginated lists: opaque to clients, they carry the revision of the list's
 * snapshot and the last key examined, so every page reads the same snapshot.
 */
import { ApiError } from '@setpoint/api';

export interface ContinueToken {
  /** The revision the first page was read at. */
  readonly rv: number;
  /** The last key examined; the next page starts after it. */
  readonly key: string;
}

export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 1, rv: token.rv, start: token.key }), 'utf8').toString('base64url');
}

/**
 * Decodes a token; throws BadRequest for anything this server did not issue, with Kubernetes'
 * message: `invalid continue token: continue key is not valid` and why (the first character that is
 * no unpadded base64url, a token that is not JSON, another version, no revision or no start key).
 */
export function decodeContinue(text: string): ContinueToken {
  const bad = /[^A-Za-z0-9_-]/.exec(text);
  if (bad !== null) throw invalidContinue(`illegal base64 data at input byte ${bad.index}`);
  if (text.length % 4 === 1) throw invalidContinue(`illegal base64 data at input byte ${text.length - 1}`);
  let parsed: { v?: unknown; rv?: unknown; start?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    throw invalidContinue('the token is not the JSON this server issues');
  }
  if (typeof parsed !== 'object' || parsed === null || parsed.v !== 1) throw ApiError.badRequest('invalid continue token: continue key is not valid: server does not recognize this encoded version');
  if (typeof parsed.rv !== 'number' || !Number.isSafeInteger(parsed.rv) || parsed.rv <= 0) {
    throw ApiError.badRequest('invalid continue token: continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  if (typeof parsed.start !== 'string' || parsed.start === '') throw ApiError.badRequest('invalid continue token: continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  return { rv: parsed.rv, key: parsed.start };
}

function invalidContinue(why: string): ApiError {
  return ApiError.badRequest(`invalid continue token: continue key is not valid: ${why}`);
}

/** The 410 Kubernetes answers when a continue token's snapshot was compacted. */
export function continueExpired(): ApiError {
  return ApiError.expired(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  );
}
