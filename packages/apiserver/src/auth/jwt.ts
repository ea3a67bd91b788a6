/**
 * JSON Web Tokens in compact JWS form (RFC 7515/7519), signed and verified with node:crypto: what
 * ServiceAccount tokens are. Only asymmetric algorithms with a key of the matching type: ES256,
 * ES384, ES512 (ECDSA P-256/384/521) and RS256 (RSA). `none`, HMAC and an algorithm that does not
 * match the key are refused, so a token cannot choose how it is checked.
 */
import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { CredentialsError } from './errors.js';

/** The signing algorithms we issue and accept. */
export type JwtAlgorithm = 'ES256' | 'ES384' | 'ES512' | 'RS256';

/** The JSON payload of a token: its claims. */
export type JwtClaims = Record<string, unknown>;

/** The longest token we look at (a ServiceAccount token is about 1 KB). */
const MAX_TOKEN_LENGTH = 16 * 1024;

const hashes: Record<JwtAlgorithm, string> = { ES256: 'sha256', ES384: 'sha384', ES512: 'sha512', RS256: 'sha256' };
const curveAlgorithms: Record<string, JwtAlgorithm> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

/**
 * The algorithm a key (private or public) signs with. Throws CredentialsError (Unsupported) for
 * other key types (Ed25519, DSA, unusual curves) and for symmetric keys.
 */
export function algorithmOf(key: KeyObject): JwtAlgorithm {
  if (key.type !== 'secret') {
    if (key.asymmetricKeyType === 'rsa') return 'RS256';
    if (key.asymmetricKeyType === 'ec') {
      const alg = curveAlgorithms[key.asymmetricKeyDetails?.namedCurve ?? ''];
      if (alg !== undefined) return alg;
    }
  }
  const what = `${key.asymmetricKeyType ?? key.type} ${key.asymmetricKeyDetails?.namedCurve ?? ''}`.trim();
  throw new CredentialsError('Unsupported', `cannot sign tokens with a ${what} key (ECDSA P-256/384/521 or RSA only)`);
}

/** Key IDs already computed (keys are immutable). */
const keyIds = new WeakMap<KeyObject, string>();

/**
 * The key ID of a public key (or of a private key's public half), as kube-apiserver derives it:
 * the unpadded base64url SHA-256 of the key's DER SubjectPublicKeyInfo.
 */
export function keyId(key: KeyObject): string {
  let id = keyIds.get(key);
  if (id === undefined) {
    const pub = key.type === 'private' ? createPublicKey(key) : key;
    id = createHash('sha256').update(pub.export({ type: 'spki', format: 'der' })).digest('base64url');
    keyIds.set(key, id);
  }
  return id;
}

function encodeJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

/**
 * Signs `claims` with `privateKey` and returns the compact token `header.payload.signature`. The
 * header is `{"alg":…,"kid":…}` with the key's algorithm and `kid` (default keyId(privateKey)).
 * Throws CredentialsError (Unsupported) for a key that algorithmOf refuses.
 */
export function signJwt(claims: JwtClaims, privateKey: KeyObject, kid: string = keyId(privateKey)): string {
  const alg = algorithmOf(privateKey);
  const input = `${encodeJson({ alg, kid })}.${encodeJson(claims)}`;
  const signature = sign(hashes[alg], Buffer.from(input, 'ascii'), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** Strict unpadded base64url: the bytes, or undefined when `part` is not canonical base64url. */
function decodePart(part: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return undefined;
  const bytes = Buffer.from(part, 'base64url');
  return bytes.toString('base64url') === part ? bytes : undefined;
}

function decodeObject(part: string): Record<string, unknown> | undefined {
  const bytes = decodePart(part);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `text` looks like a compact JWS (three base64url parts, a JSON header naming `alg`): cheap, checks no signature. */
export function looksLikeJwt(text: string): boolean {
  const parts = text.split('.');
  return parts.length === 3 && parts[0] !== undefined && typeof decodeObject(parts[0])?.['alg'] === 'string';
}

/**
 * The claims of `token` when one of `publicKeys` verifies its signature, else undefined. The
 * header's `alg` must be the algorithm of the verifying key (so `none`, HMAC and algorithm
 * confusion fail); a header with `crit` is refused (we understand no extensions); when the header
 * names a `kid` that one of the keys has, only that key is tried. Checks no claim (see
 * checkRegisteredClaims). Never throws.
 */
export function verifyJwt(token: string, publicKeys: readonly KeyObject[]): JwtClaims | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = decodeObject(headerPart);
  const signature = decodePart(signaturePart);
  if (header === undefined || signature === undefined || signature.length === 0) return undefined;
  const alg = header['alg'];
  if (typeof alg !== 'string' || !Object.hasOwn(hashes, alg) || header['crit'] !== undefined) return undefined;
  let candidates = publicKeys.filter((key) => {
    try {
      return algorithmOf(key) === alg;
    } catch {
      return false;
    }
  });
  const kid = header['kid'];
  if (typeof kid === 'string') {
    const named = candidates.filter((key) => keyId(key) === kid);
    if (named.length > 0) candidates = named;
  }
  const input = Buffer.from(`${headerPart}.${payloadPart}`, 'ascii');
  const verified = candidates.some((key) => {
    try {
      return verify(hashes[alg as JwtAlgorithm], input, { key, dsaEncoding: 'ieee-p1363' }, signature);
    } catch {
      return false;
    }
  });
  return verified ? decodeObject(payloadPart) : undefined;
}

/** What checkRegisteredClaims expects of a token. */
export interface ExpectedClaims {
  /** Now, in seconds since the epoch. */
  readonly nowSeconds: number;
  /** Tolerated clock skew for exp, nbf and iat, in seconds (go-jose's default is 60). */
  readonly leewaySeconds: number;
  /** The token's `iss` must be one of these. */
  readonly issuers: readonly string[];
  /** The token's `aud` (a string or a list) must share one of these. */
  readonly audiences: readonly string[];
}

function numeric(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Why a token's registered claims are unacceptable, or undefined when they are fine: `exp`
 * required and not past (with leeway); `nbf` and `iat`, when present, not in the future (with
 * leeway); `iss` one of the expected issuers; `aud` shares an expected audience.
 */
export function checkRegisteredClaims(claims: JwtClaims, expected: ExpectedClaims): string | undefined {
  const { nowSeconds: now, leewaySeconds: leeway } = expected;
  const exp = numeric(claims['exp']);
  if (exp === undefined) return 'the token has no expiry';
  if (now > exp + leeway) return 'the token has expired';
  const nbf = numeric(claims['nbf']);
  if (claims['nbf'] !== undefined && (nbf === undefined || now < nbf - leeway)) return 'the token is not valid yet';
  const iat = numeric(claims['iat']);
  if (claims['iat'] !== undefined && (iat === undefined || now < iat - leeway)) return 'the token was issued in the future';
  const iss = claims['iss'];
  if (typeof iss !== 'string' || !expected.issuers.includes(iss)) return 'the token has another issuer';
  const aud = claims['aud'];
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud.filter((a): a is string => typeof a === 'string') : [];
  if (!audiences.some((a) => expected.audiences.includes(a))) return 'the token is for another audience';
  return undefined;
}
