/**
 * Test support (not exported from the package): a tiny exec credential plugin, run with node.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExecConfig } from '../types.js';

/**
 * A tiny exec plugin: counts its runs in RUNS_FILE, saves KUBERNETES_EXEC_INFO to INFO_FILE, and
 * prints an ExecCredential whose token is "token-<run>", expiring at EXPIRES (if set). MODE selects
 * misbehaviour: "fail" (exit 3 with a message), "hang", "garbage", "wrong-version", "cert".
 */
export const PLUGIN = `
const fs = require('node:fs');
const runs = (fs.existsSync(process.env.RUNS_FILE) ? Number(fs.readFileSync(process.env.RUNS_FILE, 'utf8')) : 0) + 1;
fs.writeFileSync(process.env.RUNS_FILE, String(runs));
fs.writeFileSync(process.env.INFO_FILE, process.env.KUBERNETES_EXEC_INFO || '');
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO);
const mode = process.env.MODE || '';
if (mode === 'fail') { process.stderr.write('could not reach the identity provider\\nmore detail\\n'); process.exit(3); }
if (mode === 'hang') { setInterval(() => {}, 1000); return; }
if (mode === 'garbage') { process.stdout.write('not json'); process.exit(0); }
const status = mode === 'cert'
  ? { clientCertificateData: 'CERT', clientKeyData: 'KEY' }
  : { token: 'token-' + runs };
if (process.env.EXPIRES) status.expirationTimestamp = process.env.EXPIRES;
const apiVersion = mode === 'wrong-version' ? 'client.authentication.k8s.io/v1alpha1' : info.apiVersion;
process.stdout.write(JSON.stringify({ apiVersion, kind: 'ExecCredential', status }));
`;

/** Writes the plugin into `dir` and returns an ExecConfig that runs it with node. */
export async function writePlugin(dir: string, env: Record<string, string> = {}, apiVersion = 'client.authentication.k8s.io/v1'): Promise<ExecConfig & { runsFile: string; infoFile: string }> {
  const script = join(dir, 'plugin.cjs');
  await writeFile(script, PLUGIN);
  const runsFile = join(dir, `runs-${Math.random().toString(36).slice(2)}`);
  const infoFile = `${runsFile}.info`;
  return {
    command: process.execPath,
    args: [script],
    env: Object.entries({ RUNS_FILE: runsFile, INFO_FILE: infoFile, ...env }).map(([name, value]) => ({ name, value })),
    apiVersion,
    interactiveMode: 'Never',
    runsFile,
    infoFile,
  };
}

export async function runs(file: string): Promise<number> {
  try {
    return Number(await readFile(file, 'utf8'));
  } catch {
    return 0;
  }
}
