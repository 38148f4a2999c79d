import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

const CHECK = (agent: string) => `/api/default/agents/${agent}/config/check`;

let locked: TestServer;
beforeAll(async () => {
  // Nothing internal allowed, no stdio MCP server: `svc server`'s defaults.
  locked = await startTestServer({ egressAllow: '' });
  await locked.call('POST', '/api/default/agents', { body: { agentId: 'support', name: 'S' } });
});

describe('POST /api/:org/agents/:id/config/check', () => {
  it('answers the refusals the PATCH would, every one listed, and writes nothing', async () => {
    const before = (await locked.call('GET', '/api/default/agents/support/config')).body;
    const body = {
      'SOUL.md': 'changed',
      egressConfig: { mode: 'proxy', proxyUrl: 'http://10.0.0.5:3128' },
      mcpServers: { files: { command: 'npx' }, internal: { url: 'http://localhost:9000/mcp' } },
    };
    const checked = await locked.call('POST', CHECK('support'), { body });
    const patched = await locked.call('PATCH', '/api/default/agents/support/config', { body });
    expect(checked.status).toBe(422);
    expect(checked.body.code).toBe('setting_refused');
    // The same refusal as the write's, word for word.
    expect(checked.body).toEqual(patched.body);
    expect(checked.body.errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/egressConfig/proxyUrl',
      '/body/mcpServers/files/command',
      '/body/mcpServers/internal/url',
    ]);
    expect((await locked.call('GET', '/api/default/agents/support/config')).body).toEqual(before);
  });

  it('accepts what the write would take, for an agent not created yet, and creates nothing', async () => {
    const res = await locked.call('POST', CHECK('not-yet'), {
      body: { mcpServers: { gh: { url: 'https://mcp.example.com' } }, 'SOUL.md': 'kind' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ agentId: 'not-yet', result: 'accepted' });
    expect((await locked.call('GET', '/api/default/agents/not-yet')).status).toBe(404);
  });

  it('refuses a reserved reference as the write does, and wants the write scope', async () => {
    const reserved = await locked.call('POST', CHECK('support'), {
      body: { mcpServers: { gh: { url: 'https://mcp.example.com', headers: { A: '$SVC_ADMIN_PASSWORD' } } } },
    });
    expect(reserved.status).toBe(422);
    expect(reserved.body.code).toBe('secret_reserved');
    const read = await createToken(locked, 'default', ['read']);
    const denied = await locked.call('POST', CHECK('support'), {
      body: { 'SOUL.md': 'x' },
      token: read.secret,
    });
    expect(denied.status).toBe(403);
  });

  it('is in the OpenAPI document, described and tagged', async () => {
    const doc = (await locked.call('GET', '/openapi.json', { token: null })).body;
    const operation = doc.paths['/api/{org}/agents/{id}/config/check'].post;
    expect(operation).toMatchObject({ operationId: 'checkAgentSettings', tags: ['agents'] });
    expect(operation.summary).toMatch(/writing nothing/);
    expect(operation.description).toMatch(/setting_refused/);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '403', '422']));
  });

  it('refuses a body no server takes with 400, as the write does', async () => {
    const res = await locked.call('POST', CHECK('support'), {
      body: { mcpServers: { x: { url: 'file:///etc' } } },
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('validation_failed');
  });
});
