/**
 * An in-process control plane for tests: Setpoint's API server on the memory store, on a free
 * loopback port, plain HTTP, no authentication. Starts in well under a second.
 *
 *   await using cp = await startControlPlane();
 *   // cp.config is a ClientConfig for it; cp.restart() restarts the API server on the same store
 *   // and port (open watches end, as they do when a real API server restarts).
 */
import { ApiServer, type ApiServerOptions, type WatchCacheOptions } from '@setpoint/apiserver';
import { MemoryStore, type Store } from '@setpoint/store';
import type { ClientConfig } from '../types.js';

export interface ControlPlaneOptions {
  /** The store to serve; default a new MemoryStore (closed by stop()). */
  readonly store?: Store;
  readonly watchCache?: WatchCacheOptions;
  /** Store compaction; default off (tests compact by hand with `store.compact`). */
  readonly compaction?: ApiServerOptions['compaction'];
}

export interface ControlPlane extends AsyncDisposable {
  readonly store: Store;
  readonly url: string;
  readonly config: ClientConfig;
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
  });
  let server = await ApiServer.start(serverOptions(0));
  const port = server.port;
  const url = server.url;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    if (ownStore) await store.close();
  };
  return {
    store,
    url,
    config: { server: url },
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
