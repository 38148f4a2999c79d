import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { installedSourceFile } from '../../packages/server/dist/connectors/compile.js';
import { openSandbox } from '../../packages/server/dist/connectors/sandbox.js';
import { storeEvents } from '../../packages/server/dist/events/store.js';
import { connectorSource, startConnectorSvc } from '../lib/connectors.js';
import {
  adminDatabaseUrl,
  createDatabase,
  onCleanup,
  printFigure,
  progress,
  QUICK,
  runBench,
  size,
} from '../lib/environment.js';

// --quick, BENCH_QUICK=1: the quick size, 2,000 events a run in batches of 500 and 1,000, with
// short pauses (seconds in all; every step and check, figures that mean nothing).
const TOTAL = size('BENCH_EVENTS', 200_000, 2000);
const BATCHES = (process.env.BENCH_BATCHES || (QUICK ? '500,1000' : '1000,5000')).split(',').map(Number);
/** How long a child started ahead is given to be up, and the machine to settle between syncs. */
const PAUSE_MS = QUICK ? 200 : 2000;
/** Rows per statement of the bare INSERT, and envelopes per transaction of storeEvents. */
const ROWS = 1000;

// The i-th item, for the connector (its source embeds this function's text) and the baselines
// alike, so that every path writes the same rows.
const envelopeOf = (i) => ({
  origin_id: `item-${i}`,
  title: `Item ${i}`,
  author_name: `author-${i % 500}`,
  source_url: `https://example.com/items/${i}`,
  payload_text: `Item ${i} of the benchmark feed: a line of text about the length of a short post or a commit message, long enough to be a real row and no longer.`,
  occurred_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
});

/**
 * A connector whose feed emits TOTAL envelopes through ctx.emitEvents, `batch` at a time, with
 * `ahead` batches in flight: 1 awaits each before making the next, as a connector usually does; 2
 * makes, checks and sends the next while the last is written (they are written in order).
 */
const ingestConnector = ({ key, batch, ahead }) =>
  connectorSource(key, {
    prelude: `const envelopeOf = ${envelopeOf.toString()};`,
    syncBody: `
      const inFlight = [];
      for (let at = 0; at < ${TOTAL}; at += ${batch}) {
        inFlight.push(ctx.emitEvents(Array.from({ length: Math.min(${batch}, ${TOTAL} - at) }, (_, i) => envelopeOf(at + i))));
        if (inFlight.length >= ${ahead}) await inFlight.shift();
      }
      await Promise.all(inFlight);
      return { events: [], checkpoint: null };`,
  });

/** The syncs timed: each batch size awaited batch by batch, and the first with two in flight. */
const SYNCS = [
  ...BATCHES.map((batch) => ({ key: `ingest-${batch}`, batch, ahead: 1 })),
  { key: `ingest-${BATCHES[0]}-ahead`, batch: BATCHES[0], ahead: 2 },
];

const COLUMNS = [
  'org_id',
  'connection_id',
  'feed_id',
  'run_id',
  'origin_id',
  'title',
  'author_name',
  'source_url',
  'payload_text',
  'occurred_at',
];
const rowOf = (target, e) => [
  target.orgId,
  target.connectionId,
  target.feedId,
  target.runId,
  e.origin_id,
  e.title,
  e.author_name,
  e.source_url,
  e.payload_text,
  e.occurred_at,
];

/** Each phase starts on an empty table, and not in the middle of a checkpoint left by the last. */
async function emptyEvents(pool) {
  await pool.query('TRUNCATE events CASCADE');
  // A superuser's command; on a given DATABASE_URL without the right, phases share checkpoints.
  await pool.query('CHECKPOINT').catch(() => {});
}

/** A baseline that wrote fewer rows would be a fast figure for nothing. */
async function expectAllRows(pool, what) {
  const { rows } = await pool.query('SELECT count(*)::int AS n FROM events');
  if (rows[0].n !== TOTAL) throw new Error(`${what} left ${rows[0].n} rows in events, not ${TOTAL}`);
}

const ESCAPES = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const copyText = (value) =>
  value === null ? '\\N' : String(value).replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]);

/** COPY's text format, a thousand rows a chunk, made as they are sent (the connector makes its own too). */
function* copyChunks(target) {
  for (let at = 0; at < TOTAL; at += ROWS) {
    let chunk = '';
    for (let i = at; i < Math.min(TOTAL, at + ROWS); i++) {
      chunk += `${rowOf(target, envelopeOf(i)).map(copyText).join('\t')}\n`;
    }
    yield chunk;
  }
}

async function copyRows(pool, target) {
  await emptyEvents(pool);
  const client = await pool.connect();
  try {
    const started = performance.now();
    await pipeline(
      Readable.from(copyChunks(target)),
      client.query(copyFrom(`COPY events (${COLUMNS.join(', ')}) FROM STDIN`)),
    );
    return performance.now() - started;
  } finally {
    client.release();
  }
}

/**
 * Multi-row INSERTs, ROWS a statement, each its own transaction as each of the worker's batches
 * is; with the worker's ON CONFLICT (a batch sent twice writes the same rows) unless `plain`.
 */
async function insertRows(pool, target, { plain = false } = {}) {
  await emptyEvents(pool);
  const values = Array.from(
    { length: ROWS },
    (_, r) => `(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`,
  ).join(', ');
  const updates = COLUMNS.slice(3)
    .map((column) => `${column} = excluded.${column}`)
    .join(', ');
  const sql = `INSERT INTO events (${COLUMNS.join(', ')}) VALUES ${values}
    ${plain ? '' : `ON CONFLICT (connection_id, feed_id, origin_id) DO UPDATE SET ${updates}, updated_at = now()`}`;
  const started = performance.now();
  for (let at = 0; at < TOTAL; at += ROWS) {
    const params = [];
    for (let i = at; i < at + ROWS; i++) params.push(...rowOf(target, envelopeOf(i)));
    await pool.query(sql, params);
  }
  return performance.now() - started;
}

/** The worker's own statement (storeEvents), ROWS envelopes a transaction: no child, no IPC, no fencing. */
async function storeRows(pool, target) {
  await emptyEvents(pool);
  const client = await pool.connect();
  try {
    const started = performance.now();
    for (let at = 0; at < TOTAL; at += ROWS) {
      const envelopes = Array.from({ length: ROWS }, (_, i) => envelopeOf(at + i));
      await client.query('BEGIN');
      await storeEvents(client, target, envelopes);
      await client.query('COMMIT');
    }
    return performance.now() - started;
  } finally {
    client.release();
  }
}

/**
 * The worker's child without the worker: the same connector in a sandbox started ahead, each batch
 * acknowledged as it arrives, nothing written. What making, checking and sending envelopes costs.
 */
async function childAlone(sync) {
  const compiled = await installedSourceFile(ingestConnector(sync));
  const sandbox = await openSandbox({ timeoutMs: 600_000, memoryMb: 512, unsandboxedSource: true });
  onCleanup(async () => sandbox.stop());
  // The compiled connector in the child's own slot, as the run worker gives it (runs/execute.ts).
  const module = { file: await sandbox.load(dirname(compiled)), name: sync.key };
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  let received = 0;
  const started = performance.now();
  await new Promise((resolve, reject) => {
    sandbox.onMessage((message) => {
      if (message.type === 'events') {
        received += message.events.length;
        sandbox.send({ type: 'ack', seq: message.seq });
      } else if (message.type === 'synced') resolve();
      else if (message.type === 'failed') reject(new Error(message.error));
    });
    sandbox.ended.then((why) => reject(why ?? new Error('the child stopped')));
    sandbox.send({
      task: 'sync',
      module,
      ctx: {
        feedKey: 'items',
        config: {},
        checkpoint: null,
        credentials: null,
        entityIds: [],
        sessionState: null,
      },
      eventKinds: null,
      secrets: [],
    });
  });
  const ms = performance.now() - started;
  sandbox.stop();
  if (received !== TOTAL) throw new Error(`the child sent ${received} envelopes, not ${TOTAL}`);
  return ms;
}

/** A sync asked for through the API, to its end: the run's claim to completion, and wall time. */
async function throughWorker(svc, pool, feedId) {
  await emptyEvents(pool);
  const started = performance.now();
  const { run } = await svc.call('POST', `/api/default/feeds/${feedId}/sync`);
  for (;;) {
    const { rows } = await pool.query('SELECT status FROM runs WHERE id = $1', [run.id]);
    if (!['pending', 'running'].includes(rows[0].status)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const wallMs = performance.now() - started;
  const { rows } = await pool.query(
    `SELECT r.status, r.error_message, r.items_collected::int AS collected,
            extract(epoch FROM r.completed_at - r.claimed_at)::float8 * 1000 AS ms,
            (SELECT count(*)::int FROM events WHERE feed_id = r.feed_id) AS stored
       FROM runs r WHERE r.id = $1`,
    [run.id],
  );
  const ended = rows[0];
  if (ended.status !== 'completed' || ended.collected !== TOTAL || ended.stored !== TOTAL) {
    throw new Error(`the sync of feed ${feedId} ended ${JSON.stringify(ended)}, not ${TOTAL} events stored`);
  }
  return { runMs: ended.ms, wallMs, runId: run.id };
}

const nameOf = (sync) => `${sync.batch}${sync.ahead > 1 ? ` x${sync.ahead}` : ''} a batch`;
const perSecond = (ms) => Math.round(TOTAL / (ms / 1000));

async function main() {
  const admin = await adminDatabaseUrl();
  const databaseUrl = await createDatabase(admin.url, { prefix: 'svc_bench_ingest' });
  const svc = await startConnectorSvc(databaseUrl);
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  onCleanup(() => pool.end());

  progress(`installing ${SYNCS.map((sync) => sync.key).join(', ')} and connecting them`);
  const feeds = new Map();
  for (const sync of SYNCS) {
    await svc.install(ingestConnector(sync));
    feeds.set(sync, (await svc.connect(sync.key)).feedId);
  }
  const baselineFeed = await svc.connect(SYNCS[0].key);
  // Synced when the benchmark asks, not when the scheduler finds them due.
  await pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day'`);
  const { rows: orgs } = await pool.query("SELECT id FROM orgs WHERE slug = 'default'");
  const target = { orgId: orgs[0].id, ...baselineFeed, runId: null };

  // Once untimed: PostgreSQL makes its WAL segments on the first writes, and later ones reuse them.
  progress(`COPY of ${TOTAL} rows, untimed, then timed`);
  await copyRows(pool, target);
  const copyFirstMs = await copyRows(pool, target);
  await expectAllRows(pool, 'COPY');
  // Twice each, taking turns, the faster kept: a shared machine's load moves within a minute.
  const middle = [
    ['a plain multi-row INSERT', () => insertRows(pool, target, { plain: true })],
    ['INSERT ... ON CONFLICT', () => insertRows(pool, target)],
    ['storeEvents', () => storeRows(pool, target)],
  ];
  const fastest = new Map();
  for (let round = 1; round <= 2; round++) {
    for (const [what, phase] of middle) {
      progress(`${what}, ${ROWS} rows a statement, round ${round}`);
      const ms = await phase();
      await expectAllRows(pool, what);
      fastest.set(what, Math.min(ms, fastest.get(what) ?? ms));
    }
  }
  const [plainMs, insertMs, storeMs] = middle.map(([what]) => fastest.get(what));

  const aloneMs = new Map();
  for (const sync of SYNCS) {
    progress(`the connector's child alone, ${sync.key}, acknowledged at once`);
    aloneMs.set(sync, await childAlone(sync));
  }

  await svc.startRunWorkers({ pollMs: 1000, leaseMs: 30_000 });
  // The child started ahead is up, as it is on a worker that has been running.
  await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  const synced = new Map();
  for (const sync of SYNCS) {
    progress(`a sync of ${sync.key} (${TOTAL} envelopes) through the run worker`);
    synced.set(sync, await throughWorker(svc, pool, feeds.get(sync)));
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }

  // Once more, last: the machine's load may have moved meanwhile; the faster COPY is the baseline.
  progress(`COPY of ${TOTAL} rows again`);
  const copyLastMs = await copyRows(pool, target);
  await expectAllRows(pool, 'COPY');
  const copyMs = Math.min(copyFirstMs, copyLastMs);

  const copyRate = perSecond(copyMs);
  console.log('');
  for (const [sync, { runMs }] of synced) {
    printFigure(`events/s through the worker, ${nameOf(sync)}`, perSecond(runMs), `${copyRate} COPY`);
    printFigure('  ratio worker/COPY', (perSecond(runMs) / copyRate).toFixed(2));
  }
  printFigure(`events/s, plain INSERT, ${ROWS}/statement`, perSecond(plainMs), `${copyRate} COPY`);
  printFigure(`events/s, INSERT ON CONFLICT, ${ROWS}/statement`, perSecond(insertMs), `${copyRate} COPY`);
  printFigure(`events/s, storeEvents, ${ROWS}/transaction`, perSecond(storeMs), `${copyRate} COPY`);

  const seconds = (ms) => (ms / 1000).toFixed(2);
  console.log(`\nwhere the time goes, s for ${TOTAL} events`);
  printFigure('COPY, first and last', `${seconds(copyFirstMs)}, ${seconds(copyLastMs)}`);
  printFigure(`plain multi-row INSERT, ${ROWS}/statement`, seconds(plainMs));
  printFigure('  the same with ON CONFLICT DO UPDATE', seconds(insertMs));
  printFigure(`storeEvents (the worker's), ${ROWS}/transaction`, seconds(storeMs));
  for (const [sync, { runMs, wallMs }] of synced) {
    printFigure(`worker, ${nameOf(sync)}: claimed to completed`, seconds(runMs));
    printFigure('  wall, POST sync to seen completed', seconds(wallMs));
    printFigure('  its child alone (no database)', seconds(aloneMs.get(sync)));
  }
  console.log(
    `\n${TOTAL} events a run, each phase on an emptied events table; ${admin.source}; node ${process.version}; ` +
      'the worker and its connector child, svc (HTTP only) and the baselines in this process tree',
  );
}

await runBench(main);
