/**
 * What the dashboard's browser tests share: an API server in this process serving the built app
 * (dist/) with token authentication and RBAC, a controller-manager-like Manager whose metrics the
 * server exposes, and Debian's Chromium driven by playwright-core.
 *
 * Assumes `npm run build` made dist/ (npm install does) and Chromium at /usr/bin/chromium
 * (`apt-get install -y chromium`; .ci/run installs it), or SETPOINT_CHROMIUM. Either missing fails
 * the tests with a message saying so: they never skip.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ApiServer, TokenAuthenticator } from '@setpoint/apiserver';
import { Client, Manager, builtin } from '@setpoint/client';
import { MemoryStore } from '@setpoint/store';
import { chromium, type Browser, type Page } from 'playwright-core';

/** The built app. */
export const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
/** Screenshots land here (gitignored). */
export const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
export const CHROMIUM = process.env.SETPOINT_CHROMIUM ?? '/usr/bin/chromium';

/** The flags the machine notes prescribe: no sandbox (root), nothing reaching for the network. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
];

export interface DashboardServer extends AsyncDisposable {
  readonly server: ApiServer;
  readonly url: string;
  readonly adminToken: string;
  /** A user with no roles at all. */
  readonly nobodyToken: string;
  /** An admin client of the server. */
  readonly client: Client;
  stop(): Promise<void>;
}

/**
 * An API server (memory store, plain HTTP on loopback, tokens, RBAC) serving dist/ at /ui/, and a
 * Manager running one controller (`configmap-watcher`, reconciling ConfigMaps) under the leader
 * Lease kube-system/setpoint-controller-manager, whose metrics the server serves as the
 * controller-manager's.
 */
export async function startDashboardServer(): Promise<DashboardServer> {
  if (!existsSync(`${DIST}index.html`)) throw new Error(`the dashboard is not built (no ${DIST}index.html): run npm run build`);
  const adminToken = randomBytes(24).toString('base64url');
  const nobodyToken = randomBytes(24).toString('base64url');
  const store = new MemoryStore();
  const server = await ApiServer.start({
    store,
    host: '127.0.0.1',
    port: 0,
    compaction: false,
    authenticator: new TokenAuthenticator({ adminToken, tokens: [[nobodyToken, { name: 'nobody', groups: [] }]] }),
    dashboard: { dir: DIST },
  });
  const client = new Client({ server: server.url, token: adminToken }, { qps: 100_000, burst: 100_000 });
  // The manager's own client: a manager fences its client's writes to the time it leads.
  const managerClient = new Client({ server: server.url, token: adminToken }, { qps: 100_000, burst: 100_000 });
  const manager = new Manager({
    client: managerClient,
    leaderElection: { name: 'setpoint-controller-manager', namespace: 'kube-system', identity: 'test-controller-manager', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 1_000 },
    gracefulShutdownMs: 1000,
  });
  manager
    .controller('configmap-watcher')
    .for(builtin.configMaps)
    .reconcile(async () => undefined);
  server.serveComponentMetrics('controller-manager', () => manager.metrics.registry.metrics());
  const stopManager = new AbortController();
  const running = manager.start(stopManager.signal);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    stopManager.abort();
    await running.catch(() => undefined);
    managerClient.close();
    client.close();
    await server.stop();
    await store.close();
  };
  return { server, url: server.url, adminToken, nobodyToken, client, stop, [Symbol.asyncDispose]: stop };
}

/** Chromium, headless, or an error that says how to install it. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: the dashboard's browser tests need it. Install it with \`apt-get install -y chromium\` (.ci/run does), or set SETPOINT_CHROMIUM.`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 });
}

/** Saves a full-page screenshot as test-artifacts/NAME.png. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

/** Resolves once `check()` is truthy; throws after `timeoutMs` naming what it waited for. */
export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
