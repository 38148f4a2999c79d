import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test/harness.js';

const CHROMIUM = process.env.SVC_CHROMIUM_PATH ?? '/usr/bin/chromium';

let server: TestServer;
let browser: Browser;
beforeAll(async () => {
  server = await startTestServer({ basePath: '/svc' });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // The machine has no outside network: without these, Chromium keeps trying to reach Google.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});
afterAll(async () => {
  await browser?.close();
});

describe('the API reference page', () => {
  it('renders the messages and agents operations from the served OpenAPI document', async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(request.url()));
    // The page's Content-Security-Policy must not block anything the reference needs.
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(`${server.url}/docs`, { waitUntil: 'load' });
    await page.getByText('Send a message to an agent', { exact: false }).first().waitFor({ timeout: 20_000 });
    // Other tags start collapsed in the sidebar: open "agents" and find its operations.
    await page
      .getByRole('button', { name: /Open Group - agents/ })
      .first()
      .click();
    await page.getByText('Create or update an agent', { exact: false }).first().waitFor({ timeout: 10_000 });
    await page.getByText('Replace (value), clear (null) or keep (absent) each setting').first().waitFor();
    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).toContain('svc API');
    expect(text).toMatch(/messages/i);
    expect(text).toMatch(/agents/i);
    // Everything it needed came from this server: nothing was fetched from a CDN.
    expect(failed.filter((url) => !url.startsWith(server.url.replace('/svc', '')))).toEqual([]);
    expect(blocked).toEqual([]);
  });
});
