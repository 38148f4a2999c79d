import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import autocannon from 'autocannon';
import pg from 'pg';
import {
  adminDatabaseUrl,
  createDatabase,
  onCleanup,
  percentile,
  printFigure,
  printRatio,
  progress,
  runBench,
  startChild,
} from '../lib/environment.js';

const SERVE = new URL('./serve.js', import.meta.url);

const DURATION = Number(process.env.BENCH_DURATION || 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const STREAMS = Number(process.env.BENCH_STREAMS || 1000);
const PASSWORD = 'bench-admin-password-0123456789';

/**
 * Messages spread over `conversations` conversations (one: every request contends for one
 * conversation's row, which numbers its events in order).
 */
async function accept(url, path, conversations) {
  let n = 0;
  const result = await autocannon({
    url: `${url}${path}`,
    method: 'POST',
    headers: { authorization: `Bearer ${PASSWORD}`, 'content-type': 'application/json' },
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
  if (failed > 0) throw new Error(`${path}: ${failed} failed requests of ${result.requests.total}`);
  return { reqPerSec: result.requests.average, p99: result.latency.p99 };
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
  const common = {
    DATABASE_URL: databaseUrl,
    SVC_ADMIN_PASSWORD: PASSWORD,
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SVC_MESSAGES_RATE_LIMIT: 'off',
  };

  // 1. Accepted messages: svc (HTTP only) against a bare route doing one INSERT into the same table.
  const http = await startChild(SERVE, 'svc-http', common, ['--expose-gc']);
  const bare = await startChild(SERVE, 'bare', common, ['--expose-gc']);
  progress(`accepting messages for ${DURATION} s at ${CONNECTIONS} connections: svc, then bare`);
  const path = '/api/v1/agents/bench/messages';
  await accept(http.url, path, 1000); // warm-up, same length
  const svcAccept = await accept(http.url, path, 1000);
  const svcOneConversation = await accept(http.url, path, 1);
  await accept(bare.url, path, 1000);
  const bareAccept = await accept(bare.url, path, 1000);

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
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const sent = await post(svc.url, '/api/v1/agents/bench/messages', 'latency');
    await stream.completed(sent.id);
    latencies.push(performance.now() - started);
  }

  // 3. Turns per second: 400 messages over 100 conversations, answered by 4 workers.
  const turns = await svc.ask({ turns: 400, conversations: 100 });

  // 4. Memory per open SSE stream, next to a plain request held open by a bare route.
  progress(`holding ${STREAMS} streams open`);
  // Opened after the last event: the figure is an idle stream's, not a backlog in flight.
  const streamMemory = await memoryPer(svc, `${first.links.events}?after=1000000`);
  const bareMemory = await memoryPer(bare, '/hold');

  console.log('');
  printFigure(
    'accepted messages/s (svc vs bare INSERT)',
    svcAccept.reqPerSec.toFixed(0),
    bareAccept.reqPerSec.toFixed(0),
  );
  printFigure('accepted p99 ms', svcAccept.p99, bareAccept.p99);
  printFigure(
    'accepted messages/s, all in one conversation',
    svcOneConversation.reqPerSec.toFixed(0),
    bareAccept.reqPerSec.toFixed(0),
  );
  printFigure('accepted p99 ms, all in one conversation', svcOneConversation.p99, bareAccept.p99);
  printRatio(svcAccept.reqPerSec, bareAccept.reqPerSec);
  printFigure('POST -> reply.completed on SSE p50 ms', percentile(latencies, 50).toFixed(1), '(model: 0 ms)');
  printFigure('POST -> reply.completed on SSE p99 ms', percentile(latencies, 99).toFixed(1), '(model: 0 ms)');
  printFigure('turns/s, 4 workers, 100 conversations', turns.perSecond.toFixed(1), `${turns.total} turns`);
  // RSS moves in pages and with the allocator; the JS heap (with buffers) is the steadier figure.
  const kb = (bytes) => (bytes / 1024).toFixed(1);
  printFigure('KB of JS heap per open SSE stream', kb(streamMemory.jsEach), kb(bareMemory.jsEach));
  printFigure('KB of RSS per open SSE stream', kb(streamMemory.rssEach), kb(bareMemory.rssEach));
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION} s; ${admin.source}; node ${process.version}; ` +
      'servers in child processes, autocannon and the SSE clients in this one',
  );
}

await runBench(main);
