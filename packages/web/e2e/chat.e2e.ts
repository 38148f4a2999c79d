import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { type RecordedRequest, startFakeChatCompletions } from '../../server/test/fakes/chat-completions.js';
import { startFakeMcpHttp } from '../../server/test/fakes/mcp-http.js';
import {
  ADMIN_PASSWORD,
  checkPage,
  createToken,
  expectFits,
  openBrowser,
  signIn,
  startConsoleServer,
} from './console.js';

const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1);

describe('chatting with an agent in the console', async () => {
  const fake = await startFakeChatCompletions();
  const mcp = await startFakeMcpHttp();
  const server = await startConsoleServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-console-chat' },
    workers: { approvalTtlMs: 600_000, reapMs: 500 },
  });
  const browser = await openBrowser(server);
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  await server.call('PATCH', '/api/default/agents/ops/config', {
    body: { mcpServers: { kit: { url: mcp.url } } },
  });
  const chatPath = '/orgs/default/agents/ops/chat';
  let page: Page;
  let conversationUrl = '';
  const log = () => page.getByRole('log', { name: 'Messages' });

  it('streams a reply in, a piece at a time, into a conversation whose id is in the URL', async () => {
    fake.answer = () => ({
      chunks: ['Streaming ', 'one ', 'word ', 'at ', 'a ', 'time.'],
      delayMs: 250,
    });
    page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, chatPath);
    await page.getByRole('heading', { name: 'Chat with ops' }).waitFor();
    await page.getByLabel('Message', { exact: true }).fill('Hello there');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(/\?conversation=[0-9a-f-]{36}$/);
    conversationUrl = page.url();
    // Seen in the page while the model still streams: part of the reply, not yet all of it.
    // (It runs in the page, where `document` is; a string would be eval, which the CSP refuses.)
    await page.waitForFunction(() => {
      const text: string = (globalThis as any).document.querySelector('[role="log"]')?.textContent ?? '';
      return text.includes('Streaming one') && !text.includes('a time.');
    });
    // The connection drops mid-reply: EventSource comes back with Last-Event-ID, and no text repeats.
    const resumedAfter: (string | undefined)[] = [];
    page.on('request', async (request) => {
      if (request.url().includes('/events')) resumedAfter.push((await request.allHeaders())['last-event-id']);
    });
    // Every text the log shows from here on is kept, to see that none holds a piece twice.
    await page.evaluate(`(() => {
      const log = document.querySelector('[role="log"]');
      window.seen = [];
      new MutationObserver(() => window.seen.push(log.textContent)).observe(log, {
        subtree: true, childList: true, characterData: true,
      });
    })()`);
    server.app.server.closeAllConnections();
    await log().getByText('Streaming one word at a time.').waitFor();
    expect(resumedAfter.length).toBeGreaterThan(0);
    expect(resumedAfter.every((id) => Number(id) > 0)).toBe(true);
    const seen = (await page.evaluate('window.seen')) as string[];
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((text) => /Streaming.*Streaming|one one|word word/.test(text))).toEqual([]);
    expect(await log().getByText('Hello there').count()).toBe(1);
    await log().getByText('completed').waitFor();
  });

  it('pauses on a destructive MCP tool call until it is approved inline, then completes the turn', async () => {
    fake.answer = (request) =>
      lastMessage(request)?.role === 'tool'
        ? { chunks: ['Staging ', 'is ', 'wiped.'], delayMs: 50 }
        : { toolCalls: [{ name: 'kit__wipe', arguments: { target: 'staging' } }] };
    await page.getByLabel('Message', { exact: true }).fill('Please wipe staging');
    await page.getByRole('button', { name: 'Send' }).click();
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    expect(mcp.calls.filter((c) => c.tool === 'wipe')).toEqual([]);
    await expect(log().getByText('"target": "staging"').first().isVisible()).resolves.toBe(true);
    await checkPage(page, 'chat');

    await page.getByLabel('Reason (optional, told to the model)').fill('staging only');
    await approve.click();
    await log().getByText('Staging is wiped.').waitFor();
    // The prompt went away with the decision: the focus is on the call it was about.
    expect(await page.evaluate('document.activeElement.tagName')).toBe('SUMMARY');
    expect(mcp.calls.filter((c) => c.tool === 'wipe').map((c) => c.input)).toEqual([{ target: 'staging' }]);
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    // The call, its input and its result, a click (or Enter) away.
    await log().getByText('Tool kit.wipe').click();
    await log().getByText('wiped staging', { exact: true }).waitFor();
  });

  it('keeps the conversation over a reload, showing each reply once', async () => {
    await page.reload();
    expect(page.url()).toBe(conversationUrl);
    await log().getByText('Staging is wiped.').waitFor();
    expect(await log().getByText('Streaming one word at a time.').count()).toBe(1);
    expect(await log().getByText('Staging is wiped.').count()).toBe(1);
    await log().getByText('Tool kit.wipe').press('Enter');
    await log().getByText('wiped staging', { exact: true }).waitFor();
    expect(await log().getByText('approved: staging only').count()).toBe(1);
  });

  it('sends a file to a shared channel, offers it for download, and finds conversations by search', async () => {
    fake.answer = () => ({ text: 'Got your notes.' });
    await page.getByRole('link', { name: 'New message' }).click();
    await page.getByLabel('Channel (optional)').fill('fruit');
    await page.getByLabel('Message', { exact: true }).fill('Notes about bananas attached');
    await page.getByLabel('Attach files').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('ripe by Friday'),
    });
    // From the keyboard: Ctrl+Enter sends, and the writer is back in the message box.
    await page.getByLabel('Message', { exact: true }).press('Control+Enter');
    await log().getByText('Got your notes.').waitFor();
    expect(await page.evaluate('document.activeElement.id')).toBe('chat-content');
    const link = log().getByRole('link', { name: 'notes.txt' });
    const url = await link.getAttribute('href');
    const body = await page.evaluate(`fetch(${JSON.stringify(url)}).then((r) => r.text())`);
    expect(body).toBe('ripe by Friday');

    const conversations = page.getByRole('navigation', { name: 'Conversations' });
    await conversations.getByRole('link', { name: '#fruit' }).waitFor();
    await page.getByLabel('Search conversations').fill('wipe staging');
    await page.getByRole('button', { name: 'Search' }).click();
    await conversations.getByRole('link', { name: '#fruit' }).waitFor({ state: 'detached' });
    await conversations.getByRole('link', { name: 'Private conversation' }).click();
    await page.waitForURL(conversationUrl);
    await log().getByText('Staging is wiped.').waitFor();

    await page.getByLabel('Search conversations').fill('BANANAS');
    await page.getByRole('button', { name: 'Search' }).click();
    await conversations.getByRole('link', { name: 'Private conversation' }).waitFor({ state: 'detached' });
    await conversations.getByRole('link', { name: '#fruit' }).click();
    await log().getByText('Notes about bananas attached').waitFor();
  });

  it('fits a 360 px wide screen', async () => {
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(conversationUrl);
    await log().getByText('Staging is wiped.').waitFor();
    await expectFits(page);
    await checkPage(page, 'chat-360');
    await page.context().close();
  });

  it('offers no composer to a token without the messages scope', async () => {
    const reader = await browser.newPage();
    await signIn(reader, server, await createToken(server, ['read']), chatPath);
    await reader.getByRole('heading', { name: 'Chat with ops' }).waitFor();
    await reader.getByText('lacks it').waitFor();
    expect(await reader.getByLabel('Message', { exact: true }).count()).toBe(0);
    expect(await reader.getByRole('button', { name: 'Send' }).count()).toBe(0);
    await checkPage(reader, 'chat-read');
    await reader.context().close();
  });

  it('reached no host but the server, and logged no script or CSP error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
