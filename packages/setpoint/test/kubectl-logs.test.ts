/**
 * `kubectl logs` against `setpoint up`, end to end: the API server proxies pods/log over mutual TLS
 * to the node agent, which reads the container's log files. A real process prints lines; `kubectl
 * logs` shows them, `--tail=2` the last two, `-f` a line printed after it started; after a crash
 * and restart `--previous` shows the first run's output and the plain log the second run's.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { startUp, type SetpointProcess } from './setpoint-process.js';

const run = promisify(execFile);

async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`, { cause: last });
    await new Promise((r) => setTimeout(r, 100));
  }
}


/**
 * The container: prints three lines naming its run, then prints the content of every `say-*` file
 * that appears in CTL, and crashes (exit 1) when a `crash` file appears. It records its pid in CTL.
 */
const SCRIPT = `
const fs = require('fs');
const dir = process.env.CTL;
const runs = dir + '/runs';
const n = (fs.existsSync(runs) ? Number(fs.readFileSync(runs, 'utf8')) : 0) + 1;
fs.writeFileSync(runs, String(n));
fs.writeFileSync(dir + '/pid-' + process.pid, '');
for (let i = 1; i <= 3; i++) console.log('run ' + n + ' line ' + i);
setInterval(() => {
  for (const f of fs.readdirSync(dir).sort()) {
    if (f.startsWith('say-')) {
      const text = fs.readFileSync(dir + '/' + f, 'utf8');
      fs.unlinkSync(dir + '/' + f);
      console.log(text);
    } else if (f === 'crash') {
      fs.unlinkSync(dir + '/crash');
      console.log('run ' + n + ' crashing');
      process.exit(1);
    }
  }
}, 50);
`;

describe('kubectl logs against setpoint up', () => {
  it('shows, tails, follows, and shows the previous run after a restart', { timeout: 240_000 }, async () => {
    const home = await mkdtemp(join(tmpdir(), 'setpoint-logs-home-'));
    const ctl = join(home, 'ctl');
    await mkdir(ctl);
    // The pod runs as a user of its own (the tests run as root): it must reach and write ctl.
    await chmod(home, 0o711);
    await chmod(ctl, 0o777);
    const kubeconfig = join(home, '.setpoint', 'kubeconfig.yaml');
    const kubectl = async (...args: string[]) => (await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 })).stdout;
    const kubectlFails = async (...args: string[]): Promise<string> => {
      try {
        await run('kubectl', ['--kubeconfig', kubeconfig, ...args], { timeout: 30_000 });
      } catch (err) {
        return String((err as { stderr?: string }).stderr);
      }
      throw new Error(`kubectl ${args.join(' ')} succeeded`);
    };
    let up: SetpointProcess | undefined;
    let follower: ChildProcess | undefined;
    try {
      up = await startUp(home);
      const manifest = join(home, 'talker.json');
      await writeFile(
        manifest,
        JSON.stringify({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'talker' },
          spec: {
            terminationGracePeriodSeconds: 1,
            containers: [{ name: 'talker', image: 'example/talker:1', command: [process.execPath, '-e', SCRIPT], env: [{ name: 'CTL', value: ctl }] }],
          },
        }),
      );
      await kubectl('apply', '-f', manifest);
      await kubectl('wait', '--for=condition=Ready', 'pod/talker', '--timeout=60s');

      const firstRun = 'run 1 line 1\nrun 1 line 2\nrun 1 line 3\n';
      assert.equal(await waitFor('the first lines', async () => (await kubectl('logs', 'talker')) === firstRun && firstRun), firstRun);
      assert.equal(await kubectl('logs', 'talker', '--tail=2'), 'run 1 line 2\nrun 1 line 3\n');
      assert.match(await kubectl('logs', 'talker', '--tail=1', '--timestamps'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z run 1 line 3\n$/);
      assert.match(await kubectlFails('logs', 'talker', '--previous'), /previous terminated container "talker" in pod "talker" not found/);

      // -f: a line printed after kubectl started reaches it.
      follower = spawn('kubectl', ['--kubeconfig', kubeconfig, 'logs', '-f', 'talker'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let followed = '';
      follower.stdout!.on('data', (chunk: Buffer) => (followed += chunk.toString()));
      follower.stderr!.on('data', (chunk: Buffer) => (followed += chunk.toString()));
      await waitFor('kubectl logs -f to print the existing lines', async () => followed.includes('run 1 line 3\n'));
      await writeFile(join(ctl, 'say-1'), 'said while following');
      await waitFor('kubectl logs -f to print the new line', async () => followed.includes('run 1 line 3\nsaid while following\n'), 30_000);
      const followerExit = new Promise<void>((resolve) => follower!.once('exit', () => resolve()));
      follower.kill('SIGINT');
      await followerExit;
      follower = undefined;

      // A crash and a restart: --previous is the first run, the log the second.
      await writeFile(join(ctl, 'crash'), '');
      const secondRun = 'run 2 line 1\nrun 2 line 2\nrun 2 line 3\n';
      await waitFor('the restarted run to print', async () => (await kubectl('logs', 'talker')) === secondRun);
      assert.equal(await kubectl('get', 'pod', 'talker', '-o', 'jsonpath={.status.containerStatuses[0].restartCount}'), '1');
      assert.equal(await kubectl('logs', 'talker', '--previous'), `${firstRun}said while following\nrun 1 crashing\n`);
      assert.equal(await kubectl('logs', 'talker', '--previous', '--tail=1'), 'run 1 crashing\n');
      assert.match(await kubectlFails('logs', 'talker', '-c', 'nope'), /container nope is not valid for pod talker/);
    } finally {
      follower?.kill('SIGKILL');
      if (up !== undefined) {
        await kubectl('delete', 'pod', 'talker', '--timeout=30s').catch(() => undefined);
        up.child.kill('SIGINT');
        await up.exited;
      }
      // Whatever the agent left running (pods outlive `up` by design).
      if (existsSync(ctl)) {
        for (const f of await readdir(ctl)) {
          if (!f.startsWith('pid-')) continue;
          try {
            process.kill(Number(f.slice(4)), 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
      await readFile(join(home, '.setpoint', 'setpoint.log'), 'utf8').catch(() => '');
      await rm(home, { recursive: true, force: true });
    }
  });
});
