/**
 * Client: the entry point — one HTTP client for one API server, resource clients for any kind
 * (by ResourceRef, or by apiVersion and kind through discovery), and typed clients for the
 * built-in kinds.
 */
import type { ConfigMap, Deployment, Event, KubeObject, Lease, Namespace, Node, Pod, ReplicaSet, Secret, ServiceAccount } from '@setpoint/api';
import { inClusterConfig, type InClusterOptions } from '../config/incluster.js';
import { loadKubeconfig, type LoadKubeconfigOptions } from '../config/kubeconfig.js';
import { HttpClient, type HttpClientOptions } from '../http/httpclient.js';
import type { ClientConfig, ResourceRef } from '../types.js';
import { builtin } from './builtin.js';
import { Discovery } from './discovery.js';
import { ResourceClient } from './resource.js';

/**
 * Options of a Client: those of its HttpClient (qps 5 / burst 10 as client-go's defaults for user
 * code, clock, maxRetries 10, timeoutMs 60,000, ...). Controllers that make many calls raise qps
 * and burst (kube-controller-manager runs with 20 / 30).
 */
export type ClientOptions = HttpClientOptions;

/**
 * A Kubernetes API client for one server.
 *
 * Guarantees: every resource client and the discovery client share one HttpClient (one
 * connection pool, one rate limiter). The default namespace of object calls is the config's
 * namespace, else "default". Nothing is sent by the constructor.
 */
export class Client {
  readonly config: ClientConfig;
  readonly http: HttpClient;
  readonly discovery: Discovery;
  /** Where namespaced object calls go when no namespace is given. */
  readonly namespace: string;

  /** Throws TypeError when config.server is not an http(s) URL. */
  constructor(config: ClientConfig, options: ClientOptions = {}) {
    this.config = config;
    this.http = new HttpClient(config, options);
    this.discovery = new Discovery(this.http);
    this.namespace = config.namespace ?? 'default';
  }

  /** A client for the kubeconfig's context (see loadKubeconfig); throws ConfigError as it does. */
  static async fromKubeconfig(options: LoadKubeconfigOptions & ClientOptions = {}): Promise<Client> {
    const { path, context, env, ...rest } = options;
    const config = await loadKubeconfig({ ...(path === undefined ? {} : { path }), ...(context === undefined ? {} : { context }), ...(env === undefined ? {} : { env }) });
    return new Client(config, rest);
  }

  /** A client for the pod's service account (see inClusterConfig); throws ConfigError as it does. */
  static async inCluster(options: InClusterOptions & ClientOptions = {}): Promise<Client> {
    const { tokenPath, caPath, namespacePath, env, ...rest } = options;
    const config = await inClusterConfig({
      ...(tokenPath === undefined ? {} : { tokenPath }),
      ...(caPath === undefined ? {} : { caPath }),
      ...(namespacePath === undefined ? {} : { namespacePath }),
      ...(env === undefined ? {} : { env }),
    });
    return new Client(config, rest);
  }

  /** The client of the kind `ref` addresses. */
  resource<T extends KubeObject = KubeObject>(ref: ResourceRef): ResourceClient<T> {
    return new ResourceClient<T>(this.http, ref, this.namespace);
  }

  /**
   * The client of `kind` in `apiVersion`, found through discovery (cached; re-read once on a miss).
   * Throws ApiError NotFound `no matches for kind ...` when the server does not serve it.
   */
  async resourceFor<T extends KubeObject = KubeObject>(apiVersion: string, kind: string): Promise<ResourceClient<T>> {
    return this.resource<T>(await this.discovery.resolve(apiVersion, kind));
  }

  namespaces(): ResourceClient<Namespace> {
    return this.resource<Namespace>(builtin.namespaces);
  }
  configMaps(): ResourceClient<ConfigMap> {
    return this.resource<ConfigMap>(builtin.configMaps);
  }
  secrets(): ResourceClient<Secret> {
    return this.resource<Secret>(builtin.secrets);
  }
  events(): ResourceClient<Event> {
    return this.resource<Event>(builtin.events);
  }
  serviceAccounts(): ResourceClient<ServiceAccount> {
    return this.resource<ServiceAccount>(builtin.serviceAccounts);
  }
  nodes(): ResourceClient<Node> {
    return this.resource<Node>(builtin.nodes);
  }
  pods(): ResourceClient<Pod> {
    return this.resource<Pod>(builtin.pods);
  }
  replicaSets(): ResourceClient<ReplicaSet> {
    return this.resource<ReplicaSet>(builtin.replicaSets);
  }
  deployments(): ResourceClient<Deployment> {
    return this.resource<Deployment>(builtin.deployments);
  }
  leases(): ResourceClient<Lease> {
    return this.resource<Lease>(builtin.leases);
  }

  /** Closes the connections (open watches end). */
  close(): void {
    this.http.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }
}
