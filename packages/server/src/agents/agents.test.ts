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
});
