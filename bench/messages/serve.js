// One server of the messages benchmark, in a child process of its own (BENCH_MODE):
//   svc-http     svc as `svc server --no-workers`
//   svc-workers  svc with 4 turn workers, and a model on 127.0.0.1 that answers 50 tokens at once
//   durable      the baseline: Fastify with one route doing the durable work of an accept and no
//                more (the bearer token checked against api_tokens, cached as svc caches it; then
//                one INSERT of the queued message into its conversation), and one that never answers
// Answers the parent's questions: `{measure}` (memory after GC), `{turns, conversations}`.
import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';
import { startServer } from '../../packages/server/dist/index.js';
import { startZeroDelayModel } from '../lib/model.js';

const mode = process.env.BENCH_MODE;
const databaseUrl = process.env.DATABASE_URL;
const PASSWORD = process.env.SVC_ADMIN_PASSWORD;

async function ensureAgent(url) {
  await fetch(`${url}/api/default/agents`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PASSWORD}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      agentId: 'bench',
      name: 'Bench',
      providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    }),
  });
}

async function startSvc(workers) {
  const env = { ...process.env, SVC_DATA_DIR: `/tmp/svc-bench-messages-${mode}-${process.pid}` };
  if (workers) {
    Object.assign(env, {
      SVC_PROVIDER_OPENAI_BASE_URL: await startZeroDelayModel(),
      OPENAI_API_KEY: 'sk-bench',
      SVC_SECRETS_FROM_ENV: 'OPENAI_API_KEY',
    });
  }
  const running = await startServer({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'warn',
    env,
    workers: workers ? 4 : false,
    announce: () => {},
  });
  await ensureAgent(running.url);
  return running.url;
}

/**
 * The least a server can do and still answer 202 for a message it will not lose: check the bearer
 * token (by its SHA-256 in api_tokens, kept in memory once read, as svc keeps it), then one INSERT
 * of the message, queued, in its conversation (conversations are made on first use and their ids
 * kept in memory). One statement, one row, per accepted message. No events, no numbering, no
 * guardrails, no budget, no idempotency: that is the gap svc is measured across.
 */
async function startDurable() {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  const tokens = new Map();
  const conversations = new Map();
  const tokenOf = async (authorization) => {
    const value = /^Bearer +(\S+)$/i.exec(authorization ?? '')?.[1];
    if (!value) return null;
    const hash = createHash('sha256').update(value).digest();
    const key = hash.toString('hex');
    if (!tokens.has(key)) {
      const { rows } = await pool.query(
        `SELECT org_id, scopes FROM api_tokens
          WHERE token_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
        [hash],
      );
      tokens.set(key, rows[0] ?? null);
    }
    return tokens.get(key);
  };
  const conversationOf = async (orgId, agentId, channel) => {
    const key = `${orgId}\0${agentId}\0${channel}`;
    if (!conversations.has(key)) {
      const { rows } = await pool.query(
        `INSERT INTO conversations (org_id, agent_id, platform, channel) VALUES ($1, $2, 'api', $3)
         ON CONFLICT (org_id, agent_id, platform, channel, thread, owner) DO UPDATE SET platform = excluded.platform
         RETURNING id`,
        [orgId, agentId, channel],
      );
      conversations.set(key, rows[0].id);
    }
    return conversations.get(key);
  };
  const app = Fastify({ logger: false });
  app.post('/api/v1/agents/:agentId/messages', async (request, reply) => {
    const token = await tokenOf(request.headers.authorization);
    if (!token) return reply.code(401).send({ code: 'unauthorized' });
    if (!token.scopes.includes('messages') && !token.scopes.includes('admin')) {
      return reply.code(403).send({ code: 'forbidden' });
    }
    const { content, channel } = request.body ?? {};
    if (typeof content !== 'string' || typeof channel !== 'string') return reply.code(400).send({});
    const conversationId = await conversationOf(token.org_id, request.params.agentId, channel);
    const { rows } = await pool.query(
      `INSERT INTO messages (conversation_id, org_id, agent_id, content) VALUES ($1, $2, $3, $4)
       RETURNING id, conversation_id, status`,
      [conversationId, token.org_id, request.params.agentId, content],
    );
    return reply
      .code(202)
      .send({ id: rows[0].id, conversationId: rows[0].conversation_id, status: rows[0].status });
  });
  // Held open and never answered: the memory of a plain waiting request.
  app.get('/hold', (_request, reply) => reply.hijack());
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${app.server.address().port}`;
}

async function turns({ turns: count, conversations }) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  const { rows: orgs } = await pool.query("SELECT id FROM orgs WHERE slug = 'default'");
  const started = performance.now();
  await pool.query(
    `WITH c AS (
       INSERT INTO conversations (org_id, agent_id, platform, channel)
       SELECT $1, 'bench', 'api', 'turns-' || g FROM generate_series(1, $2) g RETURNING id
     )
     INSERT INTO messages (conversation_id, org_id, agent_id, content)
     SELECT c.id, $1, 'bench', 'count to fifty' FROM c, generate_series(1, $3)`,
    [orgs[0].id, conversations, count / conversations],
  );
  await pool.query("SELECT pg_notify('svc_turn_work', '')");
  for (;;) {
    const { rows } = await pool.query(
      "SELECT count(*) AS n FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.channel LIKE 'turns-%' AND m.status = 'completed'",
    );
    if (Number(rows[0].n) >= count) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await pool.end();
  return { total: count, perSecond: count / seconds };
}

const url = mode === 'durable' ? await startDurable() : await startSvc(mode === 'svc-workers');
process.send({ port: new URL(url).port });
process.on('message', async (question) => {
  if (question.measure) {
    for (let i = 0; i < 3; i++) globalThis.gc?.();
    const { rss, heapUsed, external } = process.memoryUsage();
    process.send({ rss, js: heapUsed + external });
  } else if (question.turns) {
    process.send(await turns(question));
  } else if (question.cpu) {
    process.send({ cpu: process.cpuUsage() });
  }
});
process.on('SIGTERM', () => process.exit(0));
