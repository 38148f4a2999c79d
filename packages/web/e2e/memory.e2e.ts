import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  startFakeChatCompletions,
} from '../../server/test/fakes/chat-completions.js';
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
import { seedMemory } from './memory-seed.js';

/**
 * Memory and watchers in the browser: a search that its URL reproduces, an entity with its
 * identities, relationships and events, a watcher's window run through the fake model and its
 * structured result, and a read token that sees no control that writes.
 */

const RESULT = { headline: 'Invoice 1042 is overdue', incidents: 1 };

describe('the memory and watcher pages', async () => {
  const model: FakeChatCompletions = await startFakeChatCompletions();
  model.answer = () => ({ text: `\`\`\`json\n${JSON.stringify(RESULT)}\n\`\`\`` });
  const server = await startConsoleServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-console-memory' },
    // The watcher scheduler passes with the reaper: often, so that "Run now" is seen at once.
    workers: { concurrency: 2, reapMs: 250, watchers: { settleMs: 1000 } },
  });
  const browser = await openBrowser(server);
  const seed = await seedMemory(server);
  const agent = await server.call('POST', '/api/default/agents', {
    body: {
      agentId: 'digest',
      name: 'Digest',
      providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    },
  });
  expect(agent.status, JSON.stringify(agent.body)).toBe(201);
  const watcher = await server.call('POST', '/api/default/operations/manage_entity_schema', {
    body: {
      action: 'upsert',
      kind: 'watcher',
      item: {
        slug: 'overdue',
        name: 'Overdue invoices',
        // Once a year: its windows here are the ones "Run now" makes.
        schedule: '0 0 1 1 *',
        prompt: 'Say which invoices are overdue.',
        agent: 'digest',
        extraction_schema: {
          type: 'object',
          properties: { headline: { type: 'string' }, incidents: { type: 'integer' } },
          required: ['headline', 'incidents'],
        },
      },
    },
  });
  expect(watcher.status, JSON.stringify(watcher.body)).toBe(201);
  // Made before the events arrived, so that its first window holds them.
  await server.pool.query(
    `UPDATE watchers SET created_at = now() - interval '1 hour' WHERE slug = 'overdue'`,
  );

  const open = async (path: string, credential = ADMIN_PASSWORD): Promise<Page> => {
    const page = await browser.newPage();
    await signIn(page, server, credential, path);
    return page;
  };

  it('lists events, finds one by its words, and the search URL reloads to the same hits', async () => {
    const page = await open('/orgs/default/memory');
    await page.getByRole('heading', { name: 'Memory', exact: true }).waitFor();
    await page.getByText('Lunch plans').waitFor();
    await page.getByText('Invoice 1042 overdue').waitFor();
    await page.getByRole('cell', { name: 'works_at' }).waitFor();
    await checkPage(page, 'memory');

    // By keyboard alone: typed, submitted with Enter.
    await page.getByLabel('Search events').fill('overdue invoice');
    await page.getByLabel('Search events').press('Enter');
    await page.getByRole('heading', { name: '1 match' }).waitFor();
    expect(new URL(page.url()).searchParams.get('q')).toBe('overdue invoice');
    expect(await page.getByText('Lunch plans').count()).toBe(0);
    // The passage that matched, its words marked.
    expect(await page.locator('.snippet mark').first().textContent()).toMatch(/overdue|invoice/i);

    await page.reload();
    await page.getByRole('heading', { name: '1 match' }).waitFor();
    expect(await page.getByLabel('Search events').inputValue()).toBe('overdue invoice');
    await page.locator('summary', { hasText: 'Invoice 1042 overdue' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('.event-text', { hasText: 'three weeks overdue and asks for a reminder' }).waitFor();
    await page.getByText('"folder": "inbox"').waitFor();
    await checkPage(page, 'memory-search');

    // A filter is in the URL too: only the chat event is of kind chat.
    await page.goto(`${server.url}/orgs/default/memory?kind=chat`);
    await page.getByText('Lunch plans').waitFor();
    expect(await page.getByText('Invoice 1042 overdue').count()).toBe(0);
    expect(await page.getByLabel('Kind').inputValue()).toBe('chat');

    // A page at a time, newest first.
    await page.goto(`${server.url}/orgs/default/memory?kind=note`);
    await page.getByText('Note 30', { exact: true }).waitFor();
    expect(await page.locator('.event-item').count()).toBe(25);
    await page.getByRole('button', { name: 'Load more events' }).click();
    await page.getByText('Note 1', { exact: true }).waitFor();
    expect(await page.locator('.event-item').count()).toBe(30);
    expect(await page.getByRole('button', { name: 'Load more events' }).count()).toBe(0);

    // An event's entities link to their pages.
    await page.goto(`${server.url}/orgs/default/memory?q=invoice`);
    await page.getByText('Invoice 1042 overdue').click();
    await page.getByRole('link', { name: `Jane Doe (#${seed.jane})` }).click();
    await page.getByRole('heading', { name: 'Jane Doe' }).waitFor();
    expect(page.url()).toBe(`${server.url}/orgs/default/memory/entities/${seed.jane}`);
    await page.context().close();
  });

  it('shows an entity with its identities, traits, relationships and linked events', async () => {
    const page = await open(`/orgs/default/memory/entities/${seed.jane}`);
    await page.getByRole('heading', { name: 'Jane Doe' }).waitFor();
    await page.getByRole('cell', { name: 'jane@example.com' }).waitFor();
    await page.getByRole('cell', { name: 'email', exact: true }).waitFor();
    await page.getByText('pro', { exact: true }).waitFor();
    await page.getByRole('link', { name: `Acme Corp (#${seed.acme})` }).waitFor();
    await page.getByRole('heading', { name: 'Linked events' }).waitFor();
    await page.getByText('Invoice 1042 overdue').waitFor();
    expect(await page.getByText('Lunch plans').count()).toBe(0);
    await checkPage(page, 'entity');
    await page.context().close();
  });

  it('runs a watcher now and shows its window with the reply and the structured result', async () => {
    const page = await open('/orgs/default/watchers');
    await page.getByRole('link', { name: 'Overdue invoices' }).waitFor();
    await page.getByText('none yet').waitFor();
    await checkPage(page, 'watchers');

    await page.getByRole('link', { name: 'Overdue invoices' }).click();
    await page.getByRole('heading', { name: 'Overdue invoices' }).waitFor();
    await page.getByRole('button', { name: 'Run now' }).click();
    // The page follows the window until it ends.
    await page.locator('td .status-completed').waitFor({ timeout: 30_000 });
    await page.getByRole('table').getByRole('link').first().click();
    await page.getByRole('heading', { name: 'Structured result' }).waitFor();
    await page.getByText(RESULT.headline, { exact: true }).waitFor();
    expect(await page.locator('.window-reply').textContent()).toContain('"incidents":1');
    expect(new URL(page.url()).searchParams.get('window')).toMatch(/^\d+$/);
    // The events it was given open in place.
    await page.getByText(`Event ${seed.invoice}`, { exact: true }).click();
    await page.locator('.event-text', { hasText: 'three weeks overdue and asks for a reminder' }).waitFor();
    await page.getByText('Definition (written by svc apply)').click();
    await page.getByText('Say which invoices are overdue.').waitFor();
    await checkPage(page, 'watcher');

    await page.getByRole('button', { name: 'Pause' }).click();
    await page.getByText('paused by admin').waitFor();
    expect(await page.getByRole('button', { name: 'Run now' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.getByRole('button', { name: 'Pause' }).waitFor();
    await page.context().close();
  });

  it('shows a read token the same pages without a control that writes', async () => {
    const page = await open('/orgs/default/watchers/overdue', await createToken(server, ['read']));
    await page.getByRole('heading', { name: 'Overdue invoices' }).waitFor();
    await page.locator('td .status-completed').waitFor();
    expect(await page.getByRole('button', { name: /Run now|Pause|Resume/ }).count()).toBe(0);
    // What a tampered page would send, with the session's own CSRF token: refused.
    const attempt = (await page.evaluate(`(async () => {
      const base = new URL(document.baseURI).pathname.replace(/\\/$/, '');
      const session = await (await fetch(base + '/api/session')).json();
      const response = await fetch(base + '/api/default/watchers/overdue/run', {
        method: 'POST',
        headers: { 'x-csrf-token': session.session.csrfToken, 'content-type': 'application/json' },
        body: '{}',
      });
      return response.status;
    })()`)) as number;
    expect(attempt).toBe(403);
    // The memory model lists for a read session (manage_entity_schema's list reads).
    await page.goto(`${server.url}/orgs/default/memory`);
    await page.getByRole('cell', { name: 'works_at' }).waitFor();
    await checkPage(page, 'memory-read');
    await page.context().close();
  });

  it('fits a 360 px wide screen', async () => {
    const page = await narrowPage(browser);
    for (const [path, ready] of [
      ['/orgs/default/memory?q=invoice', 'Invoice 1042 overdue'],
      [`/orgs/default/memory/entities/${seed.jane}`, 'jane@example.com'],
      ['/orgs/default/watchers', 'Overdue invoices'],
    ] as const) {
      if (path.includes('q=')) await signIn(page, server, ADMIN_PASSWORD, path);
      else await page.goto(`${server.url}${path}`);
      await page.getByText(ready).first().waitFor();
      await expectFits(page, path);
    }
    await checkPage(page, 'watchers-360');
    await page.context().close();
  });

  it('reached no host but the server, and logged no script or CSP error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
