// One server of the webhooks benchmark, in a child process of its own (BENCH_MODE):
//   svc-http     svc as `svc server --no-workers`: webhooks are verified and queued, nothing more
//   svc-workers  svc with 4 turn workers, a model on 127.0.0.1 that answers 50 tokens at once, and
//                replies sent to the fake Slack at SVC_TEAM_CHAT_API_URL (the parent's)
//   bare         Fastify with one route that verifies Slack's signature on the raw body, with svc's
//                own verifySlack, and answers 200
// Both svc modes make the agent `bench`, its secrets and its Slack platform (BENCH_STABLE_ID).
import Fastify from 'fastify';
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

async function startBare() {
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
    return { ok: true, queued: 1, duplicates: 0, ignored: 0 };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${app.server.address().port}`;
}

const url = mode === 'bare' ? await startBare() : await startSvc(mode === 'svc-workers');
process.send({ port: new URL(url).port });
process.on('SIGTERM', () => process.exit(0));
