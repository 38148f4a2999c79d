import { randomBytes } from 'node:crypto';
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

import { slackHeaders, slackMessageEvent, startFakeSlack } from './slack.js';

// --quick (or BENCH_QUICK=1): a few seconds, for CI; every figure is taken, none is worth quoting.
const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const DURATION = Number(process.env.BENCH_DURATION || (QUICK ? 1 : 10));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || (QUICK ? 10 : 50));
const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS || (QUICK ? 10 : 200));
/** Accept runs of each server, taken in turn (svc, durable, svc, durable...) after one warm-up each. */
const ROUNDS = Number(process.env.BENCH_ROUNDS || (QUICK ? 1 : 2));
// BENCH_CPU_PROF=1: V8 CPU profiles of the two accepting servers, in bench/webhooks/profiles/.
const profileArgs = (name) =>
  process.env.BENCH_CPU_PROF === '1'
    ? [
        '--cpu-prof',
        `--cpu-prof-dir=${fileURLToPath(new URL('./profiles/', import.meta.url))}`,
        `--cpu-prof-name=${name}.cpuprofile`,
      ]
    : [];
const PASSWORD = 'bench-admin-password-0123456789';
const SIGNING_SECRET = randomBytes(16).toString('hex');
const BOT_TOKEN = `xoxb-bench-${randomBytes(12).toString('hex')}`;
const STABLE_ID = 'bench-team-chat';
const PATH = `/api/v1/webhooks/${STABLE_ID}`;

// Slack's message ts: seconds, then a sequence. Unique in the run, so every webhook is a new message
// (svc drops a message it has seen, by channel and ts).
const firstSecond = Math.floor(Date.now() / 1000);
let sequence = 0;
const nextTs = () => `${firstSecond}.${String(++sequence).padStart(6, '0')}`;

/** A person's message as Slack delivers it: the JSON and its headers, signed now. */
function signedWebhook(channel, ts) {
  const raw = JSON.stringify(slackMessageEvent({ channel, ts, text: 'count to fifty' }));
  return { raw, headers: slackHeaders(SIGNING_SECRET, raw) };
}

/** One webhook; fails unless answered 200 with the message queued. */
async function send(url, channel, ts) {
  const { raw, headers } = signedWebhook(channel, ts);
  const res = await fetch(`${url}${PATH}`, { method: 'POST', headers, body: raw });
  const body = await res.json();
  if (res.status !== 200 || body.queued !== 1) {
    throw new Error(`${url}${PATH} answered ${res.status} ${JSON.stringify(body)}, not 200 with queued: 1`);
  }
}

/** Webhooks answered 200 over every accept run, both servers'. */
let answeredTotal = 0;
/** The run's database, whose PostgreSQL backends' CPU is counted. */
let database;

/** Webhooks, each a new message (top level: its own thread) in one of 100 channels, signed as sent. */
async function accept(url) {
  const result = await autocannon({
    url: `${url}${PATH}`,
    method: 'POST',
    requests: [
      {
        setupRequest: (req) => {
          const { raw, headers } = signedWebhook(`C0BENCH${sequence % 100}`, nextTs());
          return { ...req, headers, body: raw };
        },
      },
    ],
    connections: CONNECTIONS,
    duration: DURATION,
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${url}: ${failed} failed webhooks of ${result.requests.total}`);
  if (result['2xx'] === 0) throw new Error(`${url}: no webhook was answered`);
  answeredTotal += result['2xx'];
  return { reqPerSec: result.requests.average, p99: result.latency.p99, answered: result['2xx'] };
}

/**
 * svc and the durable baseline in turn, `ROUNDS` times each: the mean rate and p99, and the CPU ms
 * each accepted request cost the server's process and PostgreSQL (a warm-up each, none in a quick run).
 */
function acceptInTurns(servers) {
  return measureInTurns(servers, {
    database,
    rounds: ROUNDS,
    warmUp: !QUICK,
    run: (server) => accept(server.url),
  });
}

/** Messages stored from the platform: at least as many as were answered 200 (none dropped). */
async function checkStored(databaseUrl, answered) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM messages WHERE platform_stable_id = $1', [
    STABLE_ID,
  ]);
  // The accepted messages are not the next scenario's work.
  await pool.query("UPDATE messages SET status = 'failed' WHERE status = 'queued'");
  await pool.end();
  if (rows[0].n < answered)
    throw new Error(`${answered} webhooks were answered 200 but ${rows[0].n} messages are stored`);
}

/** The same message again, as a platform retries it: answered 200 as a duplicate, nothing queued. */
async function sendDuplicate(url, channel, ts) {
  const { raw, headers } = signedWebhook(channel, ts);
  const res = await fetch(`${url}${PATH}`, { method: 'POST', headers, body: raw });
  const body = await res.json();
  if (res.status !== 200 || body.queued !== 0 || body.duplicates !== 1) {
    throw new Error(`a retry answered ${res.status} ${JSON.stringify(body)}, not 200 with duplicates: 1`);
  }
}

/** From sending the webhook to its answer, and to the reply reaching the fake Slack in its thread. */
async function roundTrip(url, slack, channel) {
  const ts = nextTs();
  const sentAt = performance.now();
  await send(url, channel, ts);
  const answeredAt = performance.now();
  const post = await slack.posted(channel, ts);
  return { answered: answeredAt - sentAt, replied: post.at - sentAt, text: post.text };
}

async function main() {
  const admin = await adminDatabaseUrl();
  const databaseUrl = await createDatabase(admin.url, { prefix: 'svc_bench_webhooks' });
  database = new URL(databaseUrl).pathname.slice(1);
  const common = {
    DATABASE_URL: databaseUrl,
    SVC_ADMIN_PASSWORD: PASSWORD,
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    BENCH_SIGNING_SECRET: SIGNING_SECRET,
    BENCH_BOT_TOKEN: BOT_TOKEN,
    BENCH_STABLE_ID: STABLE_ID,
  };

  // 1. Accepted webhooks: svc (HTTP only) against the durable baseline (serve.js), in turn.
  const http = await startChild(SERVE, 'svc-http', common, profileArgs('svc'));
  const durable = await startChild(SERVE, 'durable', common, profileArgs('durable'));
  await send(http.url, 'C0SAMPLE', nextTs());
  await send(durable.url, 'C0SAMPLE', nextTs());
  // A retry (the same message again) is answered and stored once.
  const retried = nextTs();
  await send(http.url, 'C0RETRY', retried);
  await sendDuplicate(http.url, 'C0RETRY', retried);
  progress(
    `accepting webhooks for ${DURATION} s at ${CONNECTIONS} connections, svc and durable in turn, ${ROUNDS} round(s)`,
  );
  const [svcAccept, durableAccept] = await acceptInTurns([http, durable]);
  await checkStored(databaseUrl, 3 + answeredTotal);

  // 2. Webhook to reply at Slack, in turn, each a new message in a channel of its own.
  const slack = await startFakeSlack(BOT_TOKEN);
  onCleanup(slack.close);
  const svc = await startChild(SERVE, 'svc-workers', { ...common, SVC_TEAM_CHAT_API_URL: slack.url });
  progress(`timing ${WEBHOOKS} webhooks to their reply at the fake Slack, one after another`);
  const first = await roundTrip(svc.url, slack, 'C0WARM');
  // The model's answer, not an apology for a failed turn: the path timed is the one that works.
  if (!first.text.trim().endsWith('w49')) throw new Error(`the reply is not the model's: ${first.text}`);
  const trips = [];
  for (let i = 0; i < WEBHOOKS; i++) trips.push(await roundTrip(svc.url, slack, `C0LAT${i}`));
  const replied = trips.map((trip) => trip.replied);
  const answered = trips.map((trip) => trip.answered);

  console.log('');
  printAcceptFigures('webhook', svcAccept, durableAccept);
  printFigure('webhook -> reply at Slack p50 ms', percentile(replied, 50).toFixed(1), '(model: 0 ms)');
  printFigure('webhook -> reply at Slack p99 ms', percentile(replied, 99).toFixed(1), '(model: 0 ms)');
  printFigure('webhook answered (of the above) p50 ms', percentile(answered, 50).toFixed(1));
  printFigure('webhook answered (of the above) p99 ms', percentile(answered, 99).toFixed(1));
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION} s a run, ${ROUNDS} run(s) each in turn ` +
      `(svc ${svcAccept.rates} / durable ${durableAccept.rates}); ${WEBHOOKS} webhooks timed; ${admin.source}; ` +
      `node ${process.version}; servers in child processes, autocannon and the fake Slack in this one` +
      (QUICK ? '\nQUICK RUN: the figures are not worth quoting' : ''),
  );
}

await runBench(main);
