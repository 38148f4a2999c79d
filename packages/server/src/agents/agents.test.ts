import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});

describe('agents', () => {
  it('creates, then answers unchanged without touching updated_at, then updates', async () => {
    const first = await server.call('POST', '/api/default/agents', {
      body: { agentId: 'helper', name: 'Helper' },
    });
    expect(first.status).toBe(201);
    expect(first.body.result).toBe('created');

    const again = await server.call('POST', '/api/default/agents', {
      body: { agentId: 'helper', name: 'Helper' },
    });
    expect(again.status).toBe(200);
    expect(again.body.result).toBe('unchanged');
    expect(again.body.agent.updatedAt).toBe(first.body.agent.updatedAt);

    const renamed = await server.call('POST', '/api/default/agents', {
      body: { agentId: 'helper', name: 'Helper 2', description: 'd' },
    });
    expect(renamed.body.result).toBe('updated');
    expect(renamed.body.agent.name).toBe('Helper 2');
    expect(renamed.body.agent.updatedAt > first.body.agent.updatedAt).toBe(true);
  });

  it('patches settings: a value replaces, null clears, absent keeps', async () => {
    await server.call('POST', '/api/default/agents', { body: { agentId: 'cfg', name: 'Cfg' } });
    const set = await server.call('PATCH', '/api/default/agents/cfg/config', {
      body: { 'SOUL.md': 'kind', nixConfig: { packages: ['jq'] } },
    });
    expect(set.body).toMatchObject({ result: 'updated', changed: ['nixConfig', 'SOUL.md'] });
    const same = await server.call('PATCH', '/api/default/agents/cfg/config', {
      body: { nixConfig: { packages: ['jq'] } },
    });
    expect(same.body).toMatchObject({ result: 'unchanged', changed: [] });
    expect(same.body.updatedAt).toBe(set.body.updatedAt);
    const cleared = await server.call('PATCH', '/api/default/agents/cfg/config', {
      body: { 'SOUL.md': null },
    });
    expect(cleared.body).toMatchObject({ result: 'updated', changed: ['SOUL.md'] });
    expect(cleared.body.config['SOUL.md']).toBeNull();
    expect(cleared.body.config.nixConfig).toEqual({ packages: ['jq'] });
  });

  it('lists every agent with settings and platforms in one answer', async () => {
    const res = await server.call('GET', '/api/default/agents?include=config,platforms');
    expect(res.status).toBe(200);
    const cfg = res.body.agents.find((a: { agentId: string }) => a.agentId === 'cfg');
    expect(cfg.config.nixConfig).toEqual({ packages: ['jq'] });
    expect(cfg.platforms).toEqual([]);
    const bare = await server.call('GET', '/api/default/agents');
    expect(bare.body.agents[0].config).toBeUndefined();
  });

  it('takes include as a repeated parameter (what generated clients send) or as a comma list', async () => {
    const cfgOf = async (query: string) => {
      const res = await server.call('GET', `/api/default/agents${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.agents.find((a: { agentId: string }) => a.agentId === 'cfg');
    };
    const both = { config: expect.any(Object), platforms: [] };
    expect(await cfgOf('?include=config&include=platforms')).toMatchObject(both);
    expect(await cfgOf('?include=config,platforms')).toMatchObject(both);
    expect(await cfgOf('?include=platforms,config&include=config')).toMatchObject(both);
    const configOnly = await cfgOf('?include=config');
    expect(configOnly.config.nixConfig).toEqual({ packages: ['jq'] });
    expect(configOnly.platforms).toBeUndefined();
    const one = await server.call('GET', '/api/default/agents/cfg?include=platforms');
    expect(one.body.agent).toMatchObject({ platforms: [] });
    expect(one.body.agent.config).toBeUndefined();

    for (const query of ['?include=config&include=secrets', '?include=config,secrets']) {
      const bad = await server.call('GET', `/api/default/agents${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.headers.get('content-type')).toBe('application/problem+json');
      expect(bad.body.errors).toEqual([
        { path: '/querystring/include/1', message: expect.stringContaining('"config"|"platforms"') },
      ]);
    }
    const empty = await server.call('GET', '/api/default/agents?include=');
    expect(empty.status).toBe(400);
  });
});

describe('agent providers', () => {
  it('keeps secret references, reports the ones this server cannot resolve, and repeats unchanged', async () => {
    const withEnv = await startTestServer({ secretEnv: { OPENAI_API_KEY: 'set' } });
    const body = {
      agentId: 'llm',
      name: 'LLM',
      providers: [
        { key: 'openai', secret_ref: '$OPENAI_API_KEY' },
        { key: 'anthropic', secret_ref: '${ANTHROPIC_API_KEY}' },
      ],
    };
    const created = await withEnv.call('POST', '/api/default/agents', { body });
    expect(created.status).toBe(201);
    expect(created.body.agent.providers).toEqual([
      { key: 'openai', secret_ref: '$OPENAI_API_KEY', status: 'ok', problems: [] },
      {
        key: 'anthropic',
        secret_ref: '${ANTHROPIC_API_KEY}',
        status: 'error',
        problems: [
          {
            code: 'secret_missing',
            variable: 'ANTHROPIC_API_KEY',
            path: '/secret_ref',
            message:
              'secret ANTHROPIC_API_KEY is not set for this org: store it with "svc secrets set ANTHROPIC_API_KEY" ' +
              "(or, where SVC_SECRETS_FROM_ENV allows it, in the server's environment)",
          },
        ],
      },
    ]);
    const listed = await withEnv.call('GET', '/api/default/agents');
    expect(listed.body.agents[0].providers).toEqual(created.body.agent.providers);
    expect((await withEnv.call('POST', '/api/default/agents', { body })).body.result).toBe('unchanged');
    const dropped = await withEnv.call('POST', '/api/default/agents', {
      body: { agentId: 'llm', name: 'LLM' },
    });
    expect(dropped.body).toMatchObject({ result: 'updated', agent: { providers: [] } });
  });

  it('refuses a secret value where a reference belongs, and duplicate keys', async () => {
    const pasted = await server.call('POST', '/api/default/agents', {
      body: { agentId: 'leaky', name: 'L', providers: [{ key: 'openai', secret_ref: 'sk-live-123' }] },
    });
    expect(pasted.status).toBe(400);
    expect(pasted.body.errors).toContainEqual(
      expect.objectContaining({ path: '/body/providers/0/secret_ref' }),
    );
    const twice = await server.call('POST', '/api/default/agents', {
      body: {
        agentId: 'twice',
        name: 'T',
        providers: [
          { key: 'openai', secret_ref: '$A' },
          { key: 'openai', secret_ref: '$B' },
        ],
      },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.errors).toContainEqual(expect.objectContaining({ path: '/body/providers' }));
  });
});
