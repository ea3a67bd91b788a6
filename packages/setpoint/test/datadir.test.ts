/**
 * The data directory is private, as `setpoint server` and `setpoint up` run it (real processes):
 * the directory and every directory in it 0700, every file in it 0600 — state.db and the WAL
 * SQLite makes beside it, keys, certificates, tokens, kubeconfigs, the log, the snapshot socket,
 * the agent's records and logs (SQLite keeps no -shm file: the store locks it exclusively) — and a looser one left by an older version is tightened at start
 * with one warning naming what was tightened.
 */
import assert from 'node:assert/strict';
import { lstatSync, readdirSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startSetpoint, startUp } from './setpoint-process.js';



/** Creates a Secret through the API (so the store writes, and SQLite has its WAL). */
async function createSecret(dir: string, url: string): Promise<void> {
  const ca = await readFile(join(dir, 'ca.crt'), 'utf8');
  const token = (await readFile(join(dir, 'admin.token'), 'utf8')).trim();
  const status = await new Promise<number>((resolve, reject) => {
    const req = https.request(new URL('/api/v1/namespaces/default/secrets', url), { method: 'POST', ca, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db' }, stringData: { password: 'hunter2' } }));
  });
  assert.equal(status, 201);
}

/** Every entry under `dir` (and `dir` itself) whose mode is not 0700 (directories) or 0600 (files, sockets), as "path 0755"; pods' own directories left out. */
function loose(dir: string): string[] {
  const found: string[] = [];
  const visit = (path: string, rel: string) => {
    if (/(^|\/)pods\/[^/]+\/(rootfs|serviceaccount)$/.test(rel)) return;
    const st = lstatSync(path);
    const want = st.isDirectory() ? 0o700 : 0o600;
    if ((st.mode & 0o777) !== want) found.push(`${rel} 0${(st.mode & 0o777).toString(8)}`);
    if (st.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name), rel === '.' ? name : `${rel}/${name}`);
  };
  visit(dir, '.');
  return found;
}

function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

describe('the data directory is private', () => {
  it('setpoint server makes it 0700 with every file 0600, the store\'s WAL included', { timeout: 120_000 }, async () => {
    const parent = await mkdtemp(join(tmpdir(), 'setpoint-datadir-'));
    const dir = join(parent, 'data');
    try {
      const server = await startSetpoint(['server', '--data-dir', dir, '--port', '0', '--log-level', 'warn'], /API server at (https:\/\/[^;\s]+)/);
      try {
        const url = /API server at (https:\/\/[^;\s]+)/.exec(server.output())![1]!;
        await createSecret(dir, url);
        const names = files(dir);
        for (const name of ['state.db', 'state.db-wal', 'snapshot.sock', 'admin.token', 'ca.key', 'ca.crt', 'sa.key', 'sa.pub', 'kubeconfig.yaml']) assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
        assert.deepEqual(loose(dir), []);
        assert.doesNotMatch(server.output(), /tightened/, 'nothing to tighten in a new data dir');
      } finally {
        await server.stop();
      }
    } finally {
      await rm(parent, { recursive: true, force: true });
    }
  });

  it('tightens a data dir an older version left 0755 with a 0644 state.db, with one warning naming them', { timeout: 120_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'setpoint-datadir-'));
    try {
      await chmod(dir, 0o755);
      await writeFile(join(dir, 'state.db'), '', { mode: 0o644 }); // an empty file is a new SQLite database
      await chmod(join(dir, 'state.db'), 0o644);
      await mkdir(join(dir, 'components'), { mode: 0o755 });
      await chmod(join(dir, 'components'), 0o755);
      const server = await startSetpoint(['server', '--data-dir', dir, '--port', '0', '--log-level', 'warn'], /API server at (https:\/\/[^;\s]+)/);
      try {
        const url = /API server at (https:\/\/[^;\s]+)/.exec(server.output())![1]!;
        await createSecret(dir, url);
        assert.deepEqual(loose(dir), []);
        const warnings = server.output().split('\n').filter((l) => l.includes('tightened'));
        assert.equal(warnings.length, 1, server.output());
        const line = JSON.parse(warnings[0]!) as { msg: string; tightened: string[] };
        assert.match(line.msg, /^the data dir was open to other users; tightened 3 entries/);
        assert.deepEqual(line.tightened.sort(), ['. (0755 → 0700)', 'components (0755 → 0700)', 'state.db (0644 → 0600)']);
      } finally {
        await server.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('setpoint up keeps its log, the agent\'s directory and its pods\' records private; a 0644 setpoint.log is tightened', { timeout: 180_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'setpoint-datadir-home-'));
    const dir = join(home, '.setpoint');
    try {
      await mkdir(dir, { mode: 0o700 });
      await writeFile(join(dir, 'setpoint.log'), '', { mode: 0o644 });
      await chmod(join(dir, 'setpoint.log'), 0o644);
      const up = await startUp(home);
      try {
        const names = files(dir);
        assert.ok(names.some((n) => n.startsWith('agent/')), names.join(', '));
        assert.deepEqual(loose(dir), []);
        const log = await readFile(join(dir, 'setpoint.log'), 'utf8');
        const warnings = log.split('\n').filter((l) => l.includes('the data dir was open to other users'));
        assert.equal(warnings.length, 1, log);
        assert.deepEqual((JSON.parse(warnings[0]!) as { tightened: string[] }).tightened, ['setpoint.log (0644 → 0600)']);
      } finally {
        await up.stop();
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});
