/** Where a client's configuration comes from: kubeconfig files, the pod's service account, exec plugins. */
export { ConfigError, type ConfigErrorOptions } from './errors.js';
export { EXEC_API_VERSIONS, kubeconfigPaths, loadKubeconfig, type LoadKubeconfigOptions } from './kubeconfig.js';
export { SERVICE_ACCOUNT_DIR, SERVICE_ACCOUNT_DIR_ENV, inClusterConfig, type InClusterOptions } from './incluster.js';
export { ExecCredentialProvider, type ExecClusterInfo, type ExecCredential, type ExecCredentialProviderOptions } from './exec.js';
