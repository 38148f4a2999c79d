// Seeds the org with AGENTS agents, each with three settings and two team_chat platforms.
//
// Agent 0 goes through the API (POST agent, PATCH config, PUT two platforms), so it is exactly what
// a client would have made. The other agents are written with two bulk SQL statements, which takes
// well under a second where 4,000 API calls would take several; `checkSameShape` then asks svc for
// agent 0 and agent 1 and fails the run if they differ in anything but their ids and timestamps,
// so the SQL can never silently drift from what the API stores.
import { isDeepStrictEqual } from 'node:util';
import { findSecretReferences } from '@svc/core';

export const agentId = (i) => `agent-${String(i).padStart(4, '0')}`;

/** ~500 characters of Markdown, naming the agent so that every row differs a little. */
function soul(id) {
  const intro = `# ${id}\n\nYou are ${id}, a benchmark agent. `;
  const filler = 'Answer briefly, cite the runbook section you used, and hand over to a human when unsure. ';
  return (intro + filler.repeat(6)).slice(0, 500);
}

/** What one agent is made of, in the shape of the API's request bodies. */
export function agentData(i) {
  const id = agentId(i);
  return {
    agent: { agentId: id, name: `Bench ${id}`, description: 'Seeded by bench/api' },
    config: {
      networkConfig: {
        allowedDomains: ['api.github.com', '*.example.com'],
        deniedDomains: ['ads.example.net'],
      },
      modelSelection: { mode: 'pinned', model: 'openai/gpt-4.1-mini' },
      'SOUL.md': soul(id),
    },
    platforms: ['a', 'b'].map((name) => ({
      stableId: `${id}-team-chat-${name}`,
      body: {
        type: 'team_chat',
        name,
        // Secret references, as real configs have; the svc child sets the variables.
        config: {
          channel: `#${id}-${name}`,
          signing_secret: '$TEAM_CHAT_SIGNING_SECRET',
          bot_token: '$TEAM_CHAT_BOT_TOKEN',
          mentionOnly: true,
        },
      },
    })),
  };
}

/** Agent 0, through the API like any client. `api(method, path, body)` throws on a non-2xx. */
export async function seedThroughApi(api, i) {
  const { agent, config, platforms } = agentData(i);
  await api('POST', '/api/default/agents', agent);
  await api('PATCH', `/api/default/agents/${agent.agentId}/config`, config);
  for (const p of platforms) {
    await api('PUT', `/api/default/agents/${agent.agentId}/platforms/by-stable-id/${p.stableId}`, p.body);
  }
}

/** Agents `from` .. `to - 1`, in one transaction of two statements. */
export async function seedThroughSql(pool, orgId, from, to) {
  const agents = [];
  const platforms = [];
  for (let i = from; i < to; i++) {
    const data = agentData(i);
    agents.push(data);
    for (const p of data.platforms) platforms.push({ agentId: data.agent.agentId, ...p });
  }
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO agents (org_id, agent_id, name, description, config)
       SELECT $1, a.agent_id, a.name, a.description, a.config
         FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[]) AS a(agent_id, name, description, config)`,
      [
        orgId,
        agents.map((a) => a.agent.agentId),
        agents.map((a) => a.agent.name),
        agents.map((a) => a.agent.description),
        agents.map((a) => JSON.stringify(a.config)),
      ],
    );
    await client.query(
      `INSERT INTO platforms (stable_id, org_id, agent_id, type, name, config, secret_refs)
       SELECT p.stable_id, $1, p.agent_id, p.type, p.name, p.config, p.secret_refs
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $7::jsonb[])
           AS p(stable_id, agent_id, type, name, config, secret_refs)`,
      [
        orgId,
        platforms.map((p) => p.stableId),
        platforms.map((p) => p.agentId),
        platforms.map((p) => p.body.type),
        platforms.map((p) => p.body.name),
        platforms.map((p) => JSON.stringify(p.body.config)),
        platforms.map((p) => JSON.stringify(findSecretReferences(p.body.config, '/config'))),
      ],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  // Fresh statistics for the planner, and nothing left for autovacuum to start on mid-measurement.
  await pool.query('VACUUM (ANALYZE) agents, platforms');
}

/** Fails unless the SQL-seeded agent 1 looks, through svc, exactly like the API-seeded agent 0. */
export async function checkSameShape(api) {
  const read = async (i) => {
    const { agent } = await api('GET', `/api/default/agents/${agentId(i)}?include=config,platforms`);
    const text = JSON.stringify(agent).replaceAll(agentId(i), 'ID');
    return JSON.parse(text, (key, value) => (key === 'createdAt' || key === 'updatedAt' ? undefined : value));
  };
  const [viaApi, viaSql] = await Promise.all([read(0), read(1)]);
  if (!isDeepStrictEqual(viaApi, viaSql)) {
    throw new Error(
      `SQL-seeded agents differ from API-seeded ones:\n api: ${JSON.stringify(viaApi)}\n sql: ${JSON.stringify(viaSql)}`,
    );
  }
}
