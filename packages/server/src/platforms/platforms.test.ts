import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../../test/harness.js';
import { SLACK_CONFIG, TELEGRAM_CONFIG, WHATSAPP_CONFIG } from '../../test/platform-configs.js';

let server: TestServer;
beforeAll(async () => {
  // SLACK_CONFIG's references resolve on this server; every other variable is missing.
  server = await startTestServer({
    secretEnv: { SLACK_BOT_TOKEN: 'xoxb-test', SLACK_SIGNING_SECRET: 'signing-test' },
  });
});

async function createAgent(target: TestServer, agentId: string): Promise<void> {
  const res = await target.call('POST', '/api/default/agents', { body: { agentId, name: agentId } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

function put(target: TestServer, agentId: string, stableId: string, body: unknown) {
  return target.call('PUT', `/api/default/agents/${agentId}/platforms/by-stable-id/${stableId}`, { body });
}

async function listPlatforms(target: TestServer, agentId: string) {
  const res = await target.call('GET', `/api/default/agents/${agentId}/platforms`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.platforms as any[];
}

describe('PUT /api/:org/agents/:id/platforms/by-stable-id/:stableId', () => {
  it('creates, repeats as unchanged, and restarts the worker only when type or config change', async () => {
    await createAgent(server, 'support');
    const body = { type: 'team_chat', name: 'Main', config: { ...SLACK_CONFIG, channel: 'C123' } };

    const created = await put(server, 'support', 'support-team-chat-main', body);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      result: 'created',
      restartsWorker: false,
      platform: {
        stableId: 'support-team-chat-main',
        agentId: 'support',
        type: 'team_chat',
        name: 'Main',
        config: { ...SLACK_CONFIG, channel: 'C123' },
        status: 'ok',
        problems: [],
      },
    });

    const again = await put(server, 'support', 'support-team-chat-main', body);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ result: 'unchanged', restartsWorker: false });
    expect(again.body.platform.updatedAt).toBe(created.body.platform.updatedAt);

    const reconfigured = await put(server, 'support', 'support-team-chat-main', {
      ...body,
      config: { ...SLACK_CONFIG, channel: 'C999' },
    });
    expect(reconfigured.status).toBe(200);
    expect(reconfigured.body).toMatchObject({ result: 'updated', restartsWorker: true });
    expect(reconfigured.body.platform.config).toEqual({ ...SLACK_CONFIG, channel: 'C999' });
    expect(reconfigured.body.platform.updatedAt > created.body.platform.updatedAt).toBe(true);

    // "Main" and "main" slugify alike: same stable ID, a cosmetic change the worker need not see.
    const renamed = await put(server, 'support', 'support-team-chat-main', {
      type: 'team_chat',
      name: 'main',
      config: { ...SLACK_CONFIG, channel: 'C999' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ result: 'updated', restartsWorker: false });
    expect(renamed.body.platform.name).toBe('main');

    const [listed] = await listPlatforms(server, 'support');
    expect(listed).toEqual(renamed.body.platform);
  });

  it('treats key order inside config as no change', async () => {
    await createAgent(server, 'ordered');
    const first = await put(server, 'ordered', 'ordered-messenger', {
      type: 'messenger',
      config: { ...TELEGRAM_CONFIG, a: 1, b: { c: true, d: 'x' } },
    });
    expect(first.status).toBe(201);
    const reordered = await put(server, 'ordered', 'ordered-messenger', {
      type: 'messenger',
      config: { b: { d: 'x', c: true }, a: 1, ...TELEGRAM_CONFIG },
    });
    expect(reordered.body).toMatchObject({ result: 'unchanged', restartsWorker: false });
  });

  it('stores secret references verbatim and reports the ones the server cannot resolve', async () => {
    await createAgent(server, 'secretive');
    const config = {
      bot_token: '$SLACK_BOT_TOKEN',
      signing_secret: '${SLACK_SIGNING_SECRET_EU}',
      headers: { authorization: 'Bearer ${API_KEY}' },
      scopes: ['chat:write', '$EXTRA_SCOPE'],
      // Not references: lowercase names, and a dollar amount.
      note: 'costs $5 and $lowercase',
    };
    const res = await put(server, 'secretive', 'secretive-team-chat', { type: 'team_chat', config });
    expect(res.status).toBe(201);
    expect(res.body.platform.config).toEqual(config);

    const [platform] = await listPlatforms(server, 'secretive');
    expect(platform.config).toEqual(config);
    expect(platform.status).toBe('error');
    // SLACK_BOT_TOKEN is set on this server, so it is not a problem. The order follows jsonb's key
    // order, not the request's, so the comparison sorts by path.
    const problems = platform.problems
      .map(({ message: _, ...p }: any) => p)
      .sort((a: any, b: any) => a.path.localeCompare(b.path));
    expect(problems).toEqual([
      { code: 'secret_missing', variable: 'API_KEY', path: '/config/headers/authorization' },
      { code: 'secret_missing', variable: 'EXTRA_SCOPE', path: '/config/scopes/1' },
      { code: 'secret_missing', variable: 'SLACK_SIGNING_SECRET_EU', path: '/config/signing_secret' },
    ]);
    for (const problem of platform.problems) expect(problem.message).toContain(problem.variable);

    // The values of the environment never appear in an answer.
    const everything = await server.call('GET', '/api/default/agents?include=config,platforms');
    expect(JSON.stringify(everything.body)).not.toContain('xoxb-test');
  });

  it('reports status ok when every reference resolves, and error on a server without them', async () => {
    await createAgent(server, 'resolved');
    const body = { type: 'team_chat', config: SLACK_CONFIG };
    expect((await put(server, 'resolved', 'resolved-team-chat', body)).status).toBe(201);
    const [ok] = await listPlatforms(server, 'resolved');
    expect(ok).toMatchObject({ status: 'ok', problems: [] });

    // The same platform on a server whose environment has neither variable.
    const bare = await startTestServer();
    await createAgent(bare, 'resolved');
    expect((await put(bare, 'resolved', 'resolved-team-chat', body)).status).toBe(201);
    const [missing] = await listPlatforms(bare, 'resolved');
    expect(missing.status).toBe('error');
    expect(missing.problems).toEqual([
      expect.objectContaining({
        code: 'secret_missing',
        variable: 'SLACK_SIGNING_SECRET',
        path: '/config/signing_secret',
      }),
      expect.objectContaining({
        code: 'secret_missing',
        variable: 'SLACK_BOT_TOKEN',
        path: '/config/bot_token',
      }),
    ]);
  });

  it('accepts several platforms of one type when each is named', async () => {
    await createAgent(server, 'multi');
    const a = await put(server, 'multi', 'multi-messenger-sales', {
      type: 'messenger',
      name: 'Sales',
      config: TELEGRAM_CONFIG,
    });
    const b = await put(server, 'multi', 'multi-messenger-support-desk', {
      type: 'messenger',
      name: 'Support Desk',
      config: WHATSAPP_CONFIG,
    });
    expect([a.status, b.status]).toEqual([201, 201]);
    // A platform of another type needs no name.
    const c = await put(server, 'multi', 'multi-team-chat', { type: 'team_chat', config: SLACK_CONFIG });
    expect(c.status).toBe(201);
    const stableIds = (await listPlatforms(server, 'multi')).map((p) => p.stableId);
    expect(stableIds).toEqual(['multi-messenger-sales', 'multi-messenger-support-desk', 'multi-team-chat']);
  });

  it('refuses a second platform of a type while one is unnamed', async () => {
    await createAgent(server, 'single');
    const first = await put(server, 'single', 'single-team-chat', {
      type: 'team_chat',
      config: SLACK_CONFIG,
    });
    expect(first.status).toBe(201);
    const second = await put(server, 'single', 'single-team-chat-b', {
      type: 'team_chat',
      name: 'b',
      config: SLACK_CONFIG,
    });
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('platform_name_required');
    expect(second.body.detail).toContain('single-team-chat');
    expect((await listPlatforms(server, 'single')).map((p) => p.stableId)).toEqual(['single-team-chat']);
  });

  it('builds the webhook URL from the stable ID', async () => {
    await createAgent(server, 'hooks');
    const res = await put(server, 'hooks', 'hooks-messenger', { type: 'messenger', config: TELEGRAM_CONFIG });
    expect(res.body.platform.webhookUrl).toBe('/api/v1/webhooks/hooks-messenger');
  });

  it('accepts the longest stable IDs the naming rule allows', async () => {
    // 63 + "-team-chat-" + 100 characters: well within the route's 200, but over 100.
    const agentId = 'a'.repeat(63);
    const name = 'n'.repeat(100);
    await createAgent(server, agentId);
    const stableId = `${agentId}-team-chat-${name}`;
    const res = await put(server, agentId, stableId, { type: 'team_chat', name, config: SLACK_CONFIG });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.platform.stableId).toBe(stableId);
  });

  it('answers 404 for an unknown agent, and for an agent of another org', async () => {
    const missing = await put(server, 'ghost', 'ghost-team-chat', {
      type: 'team_chat',
      config: SLACK_CONFIG,
    });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('not_found');
    const list = await server.call('GET', '/api/default/agents/ghost/platforms');
    expect(list.status).toBe(404);
    expect(list.body.code).toBe('not_found');

    // `support` exists in `default` only.
    expect((await server.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } })).status).toBe(201);
    const foreign = await server.call('GET', '/api/elsewhere/agents/support/platforms');
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
  });
});

describe('platform config', () => {
  it('refuses a config missing its keys, naming each, and writes nothing', async () => {
    await createAgent(server, 'incomplete');
    const res = await put(server, 'incomplete', 'incomplete-team-chat', {
      type: 'team_chat',
      config: { channel: 'C123' },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      detail: 'the request body is not valid: /body/config/signing_secret, /body/config/bot_token',
      errors: [
        {
          path: '/body/config/signing_secret',
          message:
            'is required for a team_chat platform (Slack Events API): a secret reference such as "$SLACK_SIGNING_SECRET"; store the value with "svc secrets set SLACK_SIGNING_SECRET" and write "$SLACK_SIGNING_SECRET" here',
        },
        { path: '/body/config/bot_token', message: expect.stringContaining('"$SLACK_BOT_TOKEN"') },
      ],
    });
    expect(await listPlatforms(server, 'incomplete')).toEqual([]);
  });

  it('names the keys of each messenger flavor', async () => {
    await createAgent(server, 'flavors');
    const telegram = await put(server, 'flavors', 'flavors-messenger', {
      type: 'messenger',
      config: { bot_token: '$TELEGRAM_BOT_TOKEN' },
    });
    expect(telegram.status).toBe(400);
    expect(telegram.body.errors.map((e: any) => e.path)).toEqual(['/body/config/secret_token']);

    const whatsapp = await put(server, 'flavors', 'flavors-messenger', {
      type: 'messenger',
      config: { flavor: 'whatsapp', bot_token: '$TELEGRAM_BOT_TOKEN', secret_token: '$TG' },
    });
    expect(whatsapp.status).toBe(400);
    expect(whatsapp.body.errors.map((e: any) => e.path)).toEqual([
      '/body/config/access_token',
      '/body/config/app_secret',
      '/body/config/verify_token',
      '/body/config/phone_number_id',
    ]);

    const unknown = await put(server, 'flavors', 'flavors-messenger', {
      type: 'messenger',
      config: { ...TELEGRAM_CONFIG, flavor: 'signal' },
    });
    expect(unknown.body.errors).toEqual([
      { path: '/body/config/flavor', message: 'must be "telegram" (the default when absent) or "whatsapp"' },
    ]);
    const slack = await put(server, 'flavors', 'flavors-team-chat', {
      type: 'team_chat',
      config: { ...SLACK_CONFIG, flavor: 'whatsapp' },
    });
    expect(slack.body.errors.map((e: any) => e.path)).toEqual(['/body/config/flavor']);
    expect(await listPlatforms(server, 'flavors')).toEqual([]);

    const created = await put(server, 'flavors', 'flavors-messenger', {
      type: 'messenger',
      config: WHATSAPP_CONFIG,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.platform.config).toEqual(WHATSAPP_CONFIG);
  });

  it('refuses a secret written as a value without repeating it, and leaves the platform as it was', async () => {
    await createAgent(server, 'leaky');
    const created = await put(server, 'leaky', 'leaky-messenger', {
      type: 'messenger',
      config: TELEGRAM_CONFIG,
    });
    expect(created.status).toBe(201);

    const literal = '123456:AAE-literal-telegram-token';
    const res = await put(server, 'leaky', 'leaky-messenger', {
      type: 'messenger',
      config: { ...TELEGRAM_CONFIG, bot_token: literal },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        path: '/body/config/bot_token',
        message:
          'must be a secret reference such as "$TELEGRAM_BOT_TOKEN", never the secret itself: store the value with "svc secrets set TELEGRAM_BOT_TOKEN" and write "$TELEGRAM_BOT_TOKEN" here',
      },
    ]);
    expect(JSON.stringify(res.body)).not.toContain(literal);
    const [stored] = await listPlatforms(server, 'leaky');
    expect(stored.config).toEqual(TELEGRAM_CONFIG);
    expect(stored.updatedAt).toBe(created.body.platform.updatedAt);
  });
});

describe('platforms under a base path', () => {
  let mounted: TestServer;
  beforeAll(async () => {
    mounted = await startTestServer({ basePath: '/svc' });
  });

  it('serves every route under the base path and carries it in the webhook URL', async () => {
    await createAgent(mounted, 'based');
    const res = await put(mounted, 'based', 'based-team-chat', { type: 'team_chat', config: SLACK_CONFIG });
    expect(res.status).toBe(201);
    expect(res.body.platform.webhookUrl).toBe('/svc/api/v1/webhooks/based-team-chat');
    const [listed] = await listPlatforms(mounted, 'based');
    expect(listed.webhookUrl).toBe('/svc/api/v1/webhooks/based-team-chat');

    // The same route without the prefix does not exist.
    const origin = mounted.url.slice(0, -'/svc'.length);
    const outside = await fetch(`${origin}/api/default/agents/based/platforms`, {
      headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
    });
    expect(outside.status).toBe(404);
    expect(outside.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await outside.json()) as any).code).toBe('route_not_found');
  });
});

describe('deleting a platform', () => {
  it('frees its type for a named pair, and a second delete is 404', async () => {
    await createAgent(server, 'renamer');
    await put(server, 'renamer', 'renamer-team-chat', { type: 'team_chat', config: SLACK_CONFIG });
    const blocked = await put(server, 'renamer', 'renamer-team-chat-eu', {
      type: 'team_chat',
      name: 'eu',
      config: SLACK_CONFIG,
    });
    expect(blocked.body.code).toBe('platform_name_required');

    const removed = await server.call(
      'DELETE',
      '/api/default/agents/renamer/platforms/by-stable-id/renamer-team-chat',
    );
    expect(removed.body).toEqual({ result: 'deleted', stableId: 'renamer-team-chat' });
    expect(await listPlatforms(server, 'renamer')).toEqual([]);
    const again = await server.call(
      'DELETE',
      '/api/default/agents/renamer/platforms/by-stable-id/renamer-team-chat',
    );
    expect(again.status).toBe(404);

    expect(
      (
        await put(server, 'renamer', 'renamer-team-chat-eu', {
          type: 'team_chat',
          name: 'eu',
          config: SLACK_CONFIG,
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await put(server, 'renamer', 'renamer-team-chat-us', {
          type: 'team_chat',
          name: 'us',
          config: SLACK_CONFIG,
        })
      ).status,
    ).toBe(201);
  });
});
