/**
 * An in-process control plane for tests: Setpoint's API server on the memory store, on a free
 * loopback port, plain HTTP, no authentication. Starts in well under a second.
 *
 *   await using cp = await startControlPlane();
 *   // cp.client is a Client for it (cp.config its ClientConfig); cp.kubeconfig() writes a
 *   // kubeconfig for kubectl; cp.restart() restarts the API server on the same store and port
 *   // (open watches end, as they do when a real API server restarts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiServer, renderKubeconfig, type ApiServerOptions, type WatchCacheOptions } from '@setpoint/apiserver';
import { Client, type ClientConfig } from '@setpoint/client';
import { MemoryStore, type Store } from '@setpoint/store';

export interface ControlPlaneOptions {
  /** The store to serve; default a new MemoryStore (closed by stop()). */
  readonly store?: Store;
  readonly watchCache?: WatchCacheOptions;
  /** Store compaction; default off (tests compact by hand with `store.compact`). */
  readonly compaction?: ApiServerOptions['compaction'];
  /** Typed decoding of stored objects (ApiServerOptions.checkStoredObjects); default true. */
  readonly checkStoredObjects?: boolean;
}

export interface ControlPlane extends AsyncDisposable {
  readonly store: Store;
  readonly url: string;
  readonly config: ClientConfig;
  /** A client of the control plane (no client-side rate limit), closed by stop(). */
  readonly client: Client;
  /** Writes a kubeconfig for this control plane (for kubectl) and returns its path. */
  kubeconfig(): Promise<string>;
  /** The running API server (replaced by restart()). */
  readonly server: ApiServer;
  /** Stops the API server and starts a new one on the same store and port. */
  restart(): Promise<void>;
  /** Stops the API server, then closes the store if the control plane created it. */
  stop(): Promise<void>;
}

export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const ownStore = options.store === undefined;
  const store = options.store ?? new MemoryStore();
  const serverOptions = (port: number): ApiServerOptions => ({
    store,
    port,
    host: '127.0.0.1',
    compaction: options.compaction ?? false,
    ...(options.watchCache ? { watchCache: options.watchCache } : {}),
    ...(options.checkStoredObjects !== undefined ? { checkStoredObjects: options.checkStoredObjects } : {}),
  });
  let server = await ApiServer.start(serverOptions(0));
  const port = server.port;
  const url = server.url;
  const config: ClientConfig = { server: url };
  const client = new Client(config, { qps: 1_000_000, burst: 1_000_000 });
  let kubeconfigDir: string | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    client.close();
    await server.stop();
    if (ownStore) await store.close();
    if (kubeconfigDir !== undefined) await rm(kubeconfigDir, { recursive: true, force: true });
  };
  return {
    store,
    url,
    config,
    client,
    async kubeconfig() {
      kubeconfigDir ??= await mkdtemp(join(tmpdir(), 'setpoint-controlplane-'));
      const path = join(kubeconfigDir, 'kubeconfig.yaml');
      // The test server asks for no credentials; kubeconfig files need a user all the same.
      await writeFile(path, renderKubeconfig({ server: url, caCert: '', token: 'unused' }), { mode: 0o600 });
      return path;
    },
    get server() {
      return server;
    },
    async restart() {
      await server.stop();
      server = await ApiServer.start(serverOptions(port));
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
