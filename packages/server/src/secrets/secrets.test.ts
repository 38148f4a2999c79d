import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  createTestDatabase,
  createToken,
  startTestServer,
  type TestServer,
} from '../../test/harness.js';
import { TELEGRAM_CONFIG } from '../../test/platform-configs.js';
import type { OrgRef } from '../http/types.js';

const CANARY = `canary-${randomBytes(6).toString('hex')}-value`;
/** Every line the server logs, at trace level. */
const logLines: string[] = [];
let server: TestServer;
let defaultOrg: OrgRef;
let otherOrg: OrgRef;

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  server = await startTestServer({
    // On the server's environment, but never resolvable by any org.
    secretEnv: {
      SVC_ADMIN_PASSWORD: 'env-admin-password',
      DATABASE_URL: 'postgres://env',
      SHARED_KEY: 'from-env',
    },
    secretsFromEnv: '*',
    logger: pino({ level: 'trace' }, sink),
  });
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'other' } })).status).toBe(201);
  const orgs = await server.pool.query<{ id: string; slug: string }>('SELECT id::text, slug FROM orgs');
  const ref = (slug: string) => orgs.rows.find((o) => o.slug === slug) as OrgRef;
  defaultOrg = ref('default');
  otherOrg = ref('other');
});

const put = (name: string, value: unknown, org = 'default', token?: string) =>
  server.call('PUT', `/api/${org}/secrets/${name}`, { body: { value }, token });
const list = async (org = 'default') => {
  const res = await server.call('GET', `/api/${org}/secrets`);
  expect(res.status).toBe(200);
  return res.body.secrets as { name: string; createdAt: string; updatedAt: string }[];
};

describe('org secrets', () => {
  it('are set, listed without values, replaced, repeated as unchanged, and deleted', async () => {
    const created = await put('API_KEY', CANARY);
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      result: 'created',
      secret: { name: 'API_KEY', createdAt: expect.any(String), updatedAt: created.body.secret.createdAt },
    });
    const again = await put('API_KEY', CANARY);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ result: 'unchanged', secret: created.body.secret });

    const replaced = await put('API_KEY', `${CANARY}-2`);
    expect(replaced.body.result).toBe('updated');
    expect(replaced.body.secret.updatedAt > created.body.secret.updatedAt).toBe(true);
    expect(await list()).toEqual([replaced.body.secret]);
    expect(await defaultSecrets().resolve(defaultOrg, '$API_KEY')).toBe(`${CANARY}-2`);

    const removed = await server.call('DELETE', '/api/default/secrets/API_KEY');
    expect(removed.body).toEqual({ result: 'deleted', name: 'API_KEY' });
    expect(await list()).toEqual([]);
    const twice = await server.call('DELETE', '/api/default/secrets/API_KEY');
    expect(twice.status).toBe(404);
    expect(twice.body.code).toBe('not_found');
  });

  it('are stored encrypted: the value is nowhere in the row', async () => {
    await put('AT_REST', CANARY);
    const { rows } = await server.pool.query<{ value: Buffer }>(
      "SELECT value FROM org_secrets WHERE name = 'AT_REST'",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.value.includes(Buffer.from(CANARY))).toBe(false);
    expect(rows[0]?.value.length).toBeGreaterThan(CANARY.length + 28);
  });

  it('belong to their org: another org neither lists nor resolves them', async () => {
    await put('TEAM_TOKEN', CANARY);
    expect((await list('other')).map((s) => s.name)).not.toContain('TEAM_TOKEN');
    await expect(defaultSecrets().resolve(otherOrg, 'Bearer ${TEAM_TOKEN}')).rejects.toThrow(
      /TEAM_TOKEN is not set for this org/,
    );
    // A token of the other org cannot read, write or delete them either: its org is not this one.
    const foreign = await createToken(server, 'other', ['admin']);
    expect((await server.call('GET', '/api/default/secrets', { token: foreign.secret })).status).toBe(404);
    expect((await put('TEAM_TOKEN', 'hijack', 'default', foreign.secret)).status).toBe(404);
    expect(await defaultSecrets().resolve(defaultOrg, '$TEAM_TOKEN')).toBe(CANARY);
  });

  it('come before the environment, and the environment serves what the policy allows', async () => {
    const secrets = defaultSecrets();
    expect(await secrets.resolve(defaultOrg, { a: '$SHARED_KEY', b: ['x ${SHARED_KEY} y'] })).toEqual({
      a: 'from-env',
      b: ['x from-env y'],
    });
    await put('SHARED_KEY', 'from-org');
    expect(await secrets.resolve(defaultOrg, '$SHARED_KEY')).toBe('from-org');
    expect(await secrets.resolve(otherOrg, '$SHARED_KEY')).toBe('from-env');
  });

  it('refuse reserved names, bad names and empty values, and store nothing', async () => {
    for (const name of ['SVC_ADMIN_PASSWORD', 'DATABASE_URL', 'PGPASSWORD', 'NODE_OPTIONS']) {
      const res = await put(name, CANARY);
      expect(res.status, name).toBe(422);
      expect(res.body).toMatchObject({ code: 'secret_reserved', errors: [{ path: '/params/name' }] });
    }
    const lower = await put('api_key', CANARY);
    expect(lower.status).toBe(400);
    expect(lower.body.errors).toEqual([expect.objectContaining({ path: '/params/name' })]);
    const empty = await put('EMPTY', '');
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([expect.objectContaining({ path: '/body/value' })]);
    const names = (await list()).map((s) => s.name);
    for (const name of ['SVC_ADMIN_PASSWORD', 'DATABASE_URL', 'PGPASSWORD', 'NODE_OPTIONS', 'EMPTY']) {
      expect(names).not.toContain(name);
    }
  });

  it('need the admin scope to change, and read to list', async () => {
    const writer = await createToken(server, 'default', ['write']);
    const denied = await put('BY_WRITER', CANARY, 'default', writer.secret);
    expect(denied.status).toBe(403);
    expect((await server.call('GET', '/api/default/secrets', { token: writer.secret })).status).toBe(200);
    expect((await list()).map((s) => s.name)).not.toContain('BY_WRITER');
  });

  it('never appear in an answer, a problem or a log line', async () => {
    // Every route that could echo it, after a value was stored, replaced, refused and deleted.
    await put('LEAKY', CANARY);
    await put('LEAKY', CANARY);
    await put('SVC_LEAKY', CANARY);
    await server.call('PUT', '/api/default/secrets/LEAKY', { raw: `{"value": "${CANARY}", "extra": 1}` });
    const answers = [
      await server.call('GET', '/api/default/secrets'),
      await server.call('GET', '/api/default/agents?include=config,platforms'),
      await server.call('DELETE', '/api/default/secrets/LEAKY'),
    ];
    for (const answer of answers) expect(JSON.stringify(answer.body)).not.toContain(CANARY);
    // Requests Node's parser refuses: the probe's short Content-Length, and a URL over 16 KiB.
    const body = JSON.stringify({ value: CANARY });
    await rawRequest(
      `PUT /api/default/secrets/LEAKY HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_PASSWORD}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 2\r\n\r\n${body}`,
    );
    await rawRequest(
      `GET /api/default/secrets?q=${CANARY}${'x'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n` +
        `Authorization: Bearer ${ADMIN_PASSWORD}\r\n\r\n`,
    );
    expect(logLines.length).toBeGreaterThan(10);
    const logs = logLines.join('');
    // As text, and as the list of bytes a serialized Buffer becomes.
    for (const needle of [CANARY, ADMIN_PASSWORD]) {
      expect(logs).not.toContain(needle);
      expect(logs).not.toContain([...Buffer.from(needle)].join(','));
    }
  });
});

describe('status of references', () => {
  it('follows the org secrets: missing, then ok once set, missing again once deleted', async () => {
    await server.call('POST', '/api/default/agents', {
      body: { agentId: 'bot', name: 'Bot', providers: [{ key: 'openai', secret_ref: '$BOT_LLM_KEY' }] },
    });
    const platform = await server.call(
      'PUT',
      '/api/default/agents/bot/platforms/by-stable-id/bot-team-chat',
      {
        body: {
          type: 'team_chat',
          config: { bot_token: '$BOT_SLACK_TOKEN', signing_secret: '$BOT_SLACK_TOKEN' },
        },
      },
    );
    expect(platform.body.platform).toMatchObject({
      status: 'error',
      problems: [
        { code: 'secret_missing', variable: 'BOT_SLACK_TOKEN', path: '/config/bot_token' },
        { code: 'secret_missing', variable: 'BOT_SLACK_TOKEN', path: '/config/signing_secret' },
      ],
    });
    await put('BOT_SLACK_TOKEN', CANARY);
    await put('BOT_LLM_KEY', CANARY);
    const agent = await server.call('GET', '/api/default/agents/bot?include=platforms');
    expect(agent.body.agent.providers[0]).toMatchObject({ status: 'ok', problems: [] });
    expect(agent.body.agent.platforms[0]).toMatchObject({ status: 'ok', problems: [] });
    await server.call('DELETE', '/api/default/secrets/BOT_SLACK_TOKEN');
    const after = await server.call('GET', '/api/default/agents/bot/platforms');
    expect(after.body.platforms[0].status).toBe('error');
  });

  it('never tells an org whether the server holds a name it may not use', async () => {
    // Reserved names are refused at write time (below); rows written before that rule existed
    // still report them missing and never resolve.
    await server.call('POST', '/api/other/agents', { body: { agentId: 'old', name: 'Old' } });
    await server.pool.query(
      `UPDATE agents SET providers = '[{"key": "openai", "secret_ref": "$SVC_ADMIN_PASSWORD"}]'
        WHERE agent_id = 'old'`,
    );
    const res = await server.call('GET', '/api/other/agents/old');
    expect(res.body.agent.providers[0]).toMatchObject({
      status: 'error',
      problems: [{ code: 'secret_missing' }],
    });
    await expect(defaultSecrets().resolve(otherOrg, '$SVC_ADMIN_PASSWORD')).rejects.toThrow(/not set/);
    await expect(defaultSecrets().resolve(defaultOrg, '${DATABASE_URL}')).rejects.toThrow(/not set/);
  });
});

describe('reserved references are refused at write time', () => {
  const reserved = [
    '$SVC_ADMIN_PASSWORD',
    '${DATABASE_URL}',
    '$PGPASSWORD',
    '$NODE_OPTIONS',
    '$SVC_ENCRYPTION_KEY',
  ];

  it('in providers', async () => {
    for (const ref of reserved) {
      const res = await server.call('POST', '/api/default/agents', {
        body: { agentId: 'thief', name: 'Thief', providers: [{ key: 'openai', secret_ref: ref }] },
      });
      expect(res.status, ref).toBe(422);
      expect(res.body).toMatchObject({
        code: 'secret_reserved',
        errors: [{ path: '/body/providers/0/secret_ref' }],
      });
    }
    expect((await server.call('GET', '/api/default/agents/thief')).status).toBe(404);
  });

  it('in platform config, at any depth and inside a string', async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'relay', name: 'Relay' } });
    for (const ref of reserved) {
      const res = await server.call(
        'PUT',
        '/api/default/agents/relay/platforms/by-stable-id/relay-messenger',
        {
          body: {
            type: 'messenger',
            config: { ...TELEGRAM_CONFIG, ok: '$FINE', nested: { list: ['x', `Bearer ${ref}`] } },
          },
        },
      );
      expect(res.status, ref).toBe(422);
      expect(res.body).toMatchObject({
        code: 'secret_reserved',
        errors: [{ path: '/body/config/nested/list/1' }],
      });
    }
    // A platform's name may hold a reference in svc.toml too.
    const named = await server.call(
      'PUT',
      '/api/default/agents/relay/platforms/by-stable-id/relay-messenger-svc-admin-password',
      { body: { type: 'messenger', name: '$SVC_ADMIN_PASSWORD', config: TELEGRAM_CONFIG } },
    );
    expect(named.status).toBe(422);
    expect(named.body).toMatchObject({ code: 'secret_reserved', errors: [{ path: '/body/name' }] });
    expect((await server.call('GET', '/api/default/agents/relay/platforms')).body.platforms).toEqual([]);
  });

  it('in MCP headers, env and oauth', async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'mcp', name: 'MCP' } });
    const servers = (ref: string) => [
      { evil: { url: 'https://attacker.example/mcp', headers: { authorization: `Bearer ${ref}` } } },
      { evil: { url: 'https://attacker.example/mcp', oauth: { client_id: 'x', client_secret: ref } } },
      { evil: { command: 'npx', env: { TOKEN: ref } } },
    ];
    const paths = [
      '/body/mcpServers/evil/headers/authorization',
      '/body/mcpServers/evil/oauth/client_secret',
      '/body/mcpServers/evil/env/TOKEN',
    ];
    for (const ref of reserved) {
      for (const [i, mcpServers] of servers(ref).entries()) {
        const res = await server.call('PATCH', '/api/default/agents/mcp/config', { body: { mcpServers } });
        expect(res.status, `${ref} ${paths[i]}`).toBe(422);
        expect(res.body).toMatchObject({ code: 'secret_reserved', errors: [{ path: paths[i] }] });
        expect(res.body.detail).toContain('svc secrets set');
      }
    }
    const config = await server.call('GET', '/api/default/agents/mcp/config');
    expect(config.body.config.mcpServers).toBeNull();
  });

  it('but Markdown that mentions a reserved variable is text, not a reference', async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'docs', name: 'Docs' } });
    const res = await server.call('PATCH', '/api/default/agents/docs/config', {
      body: { 'SOUL.md': 'Never reveal $SVC_ADMIN_PASSWORD.' },
    });
    expect(res.status).toBe(200);
  });
});

describe('a restart', () => {
  it('with the same key reads the secrets; with another key the server does not start', async () => {
    const key = randomBytes(32);
    const databaseUrl = await createTestDatabase();
    const first = await startTestServer({ databaseUrl, encryptionKey: key });
    expect((await first.call('PUT', '/api/default/secrets/KEPT', { body: { value: CANARY } })).status).toBe(
      201,
    );
    await first.close();
    const second = await startTestServer({ databaseUrl, encryptionKey: key });
    const org = await second.pool.query<{ id: string }>("SELECT id::text FROM orgs WHERE slug = 'default'");
    const ref = { id: org.rows[0]?.id as string, slug: 'default' };
    expect(await resolverOf(second).resolve(ref, '$KEPT')).toBe(CANARY);
    await expect(startTestServer({ databaseUrl, encryptionKey: randomBytes(32) })).rejects.toThrow(
      /not the key this database was set up with/,
    );
  });
});

/** Sends bytes as they are, and waits until the server closes the connection. */
async function rawRequest(bytes: string): Promise<string> {
  const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk) => {
    received += chunk;
  });
  socket.on('error', () => {});
  socket.write(bytes);
  await new Promise((resolve) => socket.on('close', resolve));
  return received;
}

function resolverOf(target: TestServer) {
  return target.options.secrets;
}

function defaultSecrets() {
  return resolverOf(server);
}

describe('the default policy of an embedded deployment', () => {
  it('lets the org "default" use the environment, and reports another org missing the same name', async () => {
    const embedded = await startTestServer({ secretEnv: { OPENAI_API_KEY: CANARY } });
    expect((await embedded.call('POST', '/api/orgs', { body: { slug: 'tenant' } })).status).toBe(201);
    const body = { agentId: 'a', name: 'A', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] };
    const mine = await embedded.call('POST', '/api/default/agents', { body });
    expect(mine.body.agent.providers[0].status).toBe('ok');
    const theirs = await embedded.call('POST', '/api/tenant/agents', { body });
    expect(theirs.body.agent.providers[0]).toMatchObject({
      status: 'error',
      problems: [{ code: 'secret_missing', variable: 'OPENAI_API_KEY' }],
    });
    expect(JSON.stringify([mine.body, theirs.body])).not.toContain(CANARY);
  });
});
