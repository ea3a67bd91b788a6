/**
 * `setpoint dashboard [--data-dir D] [--kubeconfig F]`: prints a one-time sign-in link to the
 * dashboard of the running API server, for the user of the admin kubeconfig in the data dir (or of
 * --kubeconfig). The server issues the link (POST /dashboard/v1/links, which only users authorized
 * for it — system:masters by default — may call); it works once, within 5 minutes, and opens an
 * 8-hour session as that user. See docs/dashboard.md.
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { DASHBOARD_LINKS_PATH, type ComponentMetricsSource } from '@setpoint/apiserver';
import { defaultDataDir } from '../cli/connect.js';
import type { CliIO } from '../cli/io.js';
import { runClientVerb } from '../cli/verb.js';

export interface DashboardFlags {
  dataDir?: string;
  kubeconfig?: string;
}

export function registerDashboard(program: Command, io: CliIO): void {
  program
    .command('dashboard')
    .description('print a one-time sign-in link to the dashboard of the running server')
    .option('--data-dir <dir>', 'the data directory of the server (its kubeconfig.yaml signs the request; default: ~/.setpoint)')
    .option('--kubeconfig <file>', 'sign the request with this kubeconfig instead (the link is for its user)')
    .action(async (flags: DashboardFlags) => {
      await printDashboardLink(flags, io);
    });
}

/** Asks the server for a link and prints it on stdout (exported for tests). */
export async function printDashboardLink(flags: DashboardFlags, io: CliIO): Promise<void> {
  const kubeconfig = flags.kubeconfig ?? join(resolve(flags.dataDir ?? defaultDataDir(io.env)), 'kubeconfig.yaml');
  await runClientVerb(io, { kubeconfig }, async ({ client, server }) => {
    const res = await client.http.request<{ path: string; user: string; expiresAt: string }>({ method: 'POST', path: DASHBOARD_LINKS_PATH, body: '{}' });
    io.stdout.write(`${server}${res.body.path}\n`);
    io.stderr.write(`setpoint: a one-time sign-in link for ${res.body.user}; it works once, until ${res.body.expiresAt}\n`);
  });
}

/**
 * The dashboard's build (packages/dashboard/dist), which the API server serves at /ui/; undefined
 * when the dashboard package is not installed.
 */
export function dashboardDir(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@setpoint/dashboard/package.json')), 'dist');
  } catch {
    return undefined;
  }
}

/**
 * The sources of `--component-metrics NAME=URL …`: each scrapes URL (http or https, 5 s timeout)
 * when the dashboard asks, so a controller-manager running as its own process (its /metrics on
 * --port 10257) shows on the Controllers page. Throws Error naming a malformed value.
 */
export function parseComponentMetrics(values: readonly string[]): [string, ComponentMetricsSource][] {
  return values.map((value) => {
    const eq = value.indexOf('=');
    const name = value.slice(0, eq);
    let url: URL;
    try {
      url = new URL(value.slice(eq + 1));
    } catch {
      throw new Error(`--component-metrics wants NAME=URL (e.g. controller-manager=http://127.0.0.1:10257/metrics), not "${value}"`);
    }
    if (eq <= 0 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name) || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new Error(`--component-metrics wants NAME=URL with a lower-case NAME and an http(s) URL, not "${value}"`);
    }
    const source: ComponentMetricsSource = async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`${url.href} answered ${res.status}`);
      return res.text();
    };
    return [name, source];
  });
}
