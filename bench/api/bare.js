// The baseline: what the two scenarios cost with nothing but Fastify, pg and the SQL itself.
// No auth, no validation, no zod, no hooks, no metrics: each route runs ONE statement, the very one
// svc runs (imported from the built server, so the two can never drift apart), and answers the rows
// with JSON.stringify. The gap between this and svc is what svc's own layers cost.
import Fastify from 'fastify';
import { listAgents, UPSERT_AGENT } from '../../packages/server/dist/agents/queries.js';

/**
 * Same paths as svc, so autocannon sends byte-identical requests to both; `:org` is ignored
 * because there is no auth to resolve it (the org id is looked up once, before the run).
 */
export function buildBareApp(pool, orgId) {
  const app = Fastify({ logger: false });

  app.post('/api/:org/agents', async (request, reply) => {
    const { agentId, name, description } = request.body;
    const { rows } = await pool.query(UPSERT_AGENT, [orgId, agentId, name, description ?? '']);
    return reply.type('application/json').send(JSON.stringify(rows));
  });

  app.get('/api/:org/agents', async (_request, reply) => {
    const rows = await listAgents(pool, orgId, { config: true, platforms: true });
    return reply.type('application/json').send(JSON.stringify(rows));
  });

  return app;
}
