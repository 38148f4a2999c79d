import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { measureInTurns, printAcceptFigures } from '../lib/cpu.js';
import {
  adminDatabaseUrl,
  createDatabase,
  onCleanup,
  percentile,
  printFigure,
  progress,
  runBench,
  startChild,
} from '../lib/environment.js';

const SERVE = new URL('./serve.js', import.meta.url);

// --quick (or BENCH_QUICK=1): a few seconds, for CI; every figure is taken, none is worth quoting.
const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const DURATION = Number(process.env.BENCH_DURATION || (QUICK ? 1 : 10));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || (QUICK ? 10 : 50));
const STREAMS = Number(process.env.BENCH_STREAMS || (QUICK ? 20 : 1000));
/** Accept runs of each server, taken in turn (svc, durable, svc, durable...) after one warm-up each. */
const ROUNDS = Number(process.env.BENCH_ROUNDS || (QUICK ? 1 : 2));
const LATENCY_POSTS = QUICK ? 10 : 200;
const TURNS = QUICK ? { turns: 20, conversations: 5 } : { turns: 400, conversations: 100 };
const PASSWORD = 'bench-admin-password-0123456789';
// BENCH_CPU_PROF=1: V8 CPU profiles of the two accepting servers, in bench/messages/profiles/.
const PROFILE = process.env.BENCH_CPU_PROF === '1';
const profileArgs = (name) =>
  PROFILE
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${fileURLToPath(new URL('./profiles/', import.meta.url))}`,
        `--cpu-prof-name=${name}.cpuprofile`,
      ]
    : [];

/**
 * Messages spread over `conversations` conversations (one: every request contends for one
 * conversation's row, which numbers its events in order).
 */
let answeredTotal = 0;
/** The run's database, whose PostgreSQL backends' CPU is counted. */
let database;

async function accept(url, path, conversations, bearer) {
  let n = 0;
  const result = await autocannon({
    url: `${url}${path}`,
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ platform: 'api', content: 'hello', channel: `c${n++ % conversations}` }),
        }),
      },
    ],
    connections: CONNECTIONS,
    duration: DURATION,
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${url}${path}: ${failed} failed requests of ${result.requests.total}`);
  if (result['2xx'] === 0) throw new Error(`${url}${path}: no request was answered`);
  answeredTotal += result['2xx'];
  return { reqPerSec: result.requests.average, p99: result.latency.p99, answered: result['2xx'] };
}

/**
 * svc and the durable baseline in turn, `ROUNDS` times each: the mean rate and p99, and the CPU ms
 * each accepted request cost the server's process and PostgreSQL (a warm-up each, none in a quick run).
 */
function acceptInTurns(servers, path, conversations, bearer) {
  return measureInTurns(servers, {
    database,
    rounds: ROUNDS,
    warmUp: !QUICK,
    run: (server) => accept(server.url, path, conversations, bearer),
  });
}

/** The API token the accept runs send (scope `messages`), made through svc's API as a client's would be. */
async function createToken(url) {
  const res = await fetch(`${url}/api/default/tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PASSWORD}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-messages', scopes: ['messages'] }),
  });
  if (res.status !== 201) throw new Error(`creating the token answered ${res.status}: ${await res.text()}`);
  return (await res.json()).secret;
}

/** Every message answered 202 is stored, queued: none lost (counted over the accept runs). */
async function checkStored(databaseUrl, answered) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const { rows } = await pool.query("SELECT count(*)::int AS n FROM messages WHERE status = 'queued'");
  await pool.end();
  if (rows[0].n < answered)
    throw new Error(`${answered} messages were answered 202 but ${rows[0].n} are stored`);
}

/** Opens the conversation's stream and resolves each `reply.completed` it carries, by message id. */
function openStream(url, path) {
  const waiting = new Map();
  let buffer = '';
  const req = request(`${url}${path}`, { headers: { authorization: `Bearer ${PASSWORD}` } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        if (!block.includes('event: reply.completed')) continue;
        const data = JSON.parse(block.slice(block.indexOf('data: ') + 6));
        waiting.get(data.messageId)?.();
      }
    });
  });
  req.end();
  onCleanup(async () => req.destroy());
  return { completed: (id) => new Promise((resolve) => waiting.set(id, resolve)) };
}

/** The server's RSS growth per request held open, `STREAMS` of them, measured after GC. */
async function memoryPer(server, path) {
  const before = await server.ask({ measure: true });
  const held = [];
  await Promise.all(
    Array.from(
      { length: STREAMS },
      () =>
        new Promise((resolve) => {
          const req = request(`${server.url}${path}`, {
            headers: { authorization: `Bearer ${PASSWORD}` },
            agent: false,
          });
          req.on('response', resolve);
          req.on('error', resolve);
          req.on('socket', (socket) => socket.on('connect', () => setTimeout(resolve, 200)));
          req.end();
          held.push(req);
        }),
    ),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const after = await server.ask({ measure: true });
  for (const req of held) req.destroy();
  return { rssEach: (after.rss - before.rss) / STREAMS, jsEach: (after.js - before.js) / STREAMS };
}

async function post(url, path, channel) {
  const res = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${PASSWORD}`, 'content-type': 'application/json' },
    body: JSON.stringify({ platform: 'api', content: 'count to fifty', channel }),
  });
  return res.json();
}

async function main() {
  const admin = await adminDatabaseUrl();
  const databaseUrl = await createDatabase(admin.url, { prefix: 'svc_bench_messages' });
  database = new URL(databaseUrl).pathname.slice(1);
  const common = {
    DATABASE_URL: databaseUrl,
    SVC_ADMIN_PASSWORD: PASSWORD,
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SVC_MESSAGES_RATE_LIMIT: 'off',
  };

  // 1. Accepted messages: svc (HTTP only) against the durable baseline (serve.js), in turn.
  const http = await startChild(SERVE, 'svc-http', common, ['--expose-gc', ...profileArgs('svc')]);
  const token = await createToken(http.url);
  const durable = await startChild(SERVE, 'durable', common, ['--expose-gc', ...profileArgs('durable')]);
  const path = '/api/v1/agents/bench/messages';
  progress(
    `accepting messages for ${DURATION} s at ${CONNECTIONS} connections, svc and durable in turn, ${ROUNDS} round(s)`,
  );
  const [svcAccept, durableAccept] = await acceptInTurns([http, durable], path, 1000, token);
  progress('all in one conversation');
  const [svcOneConversation, durableOneConversation] = await acceptInTurns([http, durable], path, 1, token);
  await checkStored(databaseUrl, answeredTotal);

  // The accepted messages are not the next scenarios' work.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  await pool.query("UPDATE messages SET status = 'failed' WHERE status = 'queued'");
  await pool.end();

  // 2. POST to reply.completed on SSE, with a model that answers 50 tokens at once.
  const svc = await startChild(SERVE, 'svc-workers', common, ['--expose-gc']);
  const first = await post(svc.url, '/api/v1/agents/bench/messages', 'latency');
  const stream = openStream(svc.url, first.links.events);
  await stream.completed(first.id);
  const latencies = [];
  for (let i = 0; i < LATENCY_POSTS; i++) {
    const started = performance.now();
    const sent = await post(svc.url, '/api/v1/agents/bench/messages', 'latency');
    await stream.completed(sent.id);
    latencies.push(performance.now() - started);
  }

  // 3. Turns per second: 400 messages over 100 conversations, answered by 4 workers.
  const turns = await svc.ask(TURNS);

  // 4. Memory per open SSE stream, next to a plain request held open by a bare route.
  progress(`holding ${STREAMS} streams open`);
  // Opened after the last event: the figure is an idle stream's, not a backlog in flight.
  const streamMemory = await memoryPer(svc, `${first.links.events}?after=1000000`);
  const bareMemory = await memoryPer(durable, '/hold');

  console.log('');
  printAcceptFigures('message', svcAccept, durableAccept);
  printFigure(
    'accepted messages/s, all in one conversation',
    svcOneConversation.reqPerSec.toFixed(0),
    durableOneConversation.reqPerSec.toFixed(0),
  );
  printFigure(
    'accepted p99 ms, all in one conversation',
    svcOneConversation.p99.toFixed(0),
    durableOneConversation.p99.toFixed(0),
  );
  printFigure(
    'ratio svc/durable, all in one conversation',
    (svcOneConversation.reqPerSec / durableOneConversation.reqPerSec).toFixed(2),
  );
  printFigure('POST -> reply.completed on SSE p50 ms', percentile(latencies, 50).toFixed(1), '(model: 0 ms)');
  printFigure('POST -> reply.completed on SSE p99 ms', percentile(latencies, 99).toFixed(1), '(model: 0 ms)');
  printFigure(
    `turns/s, 4 workers, ${TURNS.conversations} conversations`,
    turns.perSecond.toFixed(1),
    `${turns.total} turns`,
  );
  // RSS moves in pages and with the allocator; the JS heap (with buffers) is the steadier figure.
  const kb = (bytes) => (bytes / 1024).toFixed(1);
  printFigure('KB of JS heap per open SSE stream', kb(streamMemory.jsEach), kb(bareMemory.jsEach));
  printFigure('KB of RSS per open SSE stream', kb(streamMemory.rssEach), kb(bareMemory.rssEach));
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION} s a run, ${ROUNDS} run(s) each in turn ` +
      `(svc ${svcAccept.rates} / durable ${durableAccept.rates}); ${admin.source}; node ${process.version}; ` +
      'servers in child processes, autocannon and the SSE clients in this one' +
      (QUICK ? '\nQUICK RUN: the figures are not worth quoting' : ''),
  );
}

await runBench(main);
