/**
 * `setpoint kubectl-config [--data-dir D] [--merge [FILE]] [--context-name NAME] [--use-context]`:
 * prints the admin kubeconfig `setpoint up` wrote (DATA/kubeconfig.yaml), or merges it into FILE
 * (default: the first file of KUBECONFIG, else ~/.kube/config) as the context NAME (default
 * "setpoint") without touching the file's other clusters, users and contexts. The file is written
 * whole or not at all (a temporary file renamed over it), mode 0600: it holds a credential.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { defaultDataDir } from '../cli/connect.js';
import { CliError, type CliIO } from '../cli/io.js';
import { mergeKubeconfig } from '../cli/kubeconfig-merge.js';
import { runVerb } from '../cli/verb.js';

export interface KubectlConfigFlags {
  dataDir?: string;
  merge?: string | boolean;
  contextName: string;
  useContext?: boolean;
}

export function registerKubectlConfig(program: Command, io: CliIO): void {
  program
    .command('kubectl-config')
    .description("print the kubeconfig of setpoint up's data directory, or merge it into ~/.kube/config")
    .option('--data-dir <dir>', 'the data directory of setpoint up (default: ~/.setpoint)')
    .option('--merge [file]', 'merge into this kubeconfig (default: the first of KUBECONFIG, else ~/.kube/config)')
    .option('--context-name <name>', 'the name of the merged context and cluster (the user is NAME-admin)', 'setpoint')
    .option('--use-context', 'make the merged context current even when the file has a current context')
    .action(async (flags: KubectlConfigFlags) => {
      await runVerb(io, {}, () => runKubectlConfig(flags, io));
    });
}

/** Where --merge writes when no file is given. */
export function defaultMergeTarget(env: CliIO['env']): string {
  const first = env.KUBECONFIG?.split(delimiter).find((p) => p.trim() !== '');
  return first !== undefined ? resolve(first) : join(env.HOME ?? homedir(), '.kube', 'config');
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(`${path}: ${(err as Error).message}`);
  }
}

/** Runs kubectl-config (exported for tests). */
export async function runKubectlConfig(flags: KubectlConfigFlags, io: CliIO): Promise<void> {
  const dataDir = resolve(flags.dataDir ?? defaultDataDir(io.env));
  const sourceFile = join(dataDir, 'kubeconfig.yaml');
  const source = await readIfExists(sourceFile);
  if (source === undefined) throw new CliError(`${sourceFile}: no such file (setpoint up --data-dir ${dataDir} writes it when the server is ready)`);
  if (flags.merge === undefined || flags.merge === false) {
    io.stdout.write(source);
    return;
  }
  const target = resolve(typeof flags.merge === 'string' ? flags.merge : defaultMergeTarget(io.env));
  if (!/^[a-z0-9]([-a-z0-9.@_]*[a-z0-9])?$/i.test(flags.contextName)) throw new CliError(`--context-name must be a name of letters, digits and -._@, not "${flags.contextName}"`);
  let merged;
  try {
    merged = mergeKubeconfig(source, sourceFile, await readIfExists(target), target, { name: flags.contextName, useContext: flags.useContext === true });
  } catch (err) {
    throw new CliError((err as Error).message, { cause: err });
  }
  await mkdir(dirname(target), { recursive: true, mode: 0o700 });
  const temp = `${target}.setpoint-${process.pid}.tmp`;
  await writeFile(temp, merged.text, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, target);
  io.stdout.write(`${merged.replaced ? 'updated' : 'merged'} context "${flags.contextName}" in ${target}\n`);
  if (merged.currentContext === flags.contextName) io.stdout.write(`current context: ${flags.contextName}\n`);
  else io.stdout.write(`current context stays "${merged.currentContext}"; switch with: kubectl config use-context ${flags.contextName}\n`);
}
