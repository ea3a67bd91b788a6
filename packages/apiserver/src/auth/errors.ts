/**
 * CredentialsError: the one error of the credentials layer. Thrown when a file in the data dir
 * (a certificate, a key, the admin token) cannot be used as it is and replacing it silently would
 * lose something the operator put there: a corrupt or mismatched CA, an expired CA, an unreadable
 * token; and for host names that cannot go into a certificate.
 */

/** What went wrong, for callers that branch on it. */
export type CredentialsErrorCode =
  /** A file exists but does not parse (PEM, key, token). */
  | 'Malformed'
  /** A certificate and the key beside it do not belong together. */
  | 'KeyMismatch'
  /** The CA certificate is outside its validity period. */
  | 'Expired'
  /** A key algorithm we cannot sign with. */
  | 'Unsupported'
  /** A requested host is neither an IP address nor a DNS name. */
  | 'InvalidHost';

/** An error about stored or requested credentials; `path` names the file when there is one. */
export class CredentialsError extends Error {
  override readonly name = 'CredentialsError';
  readonly code: CredentialsErrorCode;
  readonly path: string | undefined;

  constructor(code: CredentialsErrorCode, message: string, options: { path?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path;
  }
}
