/**
 * The dashboard on the API server: its files at /ui/ (public, cached, SPA fallback, nothing outside
 * the build), sign-in links (authorized) and the code exchange (public, once), sessions that
 * authenticate as the link's user, and component metrics for authorized users.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from './harness.js';

async function fakeBuild(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'setpoint-dashboard-build-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), '<!doctype html><div id="app"></div>');
  await writeFile(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  await writeFile(join(dir, '.secret'), 'hidden');
  return dir;
}

describe('dashboard routes', () => {
  it('serves the build at /ui/ to everyone: index, assets cached for a year, SPA fallback, nothing else', async () => {
    const dir = await fakeBuild();
    try {
      await using srv = await startTestServer({ secure: true, dashboard: { dir } });
      const get = (path: string) => srv.request('GET', path, undefined, { authorization: '' });
      const index = await get('/ui/');
      assert.equal(index.status, 200);
      assert.match(String(index.headers['content-type']), /^text\/html/);
      assert.equal(index.headers['cache-control'], 'no-cache');
      assert.match(String(index.headers['content-security-policy']), /script-src 'self'/);
      assert.equal(index.headers['x-content-type-options'], 'nosniff');
      const asset = await get('/ui/assets/index-abc123.js');
      assert.equal(asset.status, 200);
      assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
      assert.match(String(asset.headers['content-type']), /^text\/javascript/);
      assert.equal((await get('/ui/some/client/route')).text, index.text, 'a route without an extension gets the app');
      assert.equal((await get('/ui')).status, 301);
      for (const path of ['/ui/missing.js', '/ui/.secret', '/ui/..%2f.secret', '/ui/..%2f..%2fetc%2fpasswd', '/ui/assets%2f..%2f.secret']) {
        assert.equal((await get(path)).status, 404, path);
      }
      // (A client resolves /ui/../x itself before sending: it never reaches /ui/.)
      assert.equal((await get('/ui/%2e%2e/%2e%2e/etc/passwd')).status, 401);
      assert.equal((await get('/api/v1/namespaces')).status, 401, 'the API is not public');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('answers 503 when the build is missing and 404 when there is no dashboard', async () => {
    await using built = await startTestServer({ dashboard: { dir: join(tmpdir(), 'setpoint-no-such-build') } });
    const res = await built.request('GET', '/ui/');
    assert.equal(res.status, 503);
    assert.match(res.text, /npm run build/);
    await using none = await startTestServer();
    assert.equal((await none.request('GET', '/ui/')).status, 404);
  });

  it('issues links to authorized users; a code signs in once as that user; sign-out ends the session', async () => {
    await using srv = await startTestServer({ secure: true, tokens: [['bob-token', { name: 'bob', groups: ['devs'] }]] });
    const link = await srv.request('POST', '/dashboard/v1/links');
    assert.equal(link.status, 201, link.text);
    assert.match(link.body.path, /^\/ui\/#\/login\?code=/);
    assert.equal(link.body.user, 'admin');
    const forbidden = await srv.request('POST', '/dashboard/v1/links', undefined, { authorization: 'Bearer bob-token' });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.message, 'forbidden: User "bob" cannot post path "/dashboard/v1/links"');
    assert.equal((await srv.request('POST', '/dashboard/v1/links', undefined, { authorization: '' })).status, 401);

    const exchange = (code: unknown) => srv.request('POST', '/dashboard/v1/login', { code }, { authorization: '' });
    const session = await exchange(link.body.code);
    assert.equal(session.status, 200, session.text);
    assert.equal(session.body.user.username, 'admin');
    assert.ok(Date.parse(session.body.expiresAt) > Date.now());
    const again = await exchange(link.body.code);
    assert.equal(again.status, 401);
    assert.match(again.body.message, /already used/);
    assert.equal((await exchange(42)).status, 400);

    const as = { authorization: `Bearer ${session.body.token}` };
    const review = await srv.request('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, as);
    assert.equal(review.body.status.userInfo.username, 'admin');
    assert.ok(review.body.status.userInfo.groups.includes('system:masters'));
    assert.equal((await srv.request('POST', '/dashboard/v1/logout', undefined, as)).status, 200);
    assert.equal((await srv.request('GET', '/api/v1/namespaces', undefined, as)).status, 401);
  });

  it('serves component metrics to authorized users only', async () => {
    await using srv = await startTestServer({ secure: true, tokens: [['bob-token', { name: 'bob', groups: ['devs'] }]] });
    srv.server.serveComponentMetrics('controller-manager', async () => 'workqueue_depth{name="gc"} 3\n');
    srv.server.serveComponentMetrics('broken', async () => {
      throw new Error('connection refused');
    });
    assert.deepEqual((await srv.request('GET', '/metrics/components')).body, { components: ['broken', 'controller-manager'] });
    const text = await srv.request('GET', '/metrics/components/controller-manager');
    assert.equal(text.status, 200);
    assert.equal(text.text, 'workqueue_depth{name="gc"} 3\n');
    assert.equal((await srv.request('GET', '/metrics/components/nope')).status, 404);
    const broken = await srv.request('GET', '/metrics/components/broken');
    assert.equal(broken.status, 503);
    assert.match(broken.body.message, /connection refused/);
    assert.equal((await srv.request('GET', '/metrics/components/controller-manager', undefined, { authorization: 'Bearer bob-token' })).status, 403);
  });
});
