/**
 * `setpoint kubectl-config` (print, merge into ~/.kube/config as one named context without touching
 * the others) and `setpoint completion` (a script bash accepts, completing verbs, flags and the
 * server's resource types).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { renderKubeconfig } from '@setpoint/apiserver';
import { loadKubeconfig } from '@setpoint/client';
import { runSetpoint, startCliFixture, type CliFixture } from './cli-support.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('setpoint kubectl-config', () => {
  let home: string;
  let dataDir: string;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), 'setpoint-kc-'));
    dataDir = join(home, '.setpoint');
    await mkdir(dataDir);
    await writeFile(join(dataDir, 'kubeconfig.yaml'), renderKubeconfig({ server: 'https://127.0.0.1:6443', caCert: CA, token: 'secret-token' }));
  });
  after(async () => {
    await rm(home, { recursive: true, force: true });
  });
  const env = () => ({ HOME: home });

  it('prints the kubeconfig of the data directory', async () => {
    const r = await runSetpoint(['kubectl-config'], { env: env() });
    assert.equal(r.code, 0);
    assert.equal(r.stdout, await readFile(join(dataDir, 'kubeconfig.yaml'), 'utf8'));
    const missing = await runSetpoint(['kubectl-config', '--data-dir', join(home, 'nowhere')], { env: env() });
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `error: ${join(home, 'nowhere', 'kubeconfig.yaml')}: no such file (setpoint up --data-dir ${join(home, 'nowhere')} writes it when the server is ready)\n`);
  });

  it('merges into ~/.kube/config as a named context, keeping the other entries and the current context', async () => {
    const target = join(home, '.kube', 'config');
    await mkdir(join(home, '.kube'));
    const existing = renderKubeconfig({ server: 'https://prod.example.com', caCert: CA, token: 'prod-token', clusterName: 'prod', userName: 'admin', contextName: 'prod' });
    await writeFile(target, existing);
    const r = await runSetpoint(['kubectl-config', '--merge'], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `merged context "setpoint" in ${target}\ncurrent context stays "prod"; switch with: kubectl config use-context setpoint\n`);
    const merged = parse(await readFile(target, 'utf8')) as { clusters: Array<{ name: string }>; users: Array<{ name: string; user: { token: string } }>; contexts: Array<{ name: string; context: unknown }>; 'current-context': string };
    assert.deepEqual(merged.clusters.map((c) => c.name), ['prod', 'setpoint']);
    assert.deepEqual(merged.users.map((u) => [u.name, u.user.token]), [['admin', 'prod-token'], ['setpoint-admin', 'secret-token']]);
    assert.deepEqual(merged.contexts.find((c) => c.name === 'setpoint')?.context, { cluster: 'setpoint', user: 'setpoint-admin' });
    assert.equal(merged['current-context'], 'prod');
    assert.equal((await stat(target)).mode & 0o777, 0o600);
    const config = await loadKubeconfig({ path: target, context: 'setpoint' });
    assert.deepEqual([config.server, config.token, config.ca], ['https://127.0.0.1:6443', 'secret-token', CA]);

    const again = await runSetpoint(['kubectl-config', '--merge', target, '--use-context'], { env: env() });
    assert.equal(again.stdout, `updated context "setpoint" in ${target}\ncurrent context: setpoint\n`);
    const twice = parse(await readFile(target, 'utf8')) as { clusters: unknown[]; 'current-context': string };
    assert.equal(twice.clusters.length, 2, 'not duplicated');
    assert.equal(twice['current-context'], 'setpoint');
  });

  it('creates the file when there is none, named as asked', async () => {
    const target = join(home, 'fresh', 'config');
    const r = await runSetpoint(['kubectl-config', '--merge', target, '--context-name', 'lab'], { env: env() });
    assert.equal(r.stdout, `merged context "lab" in ${target}\ncurrent context: lab\n`);
    const config = await loadKubeconfig({ path: target });
    assert.equal(config.server, 'https://127.0.0.1:6443');
    await writeFile(join(home, 'broken'), 'clusters: [\n');
    const broken = await runSetpoint(['kubectl-config', '--merge', join(home, 'broken')], { env: env() });
    assert.equal(broken.code, 1);
    assert.match(broken.stderr, /^error: .*broken: invalid YAML: /);
  });
});

describe('setpoint completion', () => {
  let f: CliFixture;
  before(async () => {
    f = await startCliFixture();
  });
  after(async () => {
    await f[Symbol.asyncDispose]();
  });

  it('prints a bash script that bash accepts, listing the verbs and their flags', async () => {
    const r = await runSetpoint(['completion', 'bash']);
    assert.equal(r.code, 0);
    const verbs = /compgen -W "([^"]*) --help --version"/.exec(r.stdout)?.[1]?.split(' ') ?? [];
    for (const verb of ['up', 'server', 'agent', 'get', 'apply', 'delete', 'describe', 'logs', 'wait', 'kubectl-config', 'snapshot', 'completion']) assert.ok(verbs.includes(verb), verb);
    assert.ok(!verbs.includes('__complete'), 'hidden commands are not offered');
    assert.match(r.stdout, /get\) opts="[^"]*-o --output[^"]*-w --watch/);
    assert.match(r.stdout, /complete -F _setpoint setpoint\n$/);
    const file = join(f.dir, 'completion.bash');
    await writeFile(file, r.stdout);
    await promisify(execFile)('bash', ['-n', file], { timeout: 10_000 });
    const zsh = await runSetpoint(['completion', 'zsh']);
    assert.match(zsh.stdout, /^autoload -U \+X compinit && compinit\nautoload -U \+X bashcompinit && bashcompinit\n/);
    const fish = await runSetpoint(['completion', 'fish']);
    assert.deepEqual([fish.code, fish.stderr], [1, 'error: unsupported shell "fish": use bash or zsh\n']);
  });

  it('completes resource types and names from the server, and built-in types without one', async () => {
    const types = await f.run(['__complete', 'types']);
    const list = types.stdout.trim().split('\n');
    for (const t of ['configmaps', 'deployments', 'namespaces', 'pods']) assert.ok(list.includes(t), t);
    const names = await f.run(['__complete', 'names', 'ns']);
    assert.deepEqual(names.stdout.trim().split('\n'), ['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    const offline = await runSetpoint(['__complete', 'types', '--kubeconfig', join(f.dir, 'none')]);
    assert.equal(offline.code, 0);
    assert.equal(offline.stderr, '');
    assert.ok(offline.stdout.includes('deployments\n'));
  });
});
