import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeOAuth } from '../../server/test/fakes/oauth.js';
import { startTestRunWorkers } from '../../server/test/runtime.js';
import { hubConnector, keysConnector, pairingConnector } from './connector-sources.js';
import {
  ADMIN_PASSWORD,
  checkPage,
  createToken,
  expectFits,
  narrowPage,
  openBrowser,
  signIn,
  startConsoleServer,
} from './console.js';

/**
 * Connecting connectors from the console, in Chromium against a real gateway and run workers:
 * a bundled connector installed, an env_keys connection whose secret never comes back, a
 * connector's interactive sign-in (QR code, code, link, form) and OAuth consent against the fake
 * provider, the new tab going there and back.
 */
describe('connectors and connections in the console', async () => {
  const server = await startConsoleServer({ connectorSourceInstalls: true });
  const browser = await openBrowser(server);
  const fake = await startFakeOAuth();
  afterAll(() => fake.close());
  for (const source of [keysConnector, pairingConnector, hubConnector(fake.url)]) {
    const installed = await server.call('POST', '/api/default/connectors', { body: { source } });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  }
  for (const [name, value] of [
    ['HUB_CLIENT_ID', fake.settings.clientId],
    ['HUB_CLIENT_SECRET', fake.settings.clientSecret],
  ]) {
    expect(
      (await server.call('PUT', `/api/default/secrets/${name}`, { body: { value } })).status,
    ).toBeLessThan(300);
  }
  const workers = await startTestRunWorkers(server, {
    leaseMs: 10_000,
    limits: { timeoutMs: 60_000, memoryMb: 128 },
  });
  afterAll(() => workers.close(1000));

  const connectionStatus = (page: Page) => page.getByTestId('connection-status');

  it('installs a bundled connector and connects one with keys whose secret is never shown or sent back', async () => {
    const page = await browser.newPage();
    const secret = `canary-${randomBytes(12).toString('hex')}`;
    const bodies: Promise<string>[] = [];
    let sent = false;
    page.on('request', (request) => {
      if (request.postData()?.includes(secret)) sent = true;
    });
    page.on('response', (response) => {
      if (!(response.headers()['content-type'] ?? '').includes('event-stream'))
        bodies.push(response.text().catch(() => ''));
    });
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/connectors');
    await page.getByRole('heading', { name: 'Connectors', level: 1 }).waitFor();

    // Bundled: RSS is installed from its card, and then listed as installed.
    await page.getByRole('button', { name: 'Install RSS and Atom' }).click();
    await page.getByText(/bundled: rss/).waitFor();
    expect(await page.getByRole('button', { name: 'Install RSS and Atom' }).count()).toBe(0);
    await checkPage(page, 'connectors');

    await page.getByLabel('Connector', { exact: true }).selectOption('keys');
    await page.getByLabel('Display name (optional)').fill('Billing keys');
    const secretField = page.getByLabel(/^API key/);
    expect(await secretField.getAttribute('type')).toBe('password');
    await secretField.fill(secret);
    await page.getByLabel(/^Account/).fill('acme');
    await page.getByRole('button', { name: 'Create connection' }).click();
    await page.getByRole('heading', { name: 'Billing keys', level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/orgs\/default\/connections\/\d+$/);
    expect(sent).toBe(true);

    // The connection says which keys are set, never what they are.
    await page.getByText('API key: set').waitFor();
    await expect(connectionStatus(page).textContent()).resolves.toContain('active');
    const inDom = async () =>
      (await page.content()) +
      (await page.evaluate(
        `[...document.querySelectorAll('input, textarea')].map((e) => e.value).join(' ')`,
      ));
    expect(await inDom()).not.toContain(secret);
    await checkPage(page, 'connection');

    // Its feed waits for the config it needs; given it, it starts.
    await page.getByRole('heading', { name: /^items.*paused$/ }).waitFor();
    await page.getByLabel('Folder (required)').fill('inbox');
    await page.getByRole('button', { name: 'Save config' }).click();
    await page.getByRole('heading', { name: /^items.*active$/ }).waitFor();

    await page.reload();
    await page.getByText('API key: set').waitFor();
    expect(await inDom()).not.toContain(secret);
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('link', { name: 'Billing keys' }).waitFor();
    expect(await inDom()).not.toContain(secret);

    const received = await Promise.all(bodies);
    expect(received.length).toBeGreaterThan(5);
    expect(received.filter((body) => body.includes(secret))).toEqual([]);
    await page.context().close();
  });

  it('signs a connection in interactively: a QR code, a code, a link, then a form; the connection turns active', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/connectors');
    await page.getByLabel('Connector', { exact: true }).selectOption('pairing');
    await page.getByRole('button', { name: 'Create connection' }).click();
    await page.getByRole('heading', { name: /^pairing #\d+$/, level: 1 }).waitFor();
    await expect(connectionStatus(page).textContent()).resolves.toContain('error');

    await page.getByRole('button', { name: 'Start sign-in' }).click();
    const qr = page.getByRole('img', { name: 'Scan it with the phone' });
    await qr.waitFor();
    expect(await qr.evaluate((svg) => svg.tagName.toLowerCase())).toBe('svg');
    expect((await qr.locator('path').getAttribute('d'))?.length).toBeGreaterThan(200);
    await expect(page.getByRole('timer').textContent()).resolves.toMatch(/^[0-2]:\d\d$/);
    await checkPage(page, 'connection-interactive');
    // A page opened while the sign-in is under way joins it where it is.
    await page.reload();
    await qr.waitFor();

    // The phone scans it: the connector, told so, shows a code to type there.
    const runId = /#(\d+)/.exec((await page.getByText(/^Sign-in run #\d+/).textContent()) ?? '')?.[1];
    const signal = (name: string) =>
      server.call('POST', `/api/default/auth-runs/${runId}/signals/${name}`, { body: {} });
    expect((await signal('scanned')).status).toBe(202);
    await page.getByText('WXYZ-1234').waitFor();
    expect((await signal('typed')).status).toBe(202);
    const link = page.getByRole('link', { name: 'Open example.com' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe('https://example.com/approve');
    expect(await link.getAttribute('target')).toBe('_blank');
    expect((await signal('approved')).status).toBe(202);

    // The form posts its signal; the connector checks the code and signs the connection in.
    await page.getByLabel('Code from the phone (required)').fill('424242');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('linking the device').waitFor();
    await page.getByText('The connection is signed in.').waitFor({ timeout: 20_000 });
    await page.getByText('acct-7').waitFor();
    await expect(connectionStatus(page).textContent()).resolves.toContain('active');
    await page.context().close();
  });

  it('connects with OAuth: the provider opens in a new tab, sends the person back, and the console shows it connected', async () => {
    const made = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'hub', displayName: 'Hub account' },
    });
    expect(made.status).toBe(201);
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, `/orgs/default/connections/${made.body.connection.id}`);
    await page.getByRole('heading', { name: 'Hub account', level: 1 }).waitFor();
    await expect(connectionStatus(page).textContent()).resolves.toContain('error');
    await checkPage(page, 'connection-oauth');

    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('button', { name: 'Connect with hub' }).click(),
    ]);
    await tab.waitForURL(/\/api\/v1\/oauth\/callback\?/);
    await tab.getByRole('heading', { name: /Connected to/ }).waitFor();
    expect(fake.calls.filter((call) => call.path === '/authorize')).toHaveLength(1);
    expect(fake.calls.filter((call) => call.path === '/token')).toHaveLength(1);
    // The tab cannot reach back into the console.
    expect(await tab.evaluate('window.opener')).toBeNull();

    await page.getByText('Connected.').waitFor();
    await expect(connectionStatus(page).textContent()).resolves.toContain('active');
    await page.getByText('Granted scopes').waitFor();

    // Paused, resumed, then revoked: the credentials are forgotten, and OAuth connects it again.
    await page.getByRole('button', { name: 'Pause connection' }).click();
    await connectionStatus(page).getByText('paused').waitFor();
    await page.getByRole('button', { name: 'Resume connection' }).click();
    await connectionStatus(page).getByText('active').waitFor();
    await page.getByRole('button', { name: 'Pause feed' }).click();
    await page.getByRole('heading', { name: /^items.*paused$/ }).waitFor();
    await page.getByRole('button', { name: 'Resume feed' }).click();
    await page.getByRole('heading', { name: /^items.*active$/ }).waitFor();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: 'Revoke' }).click();
    await connectionStatus(page).getByText('revoked').waitFor();
    expect(
      (await server.call('GET', `/api/default/connections/${made.body.connection.id}`)).body.connection,
    ).toMatchObject({ status: 'revoked', credentialKeys: [] });
    await page.getByRole('button', { name: 'Connect with hub' }).waitFor();
    await page.context().close();
  });

  it('shows a read token no control that writes', async () => {
    const page = await browser.newPage();
    await signIn(page, server, await createToken(server, ['read']), '/orgs/default/connectors');
    await page.getByRole('link', { name: 'Billing keys' }).click();
    await page.getByRole('heading', { name: 'Billing keys', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Feeds' }).waitFor();
    await page.getByText('Runs of items').waitFor();
    for (const name of ['Revoke', 'Pause connection', /^Sync now/, 'Pause feed', 'Save keys']) {
      expect(await page.getByRole('button', { name }).count(), String(name)).toBe(0);
    }
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('heading', { name: 'Bundled with this server' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create connection' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Install|Upgrade) / }).count()).toBe(0);
    await page.context().close();
  });

  it('fits a 360 px wide screen', async () => {
    const page = await narrowPage(browser);
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/connectors');
    await page.getByRole('heading', { name: 'Bundled with this server' }).waitFor();
    // A bundled connector's Install (the definition form's button is another).
    await page
      .getByRole('button', { name: /^Install (?!definition$)/ })
      .first()
      .waitFor();
    await expectFits(page);
    await checkPage(page, 'connectors-360');
    await page.getByRole('link', { name: 'Billing keys' }).click();
    await page.getByRole('heading', { name: 'Feeds' }).waitFor();
    await expectFits(page);
    await page.context().close();
  });

  it('reached no host but the server (and the OAuth provider, in its own tab), and logged no script or CSP error', () => {
    // The provider's consent page is the one place the person is sent: it opened in a tab of its own.
    const provider = browser.foreignRequests.filter((url) => url.startsWith(`${fake.url}/authorize?`));
    expect(provider).toHaveLength(1);
    expect(browser.foreignRequests.filter((url) => !provider.includes(url))).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
