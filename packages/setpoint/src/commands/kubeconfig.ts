/**
 * `setpoint kubeconfig create --user U [--group G …] [--data-dir D] [--days N] [--server URL]
 * [--namespace NS] [-o FILE]`: issues a client certificate for user U (subject CN=U, O=G for each
 * group) signed by the cluster CA of the data dir (DATA/ca.crt and ca.key, which `setpoint up` or
 * `setpoint server` made), and writes a kubeconfig with it: to stdout, or to FILE (mode 0600, as
 * it holds the private key). The API server accepts the certificate as that user until it expires
 * (--days, default 365, never beyond the CA); there is no revocation, so keep it short for people
 * who may leave. The server URL is the one of the admin kubeconfig in the data dir unless --server.
 * Needs read access to ca.key: run it where the data dir is.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { certificateFiles, issueClientCertificate, renderKubeconfig, writeKubeconfig } from '@setpoint/apiserver';
import { defaultDataDir } from '../cli/connect.js';
import { CliError, type CliIO } from '../cli/io.js';
import { runVerb } from '../cli/verb.js';

export interface KubeconfigCreateFlags {
  user?: string;
  group: string[];
  dataDir?: string;
  days: string;
  server?: string;
  namespace?: string;
  output?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function registerKubeconfig(program: Command, io: CliIO): void {
  const kubeconfig = program.command('kubeconfig').description('issue credentials for users of the cluster');
  kubeconfig
    .command('create')
    .description('write a kubeconfig with a client certificate of the cluster CA for a user')
    .requiredOption('--user <name>', 'the user name (the certificate subject CN)')
    .option('--group <name>', 'a group of the user (a subject O); repeat for several', collect, [])
    .option('--data-dir <dir>', 'the data directory holding ca.crt and ca.key (default: ~/.setpoint)')
    .option('--days <n>', 'how many days the certificate is valid (never beyond the CA)', '365')
    .option('--server <url>', "the API server's URL (default: the one in DATA/kubeconfig.yaml)")
    .option('--namespace <ns>', "the context's default namespace")
    .option('-o, --output <file>', 'write the kubeconfig to this file (mode 0600) instead of stdout')
    .action(async (flags: KubeconfigCreateFlags) => {
      await runVerb(io, {}, () => createKubeconfig(flags, io));
    });
}

async function readRequired(path: string, hint: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(code === 'ENOENT' ? `${path}: no such file (${hint})` : `${path}: ${(err as Error).message}`, { cause: err });
  }
}

/** The server URL of the first cluster of a kubeconfig's text, or undefined. */
function serverOf(text: string): string | undefined {
  try {
    const config = parseYaml(text) as { clusters?: Array<{ cluster?: { server?: unknown } }> } | null;
    const server = config?.clusters?.[0]?.cluster?.server;
    return typeof server === 'string' && server !== '' ? server : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `kubeconfig create` (exported for tests). Throws CliError for bad flags and missing files. */
export async function createKubeconfig(flags: KubeconfigCreateFlags, io: CliIO): Promise<void> {
  const user = flags.user ?? '';
  if (user.trim() === '') throw new CliError('--user must name a user');
  if (flags.group.some((g) => g.trim() === '')) throw new CliError('--group must name a group');
  if (!/^\d+$/.test(flags.days) || Number(flags.days) < 1) throw new CliError(`--days must be a positive whole number, not "${flags.days}"`);
  const dataDir = resolve(flags.dataDir ?? defaultDataDir(io.env));
  const hint = `setpoint up --data-dir ${dataDir} makes it at its first start`;
  const caCert = await readRequired(join(dataDir, certificateFiles.caCert), hint);
  const caKey = await readRequired(join(dataDir, certificateFiles.caKey), hint);
  let server = flags.server;
  if (server === undefined) {
    const admin = join(dataDir, 'kubeconfig.yaml');
    server = serverOf(await readRequired(admin, `${hint}; or give --server`));
    if (server === undefined) throw new CliError(`${admin} names no server; give --server`);
  }
  if (!/^https:\/\//.test(server)) throw new CliError(`client certificates need an HTTPS server, not ${server}`);
  let clientCertificate;
  try {
    clientCertificate = await issueClientCertificate({ ca: { cert: caCert, key: caKey }, commonName: user, organizations: flags.group, days: Number(flags.days) });
  } catch (err) {
    throw new CliError(`cannot issue the certificate: ${(err as Error).message}`, { cause: err });
  }
  const text = renderKubeconfig({
    server,
    caCert,
    clientCertificate,
    userName: user,
    contextName: 'setpoint',
    ...(flags.namespace === undefined ? {} : { namespace: flags.namespace }),
  });
  if (flags.output === undefined) {
    io.stdout.write(text);
    return;
  }
  const target = resolve(flags.output);
  await writeKubeconfig(target, text);
  io.stdout.write(`wrote a kubeconfig for user "${user}"${flags.group.length > 0 ? ` (groups ${flags.group.join(', ')})` : ''} to ${target}\n`);
}
