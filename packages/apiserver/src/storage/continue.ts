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

/** Decodes a token; throws BadRequest for anything this server did not issue. */
export function decodeContinue(text: string): ContinueToken {
  try {
    const parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as { v?: unknown; rv?: unknown; start?: unknown };
    if (parsed.v === 1 && typeof parsed.rv === 'number' && Number.isSafeInteger(parsed.rv) && parsed.rv > 0 && typeof parsed.start === 'string') {
      return { rv: parsed.rv, key: parsed.start };
    }
  } catch {
    // fall through
  }
  throw ApiError.badRequest(`continue key is not valid: the continue token is malformed`);
}

/** The 410 Kubernetes answers when a continue token's snapshot was compacted. */
export function continueExpired(): ApiError {
  return ApiError.expired(
    'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.',
  );
}
