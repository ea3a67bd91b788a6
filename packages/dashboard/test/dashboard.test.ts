/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core, headless) against an
 * in-process API server serving the built app: sign-in with a token and with a one-time link, live
 * updates without a reload, the object page, the YAML editor's server-side apply with a conflict
 * and a validation error shown in place, 10,000 objects in a virtualised list, keyboard use, a
 * narrow window, and the Controllers page. Screenshots go to packages/dashboard/test-artifacts/.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '@setpoint/api';
import { ADMIN_USER } from '@setpoint/apiserver';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, screenshot, startDashboardServer, waitFor, type DashboardServer } from './support.js';

const POD: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: { containers: [{ name: 'app', image: 'registry.local/web:1' }] },
};

describe('dashboard in Chromium', () => {
  let srv: DashboardServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Uncaught errors and Content-Security-Policy violations on the main page. */
  const problems: string[] = [];

  before(async () => {
    srv = await startDashboardServer();
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error' && /Content.Security.Policy/i.test(msg.text())) problems.push(msg.text());
    });
  });

  after(async () => {
    await browser?.close();
    await srv?.stop();
  });

  it('signs in with a bearer token and shows the overview', async () => {
    await page.goto(`${srv.url}/ui/`);
    await page.getByLabel('Bearer token').fill('wrong-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Could not sign in' }).waitFor();
    await page.getByLabel('Bearer token').fill(srv.adminToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    assert.equal(await page.locator('.user').textContent(), 'admin');
    // Marks this document: a reload would lose the mark.
    await page.evaluate('window.__setpointNoReload = true');
  });

  it('shows a node with its readiness and heartbeat, and pods by phase, live', async () => {
    const now = new Date().toISOString();
    const node = await srv.client.nodes().create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } });
    await srv.client.nodes().updateStatus({
      ...node,
      status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', message: 'ready', lastHeartbeatTime: now, lastTransitionTime: now }] },
    });
    await srv.client.leases().create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'node-a', namespace: 'kube-node-lease' },
      spec: { holderIdentity: 'node-a', leaseDurationSeconds: 40, renewTime: new Date().toISOString().replace('Z', '000Z') },
    });
    const row = page.getByRole('table', { name: 'nodes' }).getByRole('row').filter({ hasText: 'node-a' });
    await row.waitFor();
    await waitFor('node-a Ready', async () => (await row.textContent())?.includes('Ready'));
    await srv.client.pods().create(structuredClone(POD));
    await waitFor('one pending pod on the overview', async () => (await page.locator('dd[data-phase="Pending"]').textContent()) === '1');
    await screenshot(page, 'overview');
    assert.equal(await page.evaluate('window.__setpointNoReload'), true, 'no reload happened');
  });

  it('lists pods and shows one created through the API without a reload', async () => {
    await page.getByRole('link', { name: 'Pods' }).click();
    await page.getByRole('heading', { level: 1, name: /Pod/ }).waitFor();
    const grid = page.getByRole('grid', { name: 'pods' });
    await grid.getByRole('row').filter({ hasText: 'web' }).waitFor();
    // kubectl's columns, from the server's Table.
    const headers = await grid.getByRole('columnheader').allTextContents();
    assert.deepEqual(headers.slice(0, 3), ['Name', 'Namespace', 'Ready']);
    await srv.client.pods().create({ ...structuredClone(POD), metadata: { name: 'api', namespace: 'default', labels: { app: 'api' } } });
    await grid.getByRole('row').filter({ hasText: /^api/ }).waitFor();
    assert.equal(await page.evaluate('window.__setpointNoReload'), true, 'no reload happened');
    await screenshot(page, 'pods-list');
  });

  it('filters by namespace and label selector', async () => {
    await page.getByLabel('Namespace', { exact: true }).selectOption('default');
    await page.getByLabel('Label selector', { exact: true }).fill('app=api');
    await page.getByRole('button', { name: 'Filter' }).click();
    const grid = page.getByRole('grid', { name: 'pods in default' });
    await waitFor('only the api pod', async () => (await grid.getByRole('row').count()) === 2 && (await grid.getByRole('row').nth(1).textContent())?.startsWith('api'));
    await page.getByLabel('Label selector', { exact: true }).fill('app in (');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('alert').filter({ hasText: 'BadRequest' }).waitFor();
    await page.getByLabel('Label selector', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
    await grid.getByRole('row').filter({ hasText: /^web/ }).waitFor();
  });

  it('opens a pod: declared beside observed, conditions, events, owner and dependents', async () => {
    const pod = await srv.client.pods().get('web', { namespace: 'default' });
    await srv.client.events().create({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.1', namespace: 'default' },
      involvedObject: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: pod.metadata.uid },
      reason: 'Scheduled',
      message: 'Successfully assigned default/web to node-a',
      type: 'Normal',
      source: { component: 'default-scheduler' },
      firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
      count: 1,
    });
    await page.getByRole('grid', { name: 'pods in default' }).getByRole('row').filter({ hasText: /^web/ }).click();
    await page.getByRole('heading', { level: 1, name: /web/ }).waitFor();
    await page.getByLabel('declared state').filter({ hasText: 'registry.local/web:1' }).waitFor();
    await page.getByRole('table', { name: 'events' }).getByText('Successfully assigned default/web to node-a').waitFor();
    // Observed state moves live: the pod gets a condition.
    await srv.client.pods().updateStatus({
      ...pod,
      status: { ...pod.status, phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: '0/1 nodes are available', lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }] },
    });
    await page.getByRole('cell', { name: 'Unschedulable' }).waitFor();
    await page.getByLabel('observed state').filter({ hasText: 'phase: Pending' }).waitFor();
    // A dependent: a ConfigMap owned by the pod.
    await srv.client.configMaps().create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web-config', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: pod.metadata.uid! }] },
    });
    await page.reload(); // dependents are found once per visit; the reload is only for this part
    await page.getByRole('link', { name: 'ConfigMap default/web-config' }).waitFor();
    await page.getByRole('link', { name: 'ConfigMap default/web-config' }).click();
    await page.getByRole('link', { name: 'Pod web' }).waitFor(); // its owner
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: /web/ }).waitFor();
    await page.evaluate('window.__setpointNoReload = true');
    await screenshot(page, 'pod-object-page');
  });

  it('edits the labels in the YAML editor and applies them with server-side apply', async () => {
    await page.getByRole('button', { name: 'Edit YAML' }).click();
    const editor = page.getByLabel('YAML configuration');
    const text = await editor.inputValue();
    assert.match(text, /labels:\n {4}app: web\n/);
    await editor.fill(text.replace('    app: web\n', '    app: web\n    tier: frontend\n'));
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Applied' }).waitFor();
    const pod = await srv.client.pods().get('web', { namespace: 'default' });
    assert.deepEqual(pod.metadata.labels, { app: 'web', tier: 'frontend' });
    assert.ok(pod.metadata.managedFields?.some((m) => m.manager === 'setpoint-dashboard' && m.operation === 'Apply'));
    await page.getByRole('list', { name: 'labels' }).getByText('tier=frontend').waitFor();
    await screenshot(page, 'editor-applied');
  });

  it('shows a conflict in place, then applies with force', async () => {
    // Another manager owns metadata.labels.app.
    const owned = await srv.client.pods().patch('web', { metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } } }, { type: 'apply', fieldManager: 'deployer', namespace: 'default' });
    const editor = page.getByLabel('YAML configuration');
    // The page follows the change live; the untouched editor follows it too.
    await page.getByText(`resourceVersion ${owned.metadata.resourceVersion!}`, { exact: false }).first().waitFor();
    const text = await editor.inputValue();
    await editor.fill(text.replace('    app: web\n', '    app: api\n'));
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    const alert = page.locator('.error.conflict');
    await alert.waitFor();
    const message = await alert.textContent();
    assert.match(message ?? '', /Conflict: another field manager owns fields you changed/);
    assert.match(message ?? '', /conflict with "deployer"/);
    assert.match(message ?? '', /\.metadata\.labels\.app/);
    // The field's line is marked in the gutter.
    const line = (await editor.inputValue()).split('\n').findIndex((l) => l.includes('app: api')) + 1;
    assert.equal(await page.locator('.gutter-line.marked').first().textContent(), String(line));
    await alert.getByRole('button', { name: `line ${line}` }).first().waitFor();
    await screenshot(page, 'editor-conflict');
    assert.equal((await srv.client.pods().get('web', { namespace: 'default' })).metadata.labels?.app, 'web', 'nothing changed');
    await alert.getByRole('button', { name: 'Apply with force' }).click();
    await page.getByRole('status').filter({ hasText: 'Applied with force' }).waitFor();
    assert.equal((await srv.client.pods().get('web', { namespace: 'default' })).metadata.labels?.app, 'api');
  });

  it('shows a validation error in place', async () => {
    const editor = page.getByLabel('YAML configuration');
    const text = await editor.inputValue();
    await editor.fill(text.replace('    tier: frontend\n', '    tier: "not valid!"\n'));
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Invalid (422)' });
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? '', /metadata\.labels/);
    assert.ok((await page.locator('.gutter-line.marked').count()) >= 1);
    await screenshot(page, 'editor-invalid');
    await editor.fill('metadata: [unclosed');
    await page.getByRole('button', { name: 'Apply', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'The YAML does not parse' }).waitFor();
    assert.equal(await page.evaluate('window.__setpointNoReload'), true, 'no reload happened');
  });

  it('signs in with a one-time link that works once', async () => {
    const link = srv.server.dashboardLink(ADMIN_USER);
    const fresh = await browser.newContext();
    try {
      const p = await fresh.newPage();
      await p.goto(`${srv.url}${link.path}`);
      await p.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
      assert.equal(await p.locator('.user').textContent(), 'admin');
      assert.doesNotMatch(p.url(), /code=/, 'the spent code left the address bar');
      const again = await fresh.newPage();
      await again.goto(`${srv.url}${link.path}`);
      await again.getByRole('alert').filter({ hasText: 'already used' }).waitFor();
      await screenshot(again, 'link-used-twice');
      // Signing out ends the link's session.
      await p.getByRole('button', { name: 'Sign out' }).click();
      await p.getByLabel('Bearer token').waitFor();
    } finally {
      await fresh.close();
    }
  });

  it('keeps DOM rows bounded with 10,000 ConfigMaps and works from the keyboard', async () => {
    await srv.client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bulk' } });
    const configMaps = srv.server.storageFor('', 'v1', 'configmaps');
    for (let i = 0; i < 10_000; i++) {
      await configMaps.create('bulk', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(5, '0')}`, namespace: 'bulk' }, data: { i: String(i) } });
    }
    await page.goto(`${srv.url}/ui/#/r/core/v1/configmaps?ns=bulk`);
    const grid = page.getByRole('grid', { name: 'configmaps in bulk' });
    await page.getByRole('status').filter({ hasText: '10000 configmaps' }).waitFor({ timeout: 60_000 });
    assert.equal(await grid.getAttribute('aria-rowcount'), '10001');
    const rendered = await grid.getByRole('row').count();
    assert.ok(rendered > 5 && rendered < 80, `only the rows in view are in the DOM (${rendered})`);
    await screenshot(page, 'configmaps-10000');

    // Keyboard: Tab from the Filter button reaches the grid; End, Home, arrows, Enter.
    await page.getByRole('button', { name: 'Filter' }).focus();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.getAttribute("role")'), 'grid');
    await page.keyboard.press('End');
    await grid.locator('[role=row][aria-selected=true]').filter({ hasText: 'cm-09999' }).waitFor();
    assert.ok((await grid.getByRole('row').count()) < 80, 'still bounded at the end');
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await grid.locator('[role=row][aria-selected=true]').filter({ hasText: 'cm-00002' }).waitFor();
    const active = await grid.getAttribute('aria-activedescendant');
    assert.ok(active !== null && (await page.locator(`#${active}`).textContent())?.startsWith('cm-00002'));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: /cm-00002/ }).waitFor();
    // The page's heading has the focus, so reading or tabbing starts there.
    await page.waitForFunction('document.activeElement !== null && document.activeElement.tagName === "H1"', undefined, { timeout: 10_000 });
    await page.getByLabel('declared state').filter({ hasText: 'i: "2"' }).waitFor();
  });

  it('fits a narrow window', async () => {
    await page.setViewportSize({ width: 380, height: 800 });
    await page.goto(`${srv.url}/ui/#/r/core/v1/pods`);
    const grid = page.getByRole('grid', { name: 'pods' });
    await grid.getByRole('row').filter({ hasText: /^web/ }).waitFor();
    const columns = Number(await grid.getAttribute('aria-colcount'));
    assert.ok(columns >= 1 && columns <= 3, `a narrow window keeps the first columns only (${columns})`);
    assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'no horizontal scrolling of the page');
    await screenshot(page, 'narrow-pods');
    await page.goto(`${srv.url}/ui/#/o/core/v1/pods/default/web`);
    await page.getByLabel('observed state').waitFor();
    assert.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'no horizontal scrolling of the object page');
    await screenshot(page, 'narrow-pod');
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('shows the controllers: queue depth, reconciles per second, error rate, latency and the leader lease', async () => {
    await page.goto(`${srv.url}/ui/#/controllers`);
    const row = page.getByRole('table', { name: 'controller-manager controllers' }).locator('tr[data-controller="configmap-watcher"]');
    await row.waitFor();
    // Rates need two samples, 5 s apart.
    await waitFor('a reconcile rate', async () => /\d+\.\d\d/.test((await row.locator('td').nth(2).textContent()) ?? ''), 20_000);
    const cells = await row.locator('td').allTextContents();
    assert.match(cells[0]!, /^\d+$/, 'queue depth');
    assert.match(cells[4]!, /(µs|ms| s)$/, 'mean latency');
    assert.match(cells[6]!, /^\d+ \(0\)$/, 'reconciles, no errors');
    const leases = page.getByRole('table', { name: 'leader leases' });
    await leases.getByRole('row').filter({ hasText: 'kube-system/setpoint-controller-manager' }).filter({ hasText: 'test-controller-manager' }).waitFor();
    await screenshot(page, 'controllers');
  });

  it('tells a user without permissions what they may not see', async () => {
    const other = await browser.newContext();
    try {
      const p = await other.newPage();
      await p.goto(`${srv.url}/ui/#/controllers`);
      await p.getByLabel('Bearer token').fill(srv.nobodyToken);
      await p.getByRole('button', { name: 'Sign in' }).click();
      await p.getByRole('alert').filter({ hasText: 'Not allowed to read controller metrics' }).waitFor();
      await p.getByRole('alert').filter({ hasText: 'cannot list resource "leases"' }).waitFor();
      await screenshot(p, 'forbidden');
    } finally {
      await other.close();
    }
  });

  it('ran without uncaught errors or Content-Security-Policy violations', () => {
    assert.deepEqual(problems, []);
  });
});
