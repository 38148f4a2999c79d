import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await server.call('POST', '/api/default/agents', { body: { agentId: 'base', name: 'Base' } });
});

/** Every row's updated_at (or the settings' own timestamp) across the tables a mutation may touch. */
async function timestamps(): Promise<string> {
  const { rows } = await server.pool.query(`
    SELECT json_build_object(
      'orgs', (SELECT json_agg(updated_at ORDER BY slug) FROM orgs),
      'agents', (SELECT json_agg(json_build_array(updated_at, config_updated_at) ORDER BY agent_id) FROM agents),
      'platforms', (SELECT json_agg(updated_at ORDER BY stable_id) FROM platforms),
      'entity_types', (SELECT json_agg(updated_at ORDER BY slug) FROM entity_types),
      'relationship_types', (SELECT json_agg(updated_at ORDER BY slug) FROM relationship_types),
      'watchers', (SELECT json_agg(updated_at ORDER BY slug) FROM watchers)
    )::text AS all`);
  return rows[0].all;
}

const schema = '/api/default/operations/manage_entity_schema';
const mutations: [string, string, string, unknown][] = [
  ['create an org', 'POST', '/api/orgs', { slug: 'acme', name: 'Acme' }],
  ['upsert an agent', 'POST', '/api/default/agents', { agentId: 'a1', name: 'A', description: 'd' }],
  [
    'patch settings',
    'PATCH',
    '/api/default/agents/base/config',
    { 'SOUL.md': 'x', guardrails: { redactPii: true, blockedTerms: ['b', 'a'] } },
  ],
  ['clear a setting', 'PATCH', '/api/default/agents/base/config', { 'USER.md': null }],
  [
    'upsert a platform',
    'PUT',
    '/api/default/agents/base/platforms/by-stable-id/base-messenger',
    {
      type: 'messenger',
      config: { bot_token: '$TG', secret_token: '$TG_SECRET', nested: { b: 1, a: [1, 2] } },
    },
  ],
  [
    'upsert an entity type',
    'POST',
    schema,
    { action: 'upsert', kind: 'entity_type', item: { slug: 'person', name: 'Person' } },
  ],
  [
    'upsert a relationship type',
    'POST',
    schema,
    { action: 'upsert', kind: 'relationship_type', item: { slug: 'knows', name: 'Knows', description: 'd' } },
  ],
  [
    'upsert a watcher',
    'POST',
    schema,
    {
      action: 'upsert',
      kind: 'watcher',
      item: {
        slug: 'daily',
        name: 'Daily',
        schedule: '0 9 * * *',
        prompt: 'p',
        agent: 'base',
        timezone: 'UTC',
      },
    },
  ],
  ['delete an entity type', 'POST', schema, { action: 'delete', kind: 'entity_type', slug: 'never-existed' }],
];

describe('repeating a mutation with the same body', () => {
  it.each(mutations)('%s: answers unchanged and writes nothing', async (_name, method, path, body) => {
    const first = await server.call(method, path, { body });
    expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
    const before = await timestamps();
    const second = await server.call(method, path, { body });
    expect(second.status).toBe(200);
    expect(second.body.result).toBe('unchanged');
    expect(await timestamps()).toBe(before);
  });

  it('treats key order in a setting as no change', async () => {
    const res = await server.call('PATCH', '/api/default/agents/base/config', {
      body: { guardrails: { blockedTerms: ['b', 'a'], redactPii: true } },
    });
    expect(res.body).toMatchObject({ result: 'unchanged', changed: [] });
  });
});
