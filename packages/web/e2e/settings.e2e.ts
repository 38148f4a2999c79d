import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
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
 * Settings in the browser: a secret goes in and never comes back (not in the page, not in any
 * answer the page received), a token's secret is shown once, revoking asks first, the admin
 * manages orgs, and each part shows only for the scopes that may use it.
 */

const SECRET_VALUE = 'sk-live-do-not-echo-8c1f0e2a';

/** Every answer body the page receives from now on. */
function recordResponses(page: Page): () => Promise<string[]> {
  const bodies: Promise<string>[] = [];
  page.on('response', (response) => {
    bodies.push(response.text().catch(() => ''));
  });
  return () => Promise.all(bodies);
}

describe('the settings page', async () => {
  // Under a base path: every link and request of these pages goes through it.
  const server = await startConsoleServer({ basePath: '/svc' });
  const browser = await openBrowser(server);

  it('sets a secret by name; its value is in no page and no answer the page received', async () => {
    const page = await browser.newPage();
    const received = recordResponses(page);
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/settings');
    await page.getByRole('heading', { name: 'Secrets' }).waitFor();
    await page.getByLabel('Name', { exact: true }).first().fill('SHOP_API_KEY');
    const value = page.getByLabel('Value', { exact: true });
    expect(await value.getAttribute('type')).toBe('password');
    await value.fill(SECRET_VALUE);
    await page.getByRole('button', { name: 'Set value' }).click();
    await page.getByRole('cell', { name: 'SHOP_API_KEY' }).waitFor();
    await page.getByText('SHOP_API_KEY: created.').waitFor();
    expect(await value.inputValue()).toBe('');
    await page.reload();
    await page.getByRole('cell', { name: 'SHOP_API_KEY' }).waitFor();
    expect(await page.content()).not.toContain(SECRET_VALUE);
    const bodies = await received();
    expect(bodies.length).toBeGreaterThan(3);
    expect(bodies.filter((body) => body.includes(SECRET_VALUE))).toEqual([]);
    // It was stored all the same: a reference of the org resolves to it.
    const stored = await server.pool.query(
      `SELECT count(*)::int AS n FROM org_secrets WHERE name = 'SHOP_API_KEY'`,
    );
    expect(stored.rows[0].n).toBe(1);
    await page.context().close();
  });

  it('shows a new token once, with a copy button, and never after a reload; revoking asks first', async () => {
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.origin });
    const page = await context.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/settings');
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByLabel('Name', { exact: true }).last().fill('ci deploy');
    await page.getByRole('checkbox', { name: 'write' }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Token ci deploy created' }).waitFor();
    await page.getByText('it is shown this once').waitFor();
    const secret = await page.getByLabel('Token secret').inputValue();
    expect(secret).toMatch(/^svc_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(secret);
    // It works, with the scopes asked for.
    const whoami = await server.call('GET', '/api/whoami', { token: secret });
    expect(whoami.body.scopes).toEqual(['read', 'write']);
    await checkPage(page, 'settings');

    await page.reload();
    await page.getByRole('button', { name: 'Revoke token ci deploy' }).waitFor();
    expect(await page.getByLabel('Token secret').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    // Dismissed, the revoke stays undone; accepted, the token stops working.
    page.once('dialog', (dialog) => dialog.dismiss());
    await page.getByRole('button', { name: 'Revoke token ci deploy' }).click();
    expect((await server.call('GET', '/api/whoami', { token: secret })).status).toBe(200);
    page.once('dialog', (dialog) => {
      expect(dialog.message()).toContain('Revoke token ci deploy?');
      return dialog.accept();
    });
    await page.getByRole('button', { name: 'Revoke token ci deploy' }).click();
    await page
      .getByRole('row', { name: /ci deploy/ })
      .getByText('revoked')
      .waitFor();
    expect((await server.call('GET', '/api/whoami', { token: secret })).status).toBe(401);
    await context.close();
  });

  it('lets the deployment admin create an org, and opens its settings', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/settings');
    await page.getByRole('heading', { name: 'Orgs' }).waitFor();
    await page.getByLabel('Slug').fill('acme');
    await page.getByLabel('Name (optional)').fill('Acme Inc');
    await page.getByRole('button', { name: 'Create or rename org' }).click();
    await page.getByRole('cell', { name: 'Acme Inc' }).waitFor();
    await page.getByRole('link', { name: 'acme', exact: true }).click();
    await page.waitForURL(`${server.url}/orgs/acme/settings`);
    await page.getByText('No secret in acme.').waitFor();
    await page.context().close();
  });

  it('shows each part only to the scopes that may use it', async () => {
    // An org admin token: secrets and tokens, not the deployment's orgs.
    let page = await browser.newPage();
    await signIn(page, server, await createToken(server, ['admin']), '/orgs/default/settings');
    await page.getByRole('heading', { name: 'API tokens' }).waitFor();
    await page.getByRole('button', { name: 'Set value' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Orgs' }).count()).toBe(0);
    await page.context().close();

    // A read token: the secrets' names, nothing that writes, no token at all.
    page = await browser.newPage();
    await signIn(page, server, await createToken(server, ['read', 'write']), '/orgs/default/settings');
    await page.getByRole('cell', { name: 'SHOP_API_KEY' }).waitFor();
    await page.getByText('API tokens are managed by a session with the admin scope.').waitFor();
    expect(await page.getByRole('button', { name: /Set value|Create token|Revoke/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: /API tokens|Orgs/ }).count()).toBe(0);
    await checkPage(page, 'settings-read');
    await page.context().close();
  });

  it('fits a 360 px wide screen', async () => {
    const page = await narrowPage(browser);
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/settings');
    await page.getByRole('cell', { name: 'SHOP_API_KEY' }).waitFor();
    await expectFits(page);
    await checkPage(page, 'settings-360');
    await page.context().close();
  });

  it('reached no host but the server, and logged no script or CSP error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
