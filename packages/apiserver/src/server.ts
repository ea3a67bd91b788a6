/**
 * ApiServer: the Kubernetes REST API over a Store, on fastify.
 *
 * Expected flow: `ApiServer.start(options)` opens one watch cache per served kind, creates the
 * namespaces every cluster has (default, kube-system, kube-public, kube-node-lease; they cannot be
 * deleted, and are created again when missing: admission/systemnamespaces.ts), and listens.
 * /readyz answers 200 once the caches are primed. `stop()` stops taking requests, ends open
 * watches cleanly, and stops the caches; it does not close the store (its owner does).
 *
 * Guarantees: every error is a Status with Content-Type application/json; requests without valid
 * credentials (bearer token, ServiceAccount token, or client certificate of the CA) get a bare 401
 * Unauthorized Status that never says why (except /livez, /readyz, /healthz and /version, and
 * /metrics from loopback); Impersonate-* headers are served as Kubernetes serves them
 * (auth/impersonation.ts). With an authenticator, authenticated requests are then authorized
 * (authz/: system:masters, Node, RBAC, with the default roles ensured at start) and refused with
 * Kubernetes' 403 before anything is read or written. Requests beyond the in-flight limits get 429
 * with Retry-After, and requests that outlive the request timeout 504 (http/limits.ts); with
 * `audit`, every request is recorded in the audit log by its policy (audit/).
 *
 * The class wires parts that live apart: the request filters (http/filters.ts), the API's route
 * table (routes/api.ts), the storages of the served kinds (storage/storages.ts), the admission
 * chain (admission/plugins.ts: NamespaceLifecycle, NodeRestriction, PodSecurity…), and what a kind declares
 * (registry/: its rules and subresources).
 */
import { generateKeyPairSync } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { ApiError, realClock, silentLogger, type Clock, type KubeObject, type Logger } from '@setpoint/api';
import { Compactor, type CompactorOptions, type Store } from '@setpoint/store';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { AdmissionChain } from './admission/chain.js';
import { serverAdmission } from './admission/plugins.js';
import { createMissingSystemNamespaces, SystemNamespacesLoop } from './admission/systemnamespaces.js';
import { clientCertificateTlsOptions } from './auth/clientcert.js';
import { UnionAuthenticator, type Authenticator, type UserInfo } from './auth/index.js';
import { Authorization, type AuthorizationOptions } from './authz/index.js';
import { ServiceAccountTokens, type BoundResource, type ServiceAccountTokenOptions } from './auth/serviceaccount.js';
import { CrdController } from './crd/controller.js';
import { DashboardFiles, DashboardSessions, dashboardLoginPath, registerDashboardRoutes, type ComponentMetricsSource, type DashboardSessionOptions } from './dashboard/index.js';
import { podSecurityOver } from './admission/podsecurity/wiring.js';
import type { PodSecurityAdmission, PodSecurityConfig } from './admission/podsecurity/index.js';
import { Auditor, type AuditOptions } from './audit/index.js';
import { answerClientError, answerExpectationFailed, answerFrameworkError } from './http/clienterror.js';
import { connectionServerOptions, type ConnectionTimeoutOptions } from './http/connections.js';
import { installRequestFilters } from './http/filters.js';
import { RequestLimits, bodyTooLarge, isBodyTooLarge, type RequestLimitsOptions } from './http/limits.js';
import { ApiMetrics } from './http/metrics.js';
import { send, sendError, toApiError } from './http/respond.js';
import { OpenApiDocuments } from './openapi/openapi.js';
import { builtinResources } from './registry/builtin.js';
import { Registry } from './registry/registry.js';
import type { ResourceDef, SubresourceServices } from './registry/types.js';
import type { KubeletClientOptions } from './routes/podlog.js';
import { handleApiRequest, type ApiRouteParts } from './routes/api.js';
import { notFoundPath } from './routes/resources.js';
import { StoredObjectDecoder } from './storage/codec.js';
import { gatedStore, runWithCommitGate } from './http/commitgate.js';
import type { ResourceStorage } from './storage/rest.js';
import { Storages } from './storage/storages.js';
import type { WatchCacheOptions } from './watchcache/cache.js';

/** The Kubernetes version Setpoint's API corresponds to (what /version reports). */
export const KUBERNETES_VERSION = { major: '1', minor: '32', gitVersion: 'v1.32.0' };

export interface ApiServerOptions {
  readonly store: Store;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 6443; 0 picks a free port. */
  readonly port?: number;
  /**
   * Serve HTTPS with this certificate; without it, plain HTTP (tests, --insecure-http). With
   * `clientCA` (PEM), clients are asked for a certificate, and one this CA signed authenticates its
   * CN as user and its Os as groups (auth/clientcert.ts).
   */
  readonly tls?: { readonly cert: string; readonly key: string; readonly clientCA?: string };
  /**
   * Who may call the API (ServiceAccount tokens are always accepted besides). Without one, every
   * request is served as an anonymous admin (tests only).
   */
  readonly authenticator?: Authenticator;
  /**
   * ServiceAccount tokens (issued by serviceaccounts/token, accepted as bearer tokens): their keys
   * (ensureServiceAccountKeys), issuer and audiences. Default: a key pair made at start and kept in
   * memory only, so tokens die with the server (tests).
   */
  readonly serviceAccountTokens?: Omit<ServiceAccountTokenOptions, 'clock' | 'logger'>;
  /** The kinds served. Default: the built-in kinds. */
  readonly resources?: readonly ResourceDef[];
  /**
   * Store compaction; false disables it. Default: every 5 minutes, keeping 1,000 revisions. With
   * `leadership` (several API servers on one etcd: EtcdStore.election), only the leader compacts.
   */
  readonly compaction?: Pick<CompactorOptions, 'intervalMs' | 'retainRevisions' | 'leadership'> | false;
  readonly watchCache?: WatchCacheOptions;
  /** The version the server reports as its own build (gitVersion stays Kubernetes-shaped). */
  readonly setpointVersion?: string;
  /** How to reach node agents for pods/log (routes/podlog.ts). Without it, pods/log answers 503. */
  readonly kubeletClient?: KubeletClientOptions;
  /**
   * How authenticated requests are authorized (authz/): default the modes Node and RBAC, with the
   * default roles and bindings ensured at start. false allows every authenticated request
   * (AlwaysAllow). Without an authenticator nothing is authorized (everyone is an anonymous admin).
   */
  readonly authorization?: AuthorizationOptions | false;
  /**
   * Request limits (http/limits.ts): requests in flight (read-only, mutating, and a reserved pool for
   * leases), watches per user, body size, request timeouts. Defaults: kube-apiserver's.
   */
  readonly limits?: RequestLimitsOptions;
  /**
   * How long a client may take to send a request's headers, and the whole request, before its
   * connection is closed (http/connections.ts). Defaults: 32 s and 60 s.
   */
  readonly connections?: ConnectionTimeoutOptions;
  /** The audit log (audit/): one audit.k8s.io/v1 event a line, by policy. Off unless given. */
  readonly audit?: AuditOptions;
  /**
   * PodSecurity admission (admission/podsecurity/): defaults and exemptions. Always on; without
   * this, namespaces without pod-security.kubernetes.io labels are privileged (nothing enforced).
   */
  readonly podSecurity?: PodSecurityConfig;
  /**
   * The web dashboard (dashboard/): `dir` is its build (index.html, assets/), served at /ui/ to
   * everyone; sign-in links and sessions last as the options say. Without `dir`, /ui/ is a 404
   * (sign-in links still work).
   */
  readonly dashboard?: DashboardSessionOptions & { readonly dir?: string | undefined };
  /**
   * Check objects read back from the store with typed decoding (default true): a malformed one
   * answers GET with 500 and is left out of lists and watches. false serves stored objects as
   * they are, as an older or buggy API server would (tests of what controllers do with them).
   */
  readonly checkStoredObjects?: boolean;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export class ApiServer {
  readonly registry: Registry;
  readonly metrics = new ApiMetrics();
  private readonly app: FastifyInstance;
  /** The storage of every served kind (storage/storages.ts). */
  private readonly storages: Storages;
  private readonly openapi: OpenApiDocuments;
  private readonly stopping = new AbortController();
  private readonly clock: Clock;
  private readonly logger: Logger;
  /** Decodes objects read back from the store (typed decoding unless checkStoredObjects is false). */
  private readonly storedObjects: StoredObjectDecoder;
  private compactor: Compactor | undefined;
  private crdController: CrdController | undefined;
  /** Creates the system namespaces again when they go missing (admission/systemnamespaces.ts). */
  private systemNamespaces: SystemNamespacesLoop | undefined;
  /** Authorization of authenticated requests; undefined when every request is allowed. */
  private authorization: Authorization | undefined;
  /** In-flight, watch, body and time limits of requests. */
  readonly limits: RequestLimits;
  /** The store as the REST storages write it: each write passes its request's commit gate (http/commitgate.ts). */
  private readonly gatedStore: Store;
  /** The audit log, when configured (opened at start). */
  private auditor: Auditor | undefined;
  /** The admission chain of every request and every storage (admission/plugins.ts). */
  private readonly admission: AdmissionChain;
  /** PodSecurity admission (set at start, once the storages exist). */
  private podSecurity: PodSecurityAdmission | undefined;
  private ready = false;
  private address = '';
  /** Issues and checks ServiceAccount tokens. */
  readonly serviceAccountTokens: ServiceAccountTokens;
  /** Dashboard sign-in links and the sessions they open (an authenticator beside the configured one). */
  readonly dashboardSessions: DashboardSessions;
  /** Prometheus text of other components (the controller-manager…), served at /metrics/components/NAME. */
  private readonly componentMetrics = new Map<string, ComponentMetricsSource>();
  /** What subresource handlers use (registry/types.ts). */
  private readonly subresourceServices: SubresourceServices;
  /** The configured authenticator and ServiceAccount tokens; undefined when the server authenticates nobody. */
  private readonly authenticator: Authenticator | undefined;

  private constructor(private readonly options: ApiServerOptions) {
    this.gatedStore = gatedStore(options.store);
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
    this.storedObjects = new StoredObjectDecoder({ check: options.checkStoredObjects ?? true, logger: this.logger, registry: this.metrics.registry });
    this.registry = new Registry(options.resources ?? builtinResources);
    this.openapi = new OpenApiDocuments(this.registry);
    this.admission = serverAdmission({
      namespaces: () => this.storageFor('', 'v1', 'namespaces'),
      authorization: () => this.authorization,
      podSecurity: () => this.podSecurity,
    });
    this.storages = new Storages({
      store: options.store,
      writeStore: this.gatedStore,
      registry: this.registry,
      admission: this.admission,
      decoder: this.storedObjects,
      watchCache: options.watchCache,
      clock: this.clock,
      logger: this.logger,
    });
    setMaxListeners(0, this.stopping.signal); // one listener per open watch
    const saOptions = options.serviceAccountTokens ?? { keys: ephemeralServiceAccountKeys() };
    this.serviceAccountTokens = new ServiceAccountTokens({ get: (resource, ns, name) => this.boundObject(resource, ns, name) }, { ...saOptions, clock: this.clock, logger: this.logger });
    this.dashboardSessions = new DashboardSessions({ ...options.dashboard, clock: this.clock });
    this.subresourceServices = {
      storageFor: (group, version, resource) => this.storageFor(group, version, resource),
      tokens: this.serviceAccountTokens,
      kubelet: options.kubeletClient,
      stopping: this.stopping.signal,
      logger: this.logger,
    };
    this.authenticator = options.authenticator === undefined ? undefined : new UnionAuthenticator([options.authenticator, this.serviceAccountTokens, this.dashboardSessions]);
    this.limits = new RequestLimits(options.limits, { clock: this.clock, registry: this.metrics.registry, everyoneIsAdmin: options.authenticator === undefined });
    const tls = options.tls;
    const connections = connectionServerOptions(options.connections); // header and body timeouts (http/connections.ts)
    this.app = Fastify({
      ...(tls ? { https: { ...connections, cert: tls.cert, key: tls.key, ...(tls.clientCA === undefined ? {} : clientCertificateTlsOptions(tls.clientCA)) } } : { http: connections }),
      requestTimeout: connections.requestTimeout,
      bodyLimit: this.limits.maxRequestBodyBytes,
      clientErrorHandler: answerClientError,
      frameworkErrors: answerFrameworkError,
      logger: false,
      forceCloseConnections: true,
      return503OnClosing: true,
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    }) as unknown as FastifyInstance;
    this.app.server.on('checkExpectation', answerExpectationFailed);
    this.routes();
  }

  /** Starts a server; resolves when it listens and its caches are primed. */
  static async start(options: ApiServerOptions): Promise<ApiServer> {
    const server = new ApiServer(options);
    try {
      await server.open();
    } catch (err) {
      await server.stop().catch(() => undefined);
      throw err;
    }
    return server;
  }

  /** "https://127.0.0.1:6443" (or http:// without TLS). */
  get url(): string {
    return this.address;
  }

  get port(): number {
    return (this.app.server.address() as AddressInfo).port;
  }

  /** The storage of a served kind (for in-process callers such as tests and bootstrap). */
  storageFor(group: string, version: string, resource: string): ResourceStorage {
    return this.storages.lookup(group, version, resource);
  }

  /**
   * A one-time dashboard sign-in link for `user` (see dashboard/sessions.ts): the path to append to
   * `url`, and when it stops working.
   */
  dashboardLink(user: UserInfo): { readonly path: string; readonly expiresAt: Date } {
    const link = this.dashboardSessions.issueLink(user);
    return { path: dashboardLoginPath(link.code), expiresAt: new Date(link.expiresAt) };
  }

  /**
   * Serves `source`'s Prometheus text at /metrics/components/`name` to users authorized for that
   * path (the dashboard's Controllers page reads it); a later call for the same name replaces it.
   */
  serveComponentMetrics(name: string, source: ComponentMetricsSource): void {
    this.componentMetrics.set(name, source);
  }

  /** Stops taking requests, ends watches, stops the caches and the compactor. Idempotent. */
  async stop(): Promise<void> {
    this.ready = false;
    this.stopping.abort();
    this.crdController?.stop();
    await this.systemNamespaces?.stop();
    this.authorization?.stop();
    await this.compactor?.stop();
    this.storages.stop();
    await this.app.close();
    await this.auditor?.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private async open(): Promise<void> {
    const { store } = this.options;
    if (this.options.audit !== undefined) this.auditor = await Auditor.open(this.options.audit, { registry: this.metrics.registry, clock: this.clock, logger: this.logger });
    this.storages.addRegistered();
    await this.storages.start();
    this.podSecurity = podSecurityOver(this.options.podSecurity ?? {}, (group, resource) => this.storages.builtin(group, resource), this.metrics.registry);
    await this.bootstrap();
    this.systemNamespaces = new SystemNamespacesLoop(async () => {
      for (const namespace of await this.bootstrap()) this.logger.warn({ namespace }, 'system namespace was missing; created it again');
    }, { clock: this.clock, logger: this.logger });
    this.systemNamespaces.start();
    if (this.options.authenticator !== undefined && this.options.authorization !== false) {
      this.authorization = await Authorization.start(
        { storageOf: (group, resource) => this.storages.builtin(group, resource) },
        { ...this.options.authorization, clock: this.clock, logger: this.logger },
      );
    }
    await this.startCrdController();
    if (this.options.compaction !== false) {
      this.compactor = new Compactor(store, { ...this.options.compaction, clock: this.clock, logger: this.logger });
      await this.compactor.start();
    }
    await this.app.listen({ host: this.options.host ?? '127.0.0.1', port: this.options.port ?? 6443 });
    const host = this.options.host ?? '127.0.0.1';
    const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
    this.address = `${this.options.tls ? 'https' : 'http'}://${shown}:${this.port}`;
    this.ready = true;
    this.logger.info({ url: this.address }, 'API server listening');
  }

  /** Serves the kinds of stored CustomResourceDefinitions and follows their changes (when CRDs are served). */
  private async startCrdController(): Promise<void> {
    const def = this.registry.lookup('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
    const crds = def && this.storages.of(def);
    if (crds === undefined) return;
    this.crdController = new CrdController(
      {
        crds,
        serve: (name, defs) => this.storages.serveCustom(name, defs),
        storageOf: (d) => this.storages.of(d),
        builtinConflict: (group, resource, kind) => this.registry.all().some((d) => d.custom !== true && d.group === group && (d.resource === resource || d.kind === kind)),
      },
      { clock: this.clock, logger: this.logger, registry: this.metrics.registry },
    );
    await this.crdController.start();
  }

  /** An object a ServiceAccount token names, or undefined when it does not exist. */
  private async boundObject(resource: BoundResource, namespace: string, name: string): Promise<KubeObject | undefined> {
    try {
      return await this.storageFor('', 'v1', resource).get(namespace, name);
    } catch (err) {
      if (err instanceof ApiError && err.reason === 'NotFound') return undefined;
      throw err;
    }
  }

  /** Creates the namespaces every cluster has that are missing; resolves with those it created. */
  private bootstrap(): Promise<string[]> {
    return createMissingSystemNamespaces(this.storageFor('', 'v1', 'namespaces'), this.options.store);
  }

  private routes(): void {
    const app = this.app;
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: this.limits.maxRequestBodyBytes }, (_req, body, done) => done(null, body));
    app.setErrorHandler((err, req, reply) => {
      let apiError: unknown = err;
      try {
        apiError = isBodyTooLarge(err) ? bodyTooLarge(this.limits.maxRequestBodyBytes) : toApiError(err);
        // The client gets a Status without a stack trace; the log gets the error.
        if ((apiError as ApiError).code === 500) this.logger.error({ err, method: req.method, path: req.url.split('?', 1)[0] }, 'request failed');
      } catch {
        // sendError answers an InternalError Status whatever it is given.
      }
      sendError(reply, apiError);
    });
    app.setNotFoundHandler((req, reply) => {
      if (req.url.startsWith('/api')) return sendError(reply, notFoundPath());
      return reply.code(404).type('text/plain').send('404 page not found\n');
    });
    // The request filters: audit, timeouts, authentication, impersonation, authorization, seats in flight, metrics (http/filters.ts).
    installRequestFilters(app, {
      auditor: () => this.auditor,
      audited: this.options.audit !== undefined,
      limits: this.limits,
      authenticator: this.authenticator,
      authorization: () => this.authorization,
      metrics: this.metrics,
      logger: this.logger,
    });
    app.get('/livez', async (_req, reply) => reply.type('text/plain').send('ok'));
    app.get('/healthz', async (_req, reply) => reply.type('text/plain').send('ok'));
    app.get('/readyz', async (_req, reply) => (this.ready ? reply.type('text/plain').send('ok') : reply.code(503).type('text/plain').send('not ready')));
    app.get('/version', async (_req, reply) =>
      send(reply, 200, {
        ...KUBERNETES_VERSION,
        gitCommit: 'setpoint',
        gitTreeState: 'clean',
        buildDate: '2026-11-29T00:00:00Z',
        goVersion: `node${process.versions.node}`,
        compiler: 'tsc',
        platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
        setpointVersion: this.options.setpointVersion ?? packageVersion(),
      }),
    );
    app.get('/metrics', async (_req, reply) => {
      this.metrics.storeRevision.set(await this.options.store.currentRevision());
      this.metrics.storeCompactRevision.set(await this.options.store.compactRevision());
      for (const storage of this.storages.all()) this.metrics.storeObjects.set({ resource: storage.gr.group ? `${storage.gr.resource}.${storage.gr.group}` : storage.gr.resource }, storage.cache.size);
      return reply.type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
    });
    const dashboardDir = this.options.dashboard?.dir;
    registerDashboardRoutes(app, { files: dashboardDir === undefined ? undefined : new DashboardFiles(dashboardDir), sessions: this.dashboardSessions, components: this.componentMetrics });
    app.get('/openapi/v3', async (_req, reply) => send(reply, 200, this.openapi.index()));
    app.get('/openapi/v3/*', async (req, reply) => {
      const rest = (req.params as { '*': string })['*'].split('?')[0]!.split('/');
      const doc = rest[0] === 'api' && rest.length === 2 ? this.openapi.document('', rest[1]!) : rest[0] === 'apis' && rest.length === 3 ? this.openapi.document(rest[1]!, rest[2]!) : undefined;
      if (doc === undefined) return sendError(reply, notFoundPath());
      return reply.type('application/json').header('Etag', `"${doc.hash}"`).send(doc.json);
    });
    const parts: ApiRouteParts = {
      registry: this.registry,
      storages: this.storages,
      subresources: this.subresourceServices,
      authorization: () => this.authorization,
      admission: this.admission,
      limits: this.limits,
      metrics: this.metrics,
      stopping: this.stopping.signal,
      clock: this.clock,
    };
    const api = (req: FastifyRequest, reply: FastifyReply) => this.limits.holdDuring(req, runWithCommitGate(this.limits.commitGate(req), () => handleApiRequest(req, reply, parts)));
    for (const url of ['/api', '/api/*', '/apis', '/apis/*']) {
      app.route({ method: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'], url, handler: api });
    }
  }

}

/** A ServiceAccount token key pair that lives as long as the process (servers given no keys). */
function ephemeralServiceAccountKeys(): ServiceAccountTokenOptions['keys'] {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { signingKey: privateKey, verifyingKeys: [publicKey] };
}


let cachedVersion: string | undefined;
function packageVersion(): string {
  if (cachedVersion === undefined) {
    try {
      cachedVersion = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      cachedVersion = 'unknown';
    }
  }
  return cachedVersion;
}
