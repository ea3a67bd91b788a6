/**
 * Authentication: who is making a request. An Authenticator looks at the request's credentials
 * (the Authorization header, the verified TLS client certificate) and names a user, or declines;
 * the server answers 401 when every authenticator declined.
 */

/** The authenticated user, as Kubernetes' user.Info. */
export interface UserInfo {
  readonly name: string;
  readonly uid?: string;
  readonly groups: string[];
}

/** The identity in a client certificate the TLS layer has already verified against the CA. */
export interface ClientCertificateIdentity {
  /** Subject CN: the user name. */
  readonly commonName: string;
  /** Subject O values: the groups. */
  readonly organizations: readonly string[];
}

/** The request headers an authenticator reads (Node's IncomingHttpHeaders fits). */
export interface AuthenticationHeaders {
  readonly authorization?: string | undefined;
}

/** Names the user behind a request's credentials. */
export interface Authenticator {
  /**
   * The user the credentials prove, or undefined when they prove none: absent, malformed or
   * unknown. Never throws for bad input. Each call returns a fresh object the caller may keep.
   */
  authenticate(headers: AuthenticationHeaders, clientCertificate?: ClientCertificateIdentity): UserInfo | undefined;
}

/** The group every authenticated user belongs to. */
export const AUTHENTICATED_GROUP = 'system:authenticated';

/**
 * Authenticates by client certificate, as kube-apiserver does: user = CN, groups = O plus
 * system:authenticated. Declines a certificate with an empty CN and requests without one.
 * Assumes the TLS layer verified the certificate against the cluster CA.
 */
export class ClientCertificateAuthenticator implements Authenticator {
  authenticate(_headers: AuthenticationHeaders, clientCertificate?: ClientCertificateIdentity): UserInfo | undefined {
    if (clientCertificate === undefined || clientCertificate.commonName === '') return undefined;
    const groups = [...clientCertificate.organizations];
    if (!groups.includes(AUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
    return { name: clientCertificate.commonName, groups };
  }
}

/**
 * Tries each authenticator in order; the first that names a user wins. Declines when all do
 * (so an invalid token next to a valid client certificate still authenticates, as in Kubernetes).
 */
export class UnionAuthenticator implements Authenticator {
  readonly #authenticators: readonly Authenticator[];

  constructor(authenticators: readonly Authenticator[]) {
    this.#authenticators = [...authenticators];
  }

  authenticate(headers: AuthenticationHeaders, clientCertificate?: ClientCertificateIdentity): UserInfo | undefined {
    for (const authenticator of this.#authenticators) {
      const user = authenticator.authenticate(headers, clientCertificate);
      if (user !== undefined) return user;
    }
    return undefined;
  }
}
