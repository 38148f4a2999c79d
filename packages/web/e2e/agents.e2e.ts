import { describe, expect, it } from 'vitest';
import { SLACK_CONFIG, TELEGRAM_CONFIG } from '../../server/test/platform-configs.js';
import { ADMIN_PASSWORD, checkPage, openBrowser, signIn, startConsoleServer } from './console.js';

describe('what svc apply manages, and drift deleted from its page', async () => {
  const server = await startConsoleServer();
  const browser = await openBrowser(server);
  for (const [agentId, name] of [
    ['support', 'Support'],
    ['legacy', 'Legacy bot'],
  ]) {
    await server.call('POST', '/api/default/agents', { body: { agentId, name } });
  }
  const platform = await server.call(
    'PUT',
    '/api/default/agents/support/platforms/by-stable-id/support-team-chat',
    { body: { type: 'team_chat', config: SLACK_CONFIG } },
  );
  expect(platform.status).toBeLessThan(300);
  // A platform no project declares (drift).
  const stray = await server.call(
    'PUT',
    '/api/default/agents/support/platforms/by-stable-id/support-messenger',
    {
      body: { type: 'messenger', config: TELEGRAM_CONFIG },
    },
  );
  expect(stray.status).toBeLessThan(300);
  for (const slug of ['person', 'old-thing']) {
    const upsert = await server.call('POST', '/api/default/operations/manage_entity_schema', {
      body: { action: 'upsert', kind: 'entity_type', item: { slug, name: slug } },
    });
    expect(upsert.status).toBeLessThan(300);
  }
  // What `svc apply` records at its end: this project declares `support`, its platform and
  // `person` only.
  const manifest = await server.call('PUT', '/api/default/apply-manifest', {
    body: {
      project: 'quickstart',
      agents: ['support'],
      platforms: ['support-team-chat'],
      entityTypes: ['person'],
      relationshipTypes: [],
      watchers: [],
    },
  });
  expect(manifest.status).toBe(201);

  it('marks what the latest apply declared, and shows a platform with its webhook and the step that connects it', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/agents');
    await page.getByRole('link', { name: 'Legacy bot' }).waitFor();
    await page.getByText('drift: declared nowhere').waitFor();
    const rows = page.getByRole('row');
    expect(await rows.filter({ hasText: 'Support' }).getByText('managed by svc apply').count()).toBe(1);
    expect(await rows.filter({ hasText: 'Legacy bot' }).getByText('drift: declared nowhere').count()).toBe(1);

    await page.getByRole('link', { name: 'Support' }).click();
    // Exact: before the agent is loaded, the heading is its id ("support").
    await page.getByRole('heading', { name: 'Support', level: 1, exact: true }).waitFor();
    const webhook = `${server.url}/api/v1/webhooks/support-team-chat`;
    await page.getByText(webhook).first().waitFor();
    expect(await page.getByText(/Event Subscriptions, set the Request URL/).count()).toBe(1);
    await checkPage(page, 'agent-platforms');

    // The drift platform, and only it, may be deleted here.
    expect(await page.getByRole('button', { name: 'Delete platform support-team-chat' }).count()).toBe(0);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete platform support-messenger' }).click();
    await page
      .getByRole('button', { name: 'Delete platform support-messenger' })
      .waitFor({ state: 'detached' });
    const platforms = await server.call('GET', '/api/default/agents/support/platforms');
    expect(platforms.body.platforms.map((p: { stableId: string }) => p.stableId)).toEqual([
      'support-team-chat',
    ]);
    await page.context().close();
  });

  it('deletes a drift agent from its page, after asking', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/agents/legacy');
    await page.getByRole('heading', { name: 'Legacy bot', level: 1 }).waitFor();
    await page.getByText(/No project declares this agent/).waitFor();
    await checkPage(page, 'agent-drift');

    // Dismissed: nothing happens.
    page.once('dialog', (dialog) => void dialog.dismiss());
    await page.getByRole('button', { name: 'Delete agent legacy' }).click();
    expect((await server.call('GET', '/api/default/agents/legacy')).status).toBe(200);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete agent legacy' }).click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Support' }).waitFor();
    expect(await page.getByRole('link', { name: 'Legacy bot' }).count()).toBe(0);
    expect((await server.call('GET', '/api/default/agents/legacy')).status).toBe(404);
    await page.context().close();
  });

  it('deletes a drift entity type from the memory model, and leaves the declared one', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/memory');
    await page.getByRole('button', { name: 'Delete old-thing' }).waitFor();
    expect(await page.getByRole('button', { name: 'Delete person' }).count()).toBe(0);
    const person = page.getByRole('row').filter({ hasText: 'person' });
    expect(await person.getByText('managed by svc apply').count()).toBe(1);
    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Delete old-thing' }).click();
    await page.getByRole('button', { name: 'Delete old-thing' }).waitFor({ state: 'detached' });
    const listed = await server.call('POST', '/api/default/operations/manage_entity_schema', {
      body: { action: 'list', kind: 'entity_type' },
    });
    expect(listed.body.entityTypes.map((t: { slug: string }) => t.slug)).toEqual(['person']);
    await page.context().close();
  });

  it('reached no host but the server, and logged no script or CSP error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
