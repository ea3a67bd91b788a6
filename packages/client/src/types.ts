/**
 * The contracts the parts of the client share: how a kind is addressed, what list and watch take
 * and give, and how a client is configured. Everything here is the Kubernetes wire protocol; none of
 * it depends on Setpoint's server, so the client works against any Kubernetes API server.
 */
import type { KubeList, KubeObject } from '@setpoint/api';

/** Where a kind lives on the API: /api/v1/... for group '' or /apis/{group}/{version}/... */
export interface ResourceRef {
  readonly group: string;
  readonly version: string;
  /** Plural, lower case: the URL segment. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface ListOptions {
  /** Only this namespace; absent or '' lists every namespace (or a cluster-scoped kind). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  readonly timeoutSeconds?: number;
  readonly signal?: AbortSignal;
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Changes after this resourceVersion; absent or "0" starts with the current state as ADDED. */
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'NotOlderThan';
  readonly allowWatchBookmarks?: boolean;
  /** Watch-list: the current state first, ended by a BOOKMARK annotated k8s.io/initial-events-end. */
  readonly sendInitialEvents?: boolean;
  /** The server ends the watch after this many seconds. */
  readonly timeoutSeconds?: number;
  /** Aborting ends the watch; the iterator then finishes without an error. */
  readonly signal?: AbortSignal;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

/** One event of a watch. ERROR events are not delivered: the iterator throws them as ApiError. */
export interface WatchEvent<T extends KubeObject = KubeObject> {
  readonly type: WatchEventType;
  readonly object: T;
}

/**
 * What an informer needs of a kind: one list call (one page) and one watch. A watch's iterator ends
 * when the server closes the stream and throws ApiError for ERROR events (410 Expired/Gone: the
 * resourceVersion is too old, relist) and for transport failures.
 */
export interface ListWatch<T extends KubeObject = KubeObject> {
  list(options: ListOptions): Promise<KubeList<T>>;
  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

/** An exec credential plugin (client.authentication.k8s.io/v1 ExecCredential). */
export interface ExecConfig {
  readonly command: string;
  readonly args?: readonly string[];
  readonly env?: ReadonlyArray<{ name: string; value: string }>;
  readonly apiVersion?: string;
  readonly interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
  readonly provideClusterInfo?: boolean;
}

/** How to reach and authenticate to one API server (what a kubeconfig context resolves to). */
export interface ClientConfig {
  /** "https://host:port" (or http:// for a test server). */
  readonly server: string;
  /** PEM CA bundle to trust; absent: the system's. */
  readonly ca?: string;
  readonly insecureSkipTLSVerify?: boolean;
  /** TLS server name to verify instead of the URL's host. */
  readonly tlsServerName?: string;
  /** Client certificate and key (PEM). */
  readonly cert?: string;
  readonly key?: string;
  readonly token?: string;
  /** A file holding the token, re-read when it changes (service account tokens rotate). */
  readonly tokenFile?: string;
  readonly username?: string;
  readonly password?: string;
  readonly exec?: ExecConfig;
  /** The context's default namespace. */
  readonly namespace?: string;
  readonly userAgent?: string;
}
