/**
 * The request-limit and audit flags of `setpoint server` / `setpoint up`: their defaults
 * (kube-apiserver's), their checks, and a server started with them writing its audit log and
 * refusing what the limits refuse.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { silentLogger } from '@setpoint/api';
import { Command } from 'commander';
import { requestOptions, addRequestFlags } from '../src/commands/requestflags.js';
import { startServer } from '../src/commands/server.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-requestflags-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function post(url: string, token: string, path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, url), { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('request limit and audit flags', () => {
  it("default to kube-apiserver's values, with the audit log off", async () => {
    const cmd = addRequestFlags(new Command()).exitOverride();
    cmd.parse([], { from: 'user' });
    const options = await requestOptions(cmd.opts());
    assert.deepEqual(options, {
      limits: { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, maxWatchesPerUser: 1000, maxRequestBodyBytes: 3145728, requestTimeoutMs: 60_000, minRequestTimeoutSeconds: 1800 },
    });
    assert.deepEqual(await requestOptions({}), options, 'absent flags take the defaults');
  });

  it('refuse bad values and a policy without a log, in one line each', async () => {
    await assert.rejects(requestOptions({ maxRequestsInflight: '-1' }), /^Error: --max-requests-inflight must be a whole number, not "-1"$/);
    await assert.rejects(requestOptions({ requestTimeout: 'soon' }), /--request-timeout must be a duration/);
    await assert.rejects(requestOptions({ maxRequestBodyBytes: '0' }), /--max-request-body-bytes must be more than 0/);
    await assert.rejects(requestOptions({ auditPolicyFile: 'p.yaml' }), /--audit-policy-file needs --audit-log-path/);
    await withDir(async (dir) => {
      await assert.rejects(requestOptions({ auditLogPath: join(dir, 'a.log'), auditPolicyFile: join(dir, 'missing.yaml') }), /--audit-policy-file: cannot read/);
      const bad = join(dir, 'bad.yaml');
      await writeFile(bad, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n');
      await assert.rejects(requestOptions({ auditLogPath: join(dir, 'a.log'), auditPolicyFile: bad }), /rules\[0\]\.level: Unsupported value: "Loud".*from file .*bad\.yaml$/);
    });
  });

  it('start a server that audits by the policy file and applies the limits', async () => {
    await withDir(async (dir) => {
      const policy = join(dir, 'policy.yaml');
      await writeFile(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/readyz"]\n- level: Request\n  resources: [{group: "", resources: [configmaps]}]\n- level: Metadata\n');
      const auditLog = join(dir, 'logs', 'audit.log');
      const running = await startServer(
        {
          dataDir: join(dir, 'data'),
          port: '0',
          host: '127.0.0.1',
          store: 'memory',
          insecureHttp: true,
          compactionInterval: '5m',
          logLevel: 'silent',
          auditLogPath: auditLog,
          auditPolicyFile: policy,
          auditLogMaxsize: '1',
          maxRequestBodyBytes: '1000',
        },
        silentLogger,
      );
      try {
        const { server, token } = running.connection;
        const created = await post(server, token, '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'flagged' }, data: { k: 'v' } }));
        assert.equal(created.status, 201, created.text);
        const big = await post(server, token, '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'big' }, data: { k: 'x'.repeat(2000) } }));
        assert.equal(big.status, 413);
        assert.match(big.text, /Request entity too large: limit is 1000/);
      } finally {
        await running.stop();
      }
      const events = (await readFile(auditLog, 'utf8'))
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { verb: string; level: string; objectRef?: { name?: string }; requestObject?: { data?: unknown }; responseStatus: { code: number } });
      const create = events.find((e) => e.verb === 'create' && e.objectRef?.name === 'flagged');
      assert.ok(create, 'the create was audited');
      assert.equal(create.level, 'Request');
      assert.deepEqual(create.requestObject?.data, { k: 'v' });
      assert.ok(events.some((e) => e.responseStatus.code === 413));
    });
  });
});
