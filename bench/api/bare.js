// The baseline: what the two scenarios cost with nothing but Fastify, pg and the SQL itself.
// No auth, no validation, no zod, no hooks, no metrics: each route does the very database work svc
// does (imported from the built server, so the two can never drift apart): the upsert's read-only
// check (and the write only when something changed), and the one statement that builds the list's
// JSON. The gap between this and svc is what svc's own layers cost.
import Fastify from 'fastify';
import { listAgentsJson, UPSERT_AGENT } from '../../packages/server/dist/agents/queries.js';
import { upsert } from '../../packages/server/dist/db/upsert.js';

/**
 * Same paths as svc, so autocannon sends byte-identical requests to both; `:org` is ignored
 * because there is no auth to resolve it (the org id is looked up once, before the run).
 */
/** The variables that the seeded platforms' secret references name (see seed.js). */
export const SECRET_ENV = {
  TEAM_CHAT_SIGNING_SECRET: 'bench-not-a-real-secret',
  TEAM_CHAT_BOT_TOKEN: 'bench-not-a-real-token',
};

export function buildBareApp(pool, orgId) {
  const app = Fastify({ logger: false });
  // The same environment as the svc server's, so both report the same secret problems.
  const context = { webhookBase: '/api/v1/webhooks/', setVars: Object.keys(SECRET_ENV) };

  app.post('/api/:org/agents', async (request, reply) => {
    const { agentId, name, description, providers } = request.body;
    const row = await upsert(pool, UPSERT_AGENT, [
      orgId,
      agentId,
      name,
      description ?? '',
      JSON.stringify(providers ?? []),
    ]);
    return reply.type('application/json').send(JSON.stringify(row));
  });

  app.get('/api/:org/agents', async (_request, reply) => {
    const agents = await listAgentsJson(pool, orgId, { config: true, platforms: true }, context);
    return reply.type('application/json').send(`{"agents":[${agents.join(',')}]}`);
  });

  return app;
}
