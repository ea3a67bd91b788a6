/**
 * Bearer tokens: the admin token kept in the data dir, and the authenticator that maps tokens to
 * users without leaking, through timing, how much of a guess was right.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { join } from 'node:path';
import { silentLogger, type Logger } from '@setpoint/api';
import { AUTHENTICATED_GROUP, type AuthenticationHeaders, type Authenticator, type UserInfo } from './authenticator.js';
import { CredentialsError } from './errors.js';
import { createFileExclusive, readSecretFile } from './files.js';

/** File name of the admin token in the data dir. */
export const ADMIN_TOKEN_FILE = 'admin.token';

/** The user the admin token authenticates as: in system:masters, so authorized for everything. */
export const ADMIN_USER: Readonly<UserInfo> = Object.freeze({
  name: 'admin',
  groups: Object.freeze(['system:masters', AUTHENTICATED_GROUP]) as string[],
});

/** RFC 6750 token68 characters: what a bearer token may contain. */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The token in an `Authorization: Bearer <token>` header (scheme case-insensitive, surrounding
 * whitespace ignored), or undefined when the header is absent, has another scheme, or is
 * malformed (no token, spaces inside it, characters outside RFC 6750's token68).
 */
export function parseBearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^bearer +(\S+)$/i.exec(authorization.trim());
  const token = match?.[1];
  return token !== undefined && TOKEN.test(token) ? token : undefined;
}

/**
 * The admin token of the data dir: read from DATA/admin.token, or, at first start, 32 random bytes
 * (base64url) written there with mode 0600 (the directory is created, mode 0700, when missing).
 * Two processes starting at once get the same token. Surrounding whitespace in the file is
 * ignored, so an operator may write a token of their own. Throws CredentialsError (Malformed)
 * when the file holds no valid bearer token.
 */
export async function ensureAdminToken(dataDir: string, logger: Logger = silentLogger): Promise<string> {
  const path = join(dataDir, ADMIN_TOKEN_FILE);
  let text = await readSecretFile(path, logger);
  if (text === undefined) {
    const token = randomBytes(32).toString('base64url');
    if (await createFileExclusive(path, `${token}\n`)) {
      logger.info({ path }, 'generated admin token');
      return token;
    }
    text = (await readSecretFile(path, logger)) ?? '';
  }
  const token = text.trim();
  if (!TOKEN.test(token)) {
    throw new CredentialsError('Malformed', `${path} holds no valid bearer token (RFC 6750 characters, no spaces); fix it or delete it to generate one`, {
      path,
    });
  }
  return token;
}

interface TokenEntry {
  readonly digest: Buffer;
  readonly user: UserInfo;
}

function digestOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function copyUser(user: UserInfo): UserInfo {
  return user.uid === undefined ? { name: user.name, groups: [...user.groups] } : { name: user.name, uid: user.uid, groups: [...user.groups] };
}

export interface TokenAuthenticatorOptions {
  /** A token that authenticates as ADMIN_USER. Default none. */
  readonly adminToken?: string;
  /** Further tokens and their users. Default none. */
  readonly tokens?: Iterable<readonly [token: string, user: UserInfo]>;
}

/**
 * Authenticates `Authorization: Bearer <token>` against a table of known tokens.
 *
 * Guarantees: the time taken does not depend on the presented token's content nor on which
 * entry (if any) it matches: every stored SHA-256 digest is compared with the presented token's
 * digest using crypto.timingSafeEqual, with no early exit. Only digests are kept. Malformed or
 * absent headers and unknown tokens → undefined (the server answers 401). Ignores client
 * certificates (see ClientCertificateAuthenticator).
 */
export class TokenAuthenticator implements Authenticator {
  private entries: TokenEntry[] = [];

  constructor(options: TokenAuthenticatorOptions = {}) {
    if (options.adminToken !== undefined) this.set(options.adminToken, ADMIN_USER);
    for (const [token, user] of options.tokens ?? []) this.set(token, user);
  }

  /** Maps `token` to `user`, replacing an earlier mapping of the same token. Throws RangeError for a token a Bearer header cannot carry. */
  set(token: string, user: UserInfo): void {
    if (!TOKEN.test(token)) throw new RangeError('a bearer token must be non-empty RFC 6750 token68 text');
    const digest = digestOf(token);
    this.entries = [...this.entries.filter((e) => !e.digest.equals(digest)), { digest, user: copyUser(user) }];
  }

  /** Forgets `token`; returns whether it was known. */
  delete(token: string): boolean {
    const digest = digestOf(token);
    const before = this.entries.length;
    this.entries = this.entries.filter((e) => !e.digest.equals(digest));
    return this.entries.length !== before;
  }

  authenticate(headers: AuthenticationHeaders): UserInfo | undefined {
    const token = parseBearerToken(headers.authorization);
    if (token === undefined) return undefined;
    const presented = digestOf(token);
    let found: UserInfo | undefined;
    for (const entry of this.entries) {
      // No early exit: every entry costs the same whether or not an earlier one matched.
      if (timingSafeEqual(entry.digest, presented)) found = entry.user;
    }
    return found === undefined ? undefined : copyUser(found);
  }
}
