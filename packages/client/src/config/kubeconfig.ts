/**
 * loadKubeconfig: what a kubeconfig context resolves to, as kubectl resolves it. Files come from
 * `path`, else KUBECONFIG (a list separated by ':' — ';' on Windows — merged as kubectl merges it),
 * else ~/.kube/config. Only the wire-level facts are taken: server, trust, client credentials and
 * the default namespace.
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import type { ClientConfig, ExecConfig } from '../types.js';
import { ConfigError } from './errors.js';
import { isMapping, readKubeconfigs, type KubeconfigEntry, type Mapping, type MergedKubeconfig } from './kubeconfig-file.js';

/** The exec credential API versions this client speaks. */
export const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;

export interface LoadKubeconfigOptions {
  /** One kubeconfig file (like kubectl's --kubeconfig); it must exist. Default: KUBECONFIG, else ~/.kube/config. */
  readonly path?: string;
  /** The context to use. Default: the merged current-context. */
  readonly context?: string;
  /** The environment to read KUBECONFIG and HOME from. Default process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** The kubeconfig files to read, in precedence order, and whether missing ones are skipped. */
export function kubeconfigPaths(options: LoadKubeconfigOptions = {}): { files: string[]; skipMissing: boolean } {
  if (options.path !== undefined) return { files: [resolve(options.path)], skipMissing: false };
  const env = options.env ?? process.env;
  const list = env.KUBECONFIG;
  if (list !== undefined && list.trim() !== '') {
    const files = [...new Set(list.split(delimiter).filter((p) => p.trim() !== '').map((p) => resolve(p)))];
    return { files, skipMissing: true };
  }
  const home = env.HOME ?? env.USERPROFILE ?? homedir();
  return { files: [join(home, '.kube', 'config')], skipMissing: false };
}

/**
 * Reads the kubeconfig and resolves one context to a ClientConfig.
 *
 * Guarantees: certificate-authority-data wins over certificate-authority, client-certificate-data
 * over client-certificate, client-key-data over client-key (kubectl's precedence); file paths are
 * read relative to the kubeconfig that names them; tokenFile is made absolute and read once here
 * (the client re-reads it when it changes); an exec command given as a relative path with a
 * directory part is resolved against the kubeconfig's directory. Missing files in a KUBECONFIG
 * list are skipped, as kubectl skips them.
 *
 * Throws ConfigError (one line naming the file and field) when no file exists, the YAML is
 * invalid, no context is selected or the selected context, cluster or user is missing, the server
 * is absent or not an http(s) URL, a referenced file cannot be read, base64 data is invalid, a
 * client certificate comes without its key (or the reverse), both a token and a username/password
 * are set, insecure-skip-tls-verify is combined with a CA (kubectl refuses this too), or the
 * config asks for what this client does not do (auth-provider, proxy-url, impersonation with `as`,
 * an exec apiVersion other than client.authentication.k8s.io/v1 or v1beta1).
 */
export async function loadKubeconfig(options: LoadKubeconfigOptions = {}): Promise<ClientConfig> {
  const { files, skipMissing } = kubeconfigPaths(options);
  const merged = await readKubeconfigs(files, skipMissing);
  if (merged.files.length === 0) {
    throw new ConfigError('no kubeconfig found (set KUBECONFIG or create the file)', { file: files.join(delimiter) });
  }
  return resolveContext(merged, options.context);
}

/** Resolves one context of a merged kubeconfig (see loadKubeconfig for what it checks). */
export async function resolveContext(merged: MergedKubeconfig, contextName?: string): Promise<ClientConfig> {
  const first = merged.files[0];
  const name = contextName ?? merged.currentContext?.name;
  if (name === undefined) {
    throw new ConfigError('no current context is set and none was asked for', { file: first, field: 'current-context' });
  }
  const context = merged.contexts.get(name);
  if (context === undefined) {
    const where = contextName === undefined ? { file: merged.currentContext?.file ?? first, field: 'current-context' } : { file: merged.files.join(delimiter), field: 'contexts' };
    throw new ConfigError(`context "${name}" not found`, where);
  }
  const clusterName = optionalString(context, 'cluster');
  if (clusterName === undefined) throw new ConfigError('no cluster is set', { file: context.file, field: `${context.field}.cluster` });
  const cluster = merged.clusters.get(clusterName);
  if (cluster === undefined) throw new ConfigError(`cluster "${clusterName}" not found`, { file: context.file, field: `${context.field}.cluster` });
  const userName = optionalString(context, 'user');
  let user: KubeconfigEntry | undefined;
  if (userName !== undefined) {
    user = merged.users.get(userName);
    if (user === undefined) throw new ConfigError(`user "${userName}" not found`, { file: context.file, field: `${context.field}.user` });
  }
  const namespace = optionalString(context, 'namespace');
  return {
    ...(await clusterConfig(cluster)),
    ...(user === undefined ? {} : await userConfig(user)),
    ...(namespace === undefined ? {} : { namespace }),
  };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

async function clusterConfig(entry: KubeconfigEntry): Promise<Mutable<ClientConfig>> {
  const server = optionalString(entry, 'server');
  if (server === undefined) throw new ConfigError('no server is set', at(entry, 'server'));
  let url: URL;
  try {
    url = new URL(server);
  } catch (err) {
    throw new ConfigError(`"${server}" is not a URL`, { ...at(entry, 'server'), cause: err });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`"${server}" is not an http(s) URL`, at(entry, 'server'));
  if (entry.body['proxy-url'] !== undefined) throw new ConfigError('proxy-url is not supported by this client', at(entry, 'proxy-url'));
  const config: Mutable<ClientConfig> = { server: server.replace(/\/+$/, '') };
  const ca = await pem(entry, 'certificate-authority-data', 'certificate-authority');
  if (ca !== undefined) config.ca = ca;
  const insecure = entry.body['insecure-skip-tls-verify'];
  if (insecure !== undefined && typeof insecure !== 'boolean') throw new ConfigError('must be true or false', at(entry, 'insecure-skip-tls-verify'));
  if (insecure === true) {
    if (ca !== undefined) throw new ConfigError('insecure-skip-tls-verify cannot be combined with a certificate authority', at(entry, 'insecure-skip-tls-verify'));
    config.insecureSkipTLSVerify = true;
  }
  const tlsServerName = optionalString(entry, 'tls-server-name');
  if (tlsServerName !== undefined) config.tlsServerName = tlsServerName;
  return config;
}

async function userConfig(entry: KubeconfigEntry): Promise<Mutable<Partial<ClientConfig>>> {
  if (entry.body['auth-provider'] !== undefined) {
    throw new ConfigError('auth-provider plugins are not supported; use an exec credential plugin', at(entry, 'auth-provider'));
  }
  for (const key of ['as', 'as-uid', 'as-groups', 'as-user-extra']) {
    // Ignoring impersonation would send requests as the real user instead: refuse it.
    if (entry.body[key] !== undefined) throw new ConfigError('impersonation is not supported by this client', at(entry, key));
  }
  const config: Mutable<Partial<ClientConfig>> = {};
  const cert = await pem(entry, 'client-certificate-data', 'client-certificate');
  const key = await pem(entry, 'client-key-data', 'client-key');
  if ((cert === undefined) !== (key === undefined)) {
    const missing = cert === undefined ? 'client-certificate' : 'client-key';
    throw new ConfigError(`${missing}(-data) is required with ${cert === undefined ? 'client-key' : 'client-certificate'}`, at(entry, missing));
  }
  if (cert !== undefined && key !== undefined) Object.assign(config, { cert, key });
  const token = optionalString(entry, 'token');
  const tokenFileRaw = optionalString(entry, 'tokenFile');
  const username = optionalString(entry, 'username');
  const password = optionalString(entry, 'password');
  if ((token !== undefined || tokenFileRaw !== undefined) && (username !== undefined || password !== undefined)) {
    throw new ConfigError('more than one authentication method (token and username/password); only one is allowed', { file: entry.file, field: entry.field });
  }
  if (token !== undefined) config.token = token;
  if (tokenFileRaw !== undefined) {
    const tokenFile = relativeTo(entry, tokenFileRaw);
    const text = await readReferenced(entry, 'tokenFile', tokenFile);
    config.tokenFile = tokenFile;
    if (config.token === undefined && text.trim() !== '') config.token = text.trim();
  }
  if (username !== undefined) config.username = username;
  if (password !== undefined) config.password = password;
  const exec = entry.body.exec;
  if (exec !== undefined && exec !== null) config.exec = execConfig(entry, exec);
  return config;
}

function execConfig(entry: KubeconfigEntry, raw: unknown): ExecConfig {
  const field = `${entry.field}.exec`;
  const where = (f: string) => ({ file: entry.file, field: `${field}.${f}` });
  if (!isMapping(raw)) throw new ConfigError('must be a mapping', { file: entry.file, field });
  const command = raw.command;
  if (typeof command !== 'string' || command === '') throw new ConfigError('a command is required', where('command'));
  const apiVersion = raw.apiVersion;
  if (typeof apiVersion !== 'string' || !(EXEC_API_VERSIONS as readonly string[]).includes(apiVersion)) {
    throw new ConfigError(`apiVersion must be one of ${EXEC_API_VERSIONS.join(', ')}, got ${JSON.stringify(apiVersion ?? null)}`, where('apiVersion'));
  }
  const args = raw.args ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new ConfigError('must be a list of strings', where('args'));
  const envRaw = raw.env ?? [];
  if (!Array.isArray(envRaw)) throw new ConfigError('must be a list of {name, value}', where('env'));
  const env = envRaw.map((e: unknown, i) => {
    if (!isMapping(e) || typeof e.name !== 'string' || typeof e.value !== 'string') throw new ConfigError('must be {name, value} strings', where(`env[${i}]`));
    return { name: e.name, value: e.value };
  });
  const mode = raw.interactiveMode ?? 'IfAvailable';
  if (mode !== 'Never' && mode !== 'IfAvailable' && mode !== 'Always') throw new ConfigError('must be Never, IfAvailable or Always', where('interactiveMode'));
  const provide = raw.provideClusterInfo ?? false;
  if (typeof provide !== 'boolean') throw new ConfigError('must be true or false', where('provideClusterInfo'));
  // client-go resolves a command with a directory part against the kubeconfig; a bare name is looked up on PATH.
  const resolved = command.includes('/') || command.includes(sep) ? relativeTo(entry, command) : command;
  return { command: resolved, args, env, apiVersion, interactiveMode: mode, provideClusterInfo: provide };
}

function at(entry: KubeconfigEntry, key: string): { file: string; field: string } {
  return { file: entry.file, field: `${entry.field}.${key}` };
}

function optionalString(entry: KubeconfigEntry, key: string): string | undefined {
  const v = (entry.body as Mapping)[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string') throw new ConfigError('must be a string', at(entry, key));
  return v;
}

function relativeTo(entry: KubeconfigEntry, path: string): string {
  return isAbsolute(path) ? path : resolve(dirname(entry.file), path);
}

async function readReferenced(entry: KubeconfigEntry, key: string, path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { ...at(entry, key), cause: err });
  }
}

/** PEM from `<dataKey>` (base64) or else from the file `<fileKey>`; undefined when neither is set. */
async function pem(entry: KubeconfigEntry, dataKey: string, fileKey: string): Promise<string | undefined> {
  const data = optionalString(entry, dataKey);
  if (data !== undefined) {
    const compact = data.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) throw new ConfigError('is not valid base64', at(entry, dataKey));
    const text = Buffer.from(compact, 'base64').toString('utf8');
    if (!text.includes('-----BEGIN ')) throw new ConfigError('does not hold PEM data', at(entry, dataKey));
    return text;
  }
  const file = optionalString(entry, fileKey);
  if (file === undefined) return undefined;
  const text = await readReferenced(entry, fileKey, relativeTo(entry, file));
  if (!text.includes('-----BEGIN ')) throw new ConfigError(`${relativeTo(entry, file)} does not hold PEM data`, at(entry, fileKey));
  return text;
}
