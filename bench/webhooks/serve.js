// One server of the webhooks benchmark, in a child process of its own (BENCH_MODE):
//   svc-http     svc as `svc server --no-workers`: webhooks are verified and queued, nothing more
//   svc-workers  svc with 4 turn workers, a model on 127.0.0.1 that answers 50 tokens at once, and
//                replies sent to the fake Slack at SVC_TEAM_CHAT_API_URL (the parent's)
//   durable      the baseline: Fastify with one route doing the durable work of a webhook and no more:
//                Slack's signature checked on the raw body with svc's own verifySlack (the signing
//                secret in memory), then one INSERT of the message, queued, deduplicated by the
//                platform's id of it; answers 200
// Both svc modes make the agent `bench`, its secrets and its Slack platform (BENCH_STABLE_ID).
import Fastify from 'fastify';
import pg from 'pg';
import { startServer } from '../../packages/server/dist/index.js';
import { verifySlack } from '../../packages/server/dist/webhooks/slack.js';
import { startZeroDelayModel } from '../lib/model.js';

const mode = process.env.BENCH_MODE;
const PASSWORD = process.env.SVC_ADMIN_PASSWORD;
const SIGNING_SECRET = process.env.BENCH_SIGNING_SECRET;
const BOT_TOKEN = process.env.BENCH_BOT_TOKEN;
const STABLE_ID = process.env.BENCH_STABLE_ID;

async function call(url, method, path, body) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${PASSWORD}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${await res.text()}`);
}

/** As an operator sets it up: the agent, its secrets stored in svc, and its Slack platform. */
async function setUp(url) {
  await call(url, 'POST', '/api/default/agents', {
    agentId: 'bench',
    name: 'Bench',
    providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
  });
  const secrets = {
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_BOT_TOKEN: BOT_TOKEN,
    OPENAI_API_KEY: 'sk-bench',
  };
  for (const [name, value] of Object.entries(secrets)) {
    await call(url, 'PUT', `/api/default/secrets/${name}`, { value });
  }
  await call(url, 'PUT', `/api/default/agents/bench/platforms/by-stable-id/${STABLE_ID}`, {
    type: 'team_chat',
    config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN' },
  });
}

async function startSvc(workers) {
  const env = { ...process.env, SVC_DATA_DIR: `/tmp/svc-bench-webhooks-${mode}-${process.pid}` };
  if (workers) env.SVC_PROVIDER_OPENAI_BASE_URL = await startZeroDelayModel();
  const running = await startServer({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'warn',
    env,
    workers: workers ? 4 : false,
    announce: () => {},
  });
  await setUp(running.url);
  return running.url;
}

/**
 * The least a server can do and still answer 200 for a webhook whose message it will neither lose
 * nor take twice: verify the signature (the secret kept in memory, not read per call), read the
 * message from the JSON, then one INSERT of it, queued, into its channel's conversation (made on
 * first use, its id kept in memory), with the platform's id of the message as a unique key so that
 * a retry inserts nothing. One statement, one row, per webhook: no receipt, no conversation per
 * thread, no event, no numbering, no guardrails, no secrets read per call.
 */
async function startDurable() {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  const { rows: platforms } = await pool.query(
    'SELECT org_id, agent_id FROM platforms WHERE stable_id = $1',
    [STABLE_ID],
  );
  const { org_id: orgId, agent_id: agentId } = platforms[0];
  const conversations = new Map();
  const conversationOf = async (channel) => {
    if (!conversations.has(channel)) {
      const { rows } = await pool.query(
        `INSERT INTO conversations (org_id, agent_id, platform, channel) VALUES ($1, $2, 'team_chat', $3)
         ON CONFLICT (org_id, agent_id, platform, channel, thread, owner) DO UPDATE SET platform = excluded.platform
         RETURNING id`,
        [orgId, agentId, channel],
      );
      conversations.set(channel, rows[0].id);
    }
    return conversations.get(channel);
  };
  const app = Fastify({ logger: false });
  // The raw bytes, as svc reads them: the signature covers them exactly.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/api/v1/webhooks/:stableId', async (request, reply) => {
    try {
      verifySlack(request.headers, request.body, SIGNING_SECRET);
    } catch (error) {
      return reply.code(401).send({ code: error.code });
    }
    const event = JSON.parse(request.body.toString('utf8')).event ?? {};
    if (typeof event.channel !== 'string' || typeof event.ts !== 'string' || typeof event.text !== 'string') {
      return { ok: true, queued: 0, duplicates: 0, ignored: 1 };
    }
    const { rowCount } = await pool.query(
      `INSERT INTO messages (conversation_id, org_id, agent_id, content, idempotency_key, platform_stable_id, reply_to)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING`,
      [
        await conversationOf(event.channel),
        orgId,
        agentId,
        event.text,
        `${event.channel}:${event.ts}`,
        request.params.stableId,
        JSON.stringify({ kind: 'team_chat', to: { channel: event.channel, thread_ts: event.ts } }),
      ],
    );
    return { ok: true, queued: rowCount, duplicates: 1 - rowCount, ignored: 0 };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${app.server.address().port}`;
}

const url = mode === 'durable' ? await startDurable() : await startSvc(mode === 'svc-workers');
process.send({ port: new URL(url).port });
// The parent asks for this process's CPU time around each accept run.
process.on('message', (question) => {
  if (question.cpu) process.send({ cpu: process.cpuUsage() });
});
process.on('SIGTERM', () => process.exit(0));
