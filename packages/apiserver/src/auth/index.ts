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
export { AUTHENTICATED_GROUP, ClientCertificateAuthenticator, UnionAuthenticator, withAuthenticatedGroup } from './authenticator.js';
export type { AuthenticationHeaders, AuthenticationResult, Authenticator, ClientCertificateIdentity, UserInfo } from './authenticator.js';
export {
  IMPERSONATE_EXTRA_HEADER_PREFIX,
  IMPERSONATE_GROUP_HEADER,
  IMPERSONATE_UID_HEADER,
  IMPERSONATE_USER_HEADER,
  actingUser,
  impersonatedUser,
  impersonationTargets,
  removeImpersonationHeaders,
} from './impersonation.js';
export type { DistinctHeaders, ImpersonatingRequest, ImpersonationAuthorizer, ImpersonationCheck, ImpersonationTarget } from './impersonation.js';
export { clientCertificateTlsOptions, verifiedClientCertificate } from './clientcert.js';
export { loadTokenFile, parseTokenFile } from './tokenfile.js';
export type { TokenFileEntry } from './tokenfile.js';
export { ensureServiceAccountKeys, parsePublicKeys, serviceAccountKeyFiles } from './sakeys.js';
export type { ServiceAccountKeys } from './sakeys.js';
export {
  DEFAULT_SERVICE_ACCOUNT_ISSUER,
  SERVICE_ACCOUNTS_GROUP,
  ServiceAccountTokens,
  serviceAccountGroups,
  serviceAccountUsername,
} from './serviceaccount.js';
export type { BoundObjectReader, BoundResource, IssuedToken, ServiceAccountTokenOptions, TokenBinding } from './serviceaccount.js';
export {
  COMPONENTS_DIR,
  CONTROLLER_MANAGER_IDENTITY,
  NODES_GROUP,
  SCHEDULER_IDENTITY,
  SIMULATED_NODES_IDENTITY,
  agentIdentity,
  ensureComponentCredentials,
  nodeUsername,
} from './components.js';
export type { ComponentCredential, ComponentIdentity, EnsureComponentCredentialsOptions } from './components.js';
export { ADMIN_TOKEN_FILE, ADMIN_USER, TokenAuthenticator, ensureAdminToken, parseBearerToken } from './tokens.js';
export type { TokenAuthenticatorOptions } from './tokens.js';
export { renderKubeconfig, writeKubeconfig } from './kubeconfig.js';
export {
  KUBELET_CLIENT_COMMON_NAME,
  ensureAgentServingCertificate,
  ensureKubeletClientCertificate,
  ensureKubeletToken,
  kubeletCredentialFiles,
} from './kubelet.js';
export type { EnsureAgentServingCertificateOptions, EnsureKubeletClientCertificateOptions } from './kubelet.js';
export type { KubeconfigOptions } from './kubeconfig.js';
export { CredentialsError } from './errors.js';
export type { CredentialsErrorCode } from './errors.js';
