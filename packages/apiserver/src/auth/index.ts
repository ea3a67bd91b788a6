/** The API server's credentials: certificates, tokens, kubeconfig, and who a request comes from. */
export {
  CA_DAYS,
  DEFAULT_SERVING_HOSTS,
  RENEW_BEFORE_DAYS,
  SERVING_DAYS,
  certificateFiles,
  ensureServingCertificates,
  issueClientCertificate,
} from './certs.js';
export type { CertificateAndKey, EnsureServingCertificatesOptions, IssueClientCertificateOptions, ServingCertificates } from './certs.js';
export { AUTHENTICATED_GROUP, ClientCertificateAuthenticator, UnionAuthenticator } from './authenticator.js';
export type { AuthenticationHeaders, Authenticator, ClientCertificateIdentity, UserInfo } from './authenticator.js';
export { ADMIN_TOKEN_FILE, ADMIN_USER, TokenAuthenticator, ensureAdminToken, parseBearerToken } from './tokens.js';
export type { TokenAuthenticatorOptions } from './tokens.js';
export { renderKubeconfig, writeKubeconfig } from './kubeconfig.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export { CredentialsError } from './errors.js';
export type { CredentialsErrorCode } from './errors.js';
