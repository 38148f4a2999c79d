import { describe, expect, it } from 'vitest';
import { type RecordedRequest, startFakeChatCompletions } from '../../server/test/fakes/chat-completions.js';
import { startFakeMcpHttp } from '../../server/test/fakes/mcp-http.js';
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

const SHOP = `
import { defineConnector, z, configSchema } from '@svc/connector-sdk';
export default defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '1.0.0',
  feeds: {},
  actions: {
    refund: { key: 'refund', name: 'Refund', requiresApproval: true,
      inputSchema: configSchema(z.object({ order: z.string() })), async execute() { return { success: true }; } },
  },
});`;

describe('the approvals inbox (served under SVC_BASE_PATH)', async () => {
  const fake = await startFakeChatCompletions();
  const mcp = await startFakeMcpHttp();
  // Under a base path: the paths the inbox hands out are relative to it.
  const server = await startConsoleServer({
    basePath: '/svc',
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-console-inbox' },
    workers: { approvalTtlMs: 600_000, reapMs: 500 },
    connectorSourceInstalls: true,
  });
  const browser = await openBrowser(server);
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  await server.call('PATCH', '/api/default/agents/ops/config', {
    body: { mcpServers: { kit: { url: mcp.url } } },
  });
  // Asked to wipe a target, the model calls the destructive tool; told the outcome, it says it.
  fake.answer = (request: RecordedRequest) => {
    const last = request.body.messages.at(-1);
    if (last?.role === 'tool') return { text: `outcome: ${JSON.stringify(last.content)}` };
    const target = String(last?.content).replace(/^wipe /, '');
    return { toolCalls: [{ name: 'kit__wipe', arguments: { target } }] };
  };
  // Two turns paused on a call each, in two shared conversations.
  const paused: Record<string, string> = {};
  for (const target of ['alpha', 'beta']) {
    const sent = await server.call('POST', '/api/v1/agents/ops/messages', {
      body: { platform: 'api', content: `wipe ${target}`, channel: `ops-${target}` },
      headers: { prefer: 'wait=10' },
    });
    expect(sent.body.status).toBe('awaiting_approval');
    paused[target] = sent.body.id;
  }
  // A connector action that waits for approval, asked for through the API: a run in the inbox.
  const installed = await server.call('POST', '/api/default/connectors', { body: { source: SHOP } });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  const connection = await server.call('POST', '/api/default/connections', {
    body: { connectorKey: 'shop' },
  });
  const refund = await server.call(
    'POST',
    `/api/default/connections/${connection.body.connection.id}/actions/refund`,
    { body: { input: { order: 'gamma' } } },
  );
  expect(refund.body.run.approvalStatus).toBe('pending');

  const card = (page: import('playwright-core').Page, target: string) =>
    page.locator('li.inbox-item', { hasText: `"target": "${target}"` });

  it('lists the pending calls; one rejected with a reason leaves the list, and its turn goes on', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/approvals');
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    await card(page, 'beta').waitFor();
    await card(page, 'alpha').waitFor();
    const beta = card(page, 'beta');
    expect(await beta.getByText('Expires').count()).toBe(1);
    expect(await beta.getByRole('link', { name: 'ops' }).getAttribute('href')).toBe(
      '/svc/orgs/default/agents/ops',
    );
    await checkPage(page, 'approvals');

    await beta.getByLabel('Reason (optional, told to the model)').fill('beta is production');
    await beta.getByRole('button', { name: 'Reject' }).click();
    await beta.waitFor({ state: 'detached' });
    await page.getByRole('status').getByText('kit.wipe: rejected.').waitFor();
    // The button that had the focus is gone: the focus is on what was said, not lost.
    await page.waitForFunction(
      () => (globalThis as any).document.activeElement?.getAttribute('role') === 'status',
    );
    expect(await card(page, 'alpha').count()).toBe(1);

    // A run is approved without a reason, at the route its item names.
    const gamma = page.locator('li.inbox-item', { hasText: '"order": "gamma"' });
    await gamma.getByRole('link', { name: 'connection', exact: false }).first().waitFor();
    expect(await gamma.getByLabel('Reason (optional, told to the model)').count()).toBe(0);
    await gamma.getByRole('button', { name: 'Approve' }).click();
    await gamma.waitFor({ state: 'detached' });
    const run = await server.call('GET', `/api/default/runs/${refund.body.run.id}`);
    expect(run.body.run.approvalStatus).toBe('approved');

    const { rows } = await server.pool.query('SELECT status, reason FROM approvals WHERE message_id = $1', [
      paused.beta,
    ]);
    expect(rows).toEqual([{ status: 'rejected', reason: 'beta is production' }]);
    let message: any;
    for (let i = 0; i < 100; i++) {
      message = (await server.call('GET', `/api/v1/agents/ops/messages/${paused.beta}`)).body;
      if (message.status === 'completed') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(message.reply).toContain('beta is production');
    expect(mcp.calls.filter((c) => c.tool === 'wipe')).toEqual([]);

    // The rejected list has it, with its reason; its conversation opens in the chat.
    await page.getByLabel('Status').selectOption('rejected');
    await page.waitForURL(/\?status=rejected$/);
    await card(page, 'beta').getByText('beta is production').waitFor();
    expect(await card(page, 'beta').getByRole('button', { name: 'Reject' }).count()).toBe(0);
    await card(page, 'beta').getByRole('link', { name: 'its conversation' }).click();
    await page.getByRole('log', { name: 'Messages' }).getByText('wipe beta').waitFor();
    await page.getByRole('log', { name: 'Messages' }).getByText('rejected: beta is production').waitFor();
    await page.context().close();
  });

  it('shows a read token the pending calls with no control to decide them', async () => {
    const page = await browser.newPage();
    await signIn(page, server, await createToken(server, ['read']), '/orgs/default/approvals');
    await card(page, 'alpha').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(0);
    await card(page, 'alpha').getByText('which this session lacks').waitFor();
    await page.getByLabel('Status').selectOption('approved');
    await page.locator('li.inbox-item', { hasText: '"order": "gamma"' }).waitFor();
    await checkPage(page, 'approvals-read');
    await page.context().close();
  });

  it('fits a 360 px wide screen', async () => {
    const page = await narrowPage(browser);
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/approvals');
    await card(page, 'alpha').waitFor();
    await expectFits(page);
    await checkPage(page, 'approvals-360');
    await page.context().close();
  });

  it('reached no host but the server, and logged no script or CSP error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
