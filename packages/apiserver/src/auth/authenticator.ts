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
  /**
   * What the authenticator adds about the credential (Kubernetes' user.Info extra), e.g. the pod a
   * ServiceAccount token is bound to: `authentication.kubernetes.io/pod-name`. Absent when none.
   */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
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

/** The user an authenticator names, or undefined; now or, when it must look something up, later. */
export type AuthenticationResult = UserInfo | undefined | Promise<UserInfo | undefined>;

/** Names the user behind a request's credentials. */
export interface Authenticator {
  /**
   * The user the credentials prove, or undefined when they prove none: absent, malformed, unknown,
   * expired or revoked. Never throws (nor rejects) for bad input. Each call returns a fresh object
   * the caller may keep. Authenticators that only compare (tokens, certificates) answer at once;
   * those that read objects (ServiceAccount tokens) answer with a promise.
   */
  authenticate(headers: AuthenticationHeaders, clientCertificate?: ClientCertificateIdentity): AuthenticationResult;
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

/** `user` with system:authenticated among its groups (added last when missing). */
export function withAuthenticatedGroup(user: UserInfo): UserInfo {
  return user.groups.includes(AUTHENTICATED_GROUP) ? user : { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}

/**
 * Tries each authenticator in order; the first that names a user wins. Declines when all do
 * (so an invalid token next to a valid client certificate still authenticates, as in Kubernetes).
 * Every user it names is in system:authenticated (Kubernetes' AuthenticatedGroupAdder), whichever
 * authenticator named it. Always answers with a promise.
 */
export class UnionAuthenticator implements Authenticator {
  private readonly authenticators: readonly Authenticator[];

  constructor(authenticators: readonly Authenticator[]) {
    this.authenticators = [...authenticators];
  }

  async authenticate(headers: AuthenticationHeaders, clientCertificate?: ClientCertificateIdentity): Promise<UserInfo | undefined> {
    for (const authenticator of this.authenticators) {
      const user = await authenticator.authenticate(headers, clientCertificate);
      if (user !== undefined) return withAuthenticatedGroup(user);
    }
    return undefined;
  }
}
