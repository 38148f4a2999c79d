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

describe('signing in to the console (served under SVC_BASE_PATH)', async () => {
  const server = await startConsoleServer({ basePath: '/svc' });
  const browser = await openBrowser(server);
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'support', name: 'Support', description: 'Answers customers' },
  });

  it('asks who you are, refuses a wrong password, and opens the agents once signed in', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await expect(page.getByRole('heading', { name: 'Sign in to svc' }).isVisible()).resolves.toBe(true);
    await checkPage(page, 'sign-in');
    // The page's structure as assistive technology reads it, kept beside the test (Mastra-style
    // ARIA snapshots): a change to it shows in review, whatever the styles do.
    await expect(await page.locator('main').ariaSnapshot()).toMatchFileSnapshot('aria/sign-in.aria.yml');

    await page.getByLabel('Admin password or API token').fill('not-the-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/unauthorized/);

    await page.getByLabel('Admin password or API token').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    expect(page.url()).toBe(`${server.url}/orgs/default/agents`);
    await page.getByRole('link', { name: 'Support' }).waitFor();
    // The cookie is HttpOnly: the page's script cannot read it.
    expect(await page.evaluate('document.cookie')).toBe('');
    await checkPage(page, 'agents');
    await expect(await page.getByRole('banner').ariaSnapshot()).toMatchFileSnapshot('aria/shell.aria.yml');

    // A page's URL opens that page, after a reload too.
    await page.getByRole('link', { name: 'Support' }).click();
    await page.getByRole('heading', { name: 'Support', exact: true }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Support' }).waitFor();
    expect(page.url()).toBe(`${server.url}/orgs/default/agents/support`);
    await checkPage(page, 'agent');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    // Signed out means the session is gone on the server, not only in this tab.
    await page.reload();
    await page.getByRole('heading', { name: 'Sign in to svc' }).waitFor();
    await page.context().close();
  });

  it('shows a read token no control that writes, and the server refuses it if it tries', async () => {
    const page = await browser.newPage();
    await signIn(page, server, await createToken(server, ['read']), '/orgs/default/agents/support');
    await page.getByRole('heading', { name: 'Support' }).waitFor();
    expect(await page.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    expect(await page.getByText('token console-read').count()).toBe(1);

    // What a tampered page would send: the session's own CSRF token, a write the scopes lack.
    const attempt = (await page.evaluate(`(async () => {
      const base = new URL(document.baseURI).pathname.replace(/\\/$/, '');
      const session = await (await fetch(base + '/api/session')).json();
      const response = await fetch(base + '/api/default/agents/support', {
        method: 'DELETE',
        headers: { 'x-csrf-token': session.session.csrfToken },
      });
      return { status: response.status, body: await response.json() };
    })()`)) as { status: number; body: { code: string } };
    expect(attempt.status).toBe(403);
    expect(attempt.body.code).toBe('forbidden');
    expect((await server.call('GET', '/api/default/agents/support')).status).toBe(200);
    await page.context().close();
  });

  it('fits a 360 px wide screen', async () => {
    const page = await narrowPage(browser);
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/agents');
    await page.getByRole('link', { name: 'Support' }).waitFor();
    await expectFits(page);
    await checkPage(page, 'agents-360');
    await page.context().close();
  });

  it('reached no host but the server, and logged no script or CSP error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
