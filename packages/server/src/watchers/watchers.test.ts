import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { type FakeSlack, startFakeSlack } from '../../test/fakes/slack.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { windowContent } from './content.js';
import { watcherPass } from './scheduler.js';
import { WATCHER_MAX_FAILURES } from './windows.js';

/**
 * Watchers on a clock the test moves: windows by arrival, one per tick however many schedulers
 * race, a catch-up window after downtime, the turn through the fake model, structured results,
 * retries, the pause after five failures, and the post to a chat. (processes.test.ts runs real
 * `svc worker` processes on a real minute.)
 */

const SETTLE_MS = 1000;
const MINUTE = 60_000;
let server: TestServer;
let model: FakeChatCompletions;
let slack: FakeSlack;
let other: pg.Pool;
let now = new Date();
const clock = () => now;
const pass = (pool: pg.Pool = server.pool) => watcherPass(pool, server.env, { clock, settleMs: SETTLE_MS });

/** Each test's own hour, well in the past and apart from the others', so windows never share events. */
let hour = 0;
function base(): Date {
  hour += 3;
  return new Date(Math.floor(Date.now() / MINUTE) * MINUTE - hour * 3_600_000);
}
const at = (start: Date, ms: number) => new Date(start.getTime() + ms);

async function until<T>(what: string, check: () => T | Promise<T>, ms = 15_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A watcher made at `created` (so its first window starts at the minute before). */
async function watcher(slug: string, created: Date, extra: Record<string, unknown> = {}) {
  const res = await server.call('POST', '/api/default/operations/manage_entity_schema', {
    body: {
      action: 'upsert',
      kind: 'watcher',
      item: {
        slug,
        name: `Watcher ${slug}`,
        schedule: '* * * * *',
        prompt: 'Summarise.',
        agent: 'digest',
        ...extra,
      },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await server.pool.query(`UPDATE watchers SET created_at = $2 WHERE slug = $1`, [slug, created]);
}

/** An event as a sync would have written it, arriving (created_at) at `arrived`. */
async function event(arrived: Date, title: string, occurred = arrived): Promise<string> {
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO events (org_id, origin_id, origin_type, payload_text, title, occurred_at, created_at)
     SELECT id, $1, 'fixture', $2, $3, $4, $5 FROM orgs WHERE slug = 'default' RETURNING id`,
    [randomBytes(6).toString('hex'), `${title}: the body`, title, occurred, arrived],
  );
  return (rows[0] as { id: string }).id;
}

async function windows(slug: string) {
  const { rows } = await server.pool.query(
    `SELECT id, window_start, window_end, status, attempts, retry_at, error, event_ids::text[] AS event_ids,
            extracted_data, summary_event_id, reply, message_id
       FROM watcher_windows WHERE watcher_slug = $1 ORDER BY window_start`,
    [slug],
  );
  return rows;
}

const windowDone = (slug: string, start: Date) =>
  until(`the window of ${slug} at ${start.toISOString()} to end`, async () =>
    (await windows(slug)).find(
      (w) => w.window_start.getTime() === start.getTime() && ['completed', 'failed'].includes(w.status),
    ),
  );

const lastUserText = (request: FakeChatCompletions['requests'][number]) =>
  String(request.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '');

beforeAll(async () => {
  model = await startFakeChatCompletions();
  slack = await startFakeSlack({ botToken: 'xoxb-watchers' });
  server = await startTestServer({
    secretEnv: {
      SVC_PROVIDER_OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-watchers',
      SVC_TEAM_CHAT_API_URL: slack.url,
    },
    workers: { concurrency: 4, watchers: false, deliveries: { backoffMs: 100, pollMs: 50 } },
  });
  other = new pg.Pool({ connectionString: server.databaseUrl, max: 3 });
  const agent = await server.call('POST', '/api/default/agents', {
    body: {
      agentId: 'digest',
      name: 'Digest',
      providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    },
  });
  expect(agent.status).toBe(201);
  for (const [name, value] of Object.entries({
    SLACK_SIGNING_SECRET: 'sign',
    SLACK_BOT_TOKEN: 'xoxb-watchers',
  })) {
    expect((await server.call('PUT', `/api/default/secrets/${name}`, { body: { value } })).status).toBe(201);
  }
  const platform = await server.call(
    'PUT',
    '/api/default/agents/digest/platforms/by-stable-id/digest-team-chat',
    {
      body: {
        type: 'team_chat',
        config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN' },
      },
    },
  );
  expect(platform.status, JSON.stringify(platform.body)).toBe(201);
});

afterAll(async () => {
  await other?.end();
});

describe('watcher windows', () => {
  it('makes one window, one run and one turn per tick, however many schedulers race for it', async () => {
    const t0 = base();
    model.answer = () => ({ text: 'Nothing happened.' });
    await watcher('race', at(t0, 30_000));
    now = at(t0, MINUTE + SETTLE_MS - 1);
    await Promise.all([pass(), pass(other)]);
    expect(await windows('race')).toHaveLength(0); // the tick has not settled yet
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await Promise.all(Array.from({ length: 10 }, (_, i) => pass(i % 2 ? other : server.pool)));
    const made = await windows('race');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ window_start: t0, window_end: at(t0, MINUTE) });
    await windowDone('race', t0);
    const runs = await server.pool.query(
      `SELECT status FROM runs WHERE run_type = 'watcher' AND watcher_slug = 'race'`,
    );
    expect(runs.rows).toEqual([{ status: 'completed' }]);
    const messages = await server.pool.query(
      `SELECT count(*)::int AS n FROM messages m JOIN conversations c ON c.id = m.conversation_id
        WHERE c.platform = 'internal.watcher' AND c.channel = 'race'`,
    );
    expect(messages.rows[0].n).toBe(1);
    // The next window starts where this one ended, at the next tick.
    now = at(t0, 2 * MINUTE + SETTLE_MS + 1);
    await Promise.all([pass(), pass(other)]);
    const next = await windows('race');
    expect(next.map((w) => [w.window_start, w.window_end])).toEqual([
      [t0, at(t0, MINUTE)],
      [at(t0, MINUTE), at(t0, 2 * MINUTE)],
    ]);
    await windowDone('race', at(t0, MINUTE));
  });

  it('covers the events that arrived in it, whatever date they carry', async () => {
    const t0 = base();
    const prompts: string[] = [];
    model.answer = (request) => {
      prompts.push(lastUserText(request));
      return { text: 'Summary.' };
    };
    await watcher('arrival', at(t0, 30_000));
    const onTime = await event(at(t0, 10_000), 'Deploy finished');
    // Another org's event of the same moment is never in this org's window.
    expect((await server.call('POST', '/api/orgs', { body: { slug: 'neighbour' } })).status).toBe(201);
    await server.pool.query(
      `INSERT INTO events (org_id, origin_id, origin_type, payload_text, title, occurred_at, created_at)
       SELECT id, 'n-1', 'fixture', 'secret plans', 'Neighbour secret', $1, $1 FROM orgs WHERE slug = 'neighbour'`,
      [at(t0, 11_000)],
    );
    // Arrived in the second window, though it says it happened a week before.
    const late = await event(at(t0, MINUTE + 5_000), 'Backfilled incident', at(t0, -7 * 86_400_000));
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    const first = await windowDone('arrival', t0);
    expect(first.event_ids).toEqual([onTime]);
    expect(prompts[0]).toContain('Deploy finished');
    expect(prompts[0]).not.toContain('Backfilled incident');
    expect(prompts[0]).not.toContain('Neighbour secret');
    expect(prompts[0]).toContain('1 event arrived in this window');
    now = at(t0, 2 * MINUTE + SETTLE_MS + 1);
    await pass();
    const second = await windowDone('arrival', at(t0, MINUTE));
    expect(second.event_ids).toEqual([late]);
    expect(prompts[1]).toContain('Backfilled incident');
  });

  it('runs one catch-up window for the ticks missed while nothing ran', async () => {
    const t0 = base();
    model.answer = () => ({ text: 'Caught up.' });
    await watcher('catchup', at(t0, 30_000));
    const ids = [
      await event(at(t0, 5_000), 'one'),
      await event(at(t0, 65_000), 'two'),
      await event(at(t0, 125_000), 'three'),
    ];
    // Three ticks passed with no process running.
    now = at(t0, 3 * MINUTE + 20_000);
    await Promise.all([pass(), pass(other)]);
    const made = await windows('catchup');
    expect(made).toHaveLength(1);
    expect(made[0]).toMatchObject({ window_start: t0, window_end: at(t0, 3 * MINUTE) });
    const done = await windowDone('catchup', t0);
    expect(done.status).toBe('completed');
    expect(done.event_ids).toEqual(ids);
    await pass();
    expect(await windows('catchup')).toHaveLength(1);
  });

  it('honours min_cooldown_seconds: ticks closer than it make one longer window', async () => {
    const t0 = base();
    model.answer = () => ({ text: 'ok' });
    await watcher('cooldown', at(t0, 30_000), { min_cooldown_seconds: 150 });
    now = at(t0, 2 * MINUTE + SETTLE_MS + 1);
    await pass();
    expect(await windows('cooldown')).toHaveLength(0);
    now = at(t0, 3 * MINUTE + SETTLE_MS + 1);
    await pass();
    expect((await windows('cooldown')).map((w) => w.window_end)).toEqual([at(t0, 3 * MINUTE)]);
    await windowDone('cooldown', t0);
  });

  it('reads only its sources when it names some', async () => {
    const t0 = base();
    const prompts: string[] = [];
    model.answer = (request) => {
      prompts.push(lastUserText(request));
      return { text: 'ok' };
    };
    await watcher('sourced', at(t0, 30_000), { sources: [{ entity_type: 'customer' }] });
    const linked = await event(at(t0, 5_000), 'Acme renewed');
    await event(at(t0, 6_000), 'Unrelated chatter');
    await server.pool.query(
      `WITH e AS (INSERT INTO entities (org_id, entity_type, title) SELECT id, 'customer', 'Acme' FROM orgs WHERE slug = 'default' RETURNING id)
       INSERT INTO event_entities (event_id, entity_id) SELECT $1, id FROM e`,
      [linked],
    );
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    const done = await windowDone('sourced', t0);
    expect(done.event_ids).toEqual([linked]);
    expect(prompts[0]).toContain('Acme renewed');
    expect(prompts[0]).toContain('customer #');
    expect(prompts[0]).not.toContain('Unrelated chatter');
    // The summary is linked to what the window's events are about.
    const links = await server.pool.query(
      `SELECT n.title FROM event_entities ee JOIN entities n ON n.id = ee.entity_id WHERE ee.event_id = $1`,
      [done.summary_event_id],
    );
    expect(links.rows).toEqual([{ title: 'Acme' }]);
  });
});

describe("a window's message", () => {
  it('tells the model how many events did not fit and how to read them, rather than cutting silently', async () => {
    const t0 = base();
    const { rows } = await server.pool.query<{ id: string }>(
      `INSERT INTO events (org_id, origin_id, origin_type, payload_text, title, occurred_at, created_at)
       SELECT o.id, 'big-' || n, 'fixture', repeat('word ', 400), 'Big event ' || n, $1::timestamptz, $1::timestamptz + n * interval '1 second'
         FROM orgs o, generate_series(1, 30) AS n WHERE o.slug = 'default' RETURNING org_id AS id`,
      [t0],
    );
    const client = await server.pool.connect();
    try {
      const content = await windowContent(
        client,
        {
          orgId: (rows[0] as { id: string }).id,
          watcherSlug: 'sizes',
          start: t0,
          end: at(t0, MINUTE),
          sources: null,
        },
        { prompt: 'Summarise.', extractionSchema: null, label: 'test' },
        5_000,
      );
      expect(content.eventCount).toBe(30);
      expect(content.truncated).toBe(true);
      expect(content.eventIds.length).toBeGreaterThan(0);
      expect(content.eventIds.length).toBeLessThan(30);
      expect(content.text).toContain(
        `30 events arrived in this window; the ${content.eventIds.length} that arrived first are below`,
      );
      expect(content.text).toContain('memory_search');
      expect(Math.ceil(content.text.length / 4)).toBeLessThanOrEqual(5_000);
    } finally {
      client.release();
    }
  });
});

describe('a window turn', () => {
  const schema = {
    type: 'object',
    properties: { headline: { type: 'string' }, incidents: { type: 'integer', minimum: 0 } },
    required: ['headline', 'incidents'],
    additionalProperties: false,
  };

  it('asks for structured output, stores the result and a searchable summary event, and posts it once', async () => {
    const t0 = base();
    const asked: unknown[] = [];
    model.answer = (request) => {
      asked.push((request.body as { response_format?: unknown }).response_format);
      return { text: JSON.stringify({ headline: 'Two deploys, one incident', incidents: 1 }) };
    };
    await watcher('structured', at(t0, 30_000), {
      extraction_schema: schema,
      notification_channel: { platform: 'digest-team-chat', channel: 'C0DIGEST' },
      tags: ['ops'],
    });
    await event(at(t0, 1_000), 'Deploy 1');
    await event(at(t0, 2_000), 'Incident: queue stalled');
    const posts = slack.posts.length;
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    const done = await windowDone('structured', t0);
    expect(done).toMatchObject({
      status: 'completed',
      extracted_data: { headline: 'Two deploys, one incident', incidents: 1 },
    });
    expect(asked[0]).toBeDefined(); // the provider was asked for JSON, not only told in the prompt
    const summary = await server.pool.query(
      `SELECT semantic_type, origin_type, title, payload_text, payload_data, connection_id FROM events WHERE id = $1`,
      [done.summary_event_id],
    );
    expect(summary.rows[0]).toMatchObject({
      semantic_type: 'summary',
      origin_type: 'watcher',
      connection_id: null,
      payload_data: { headline: 'Two deploys, one incident', incidents: 1 },
    });
    expect(summary.rows[0].title).toContain('Watcher structured');
    // Listed with the other events, as no connector's.
    const listed0 = await server.call('GET', '/api/default/events?kind=watcher');
    expect(listed0.status, JSON.stringify(listed0.body)).toBe(200);
    expect(
      listed0.body.events.find((e: { id: number }) => String(e.id) === done.summary_event_id),
    ).toMatchObject({
      connectionId: null,
      feedId: null,
      semantic_type: 'summary',
    });
    const post = await until('the post to Slack', () => slack.posts[posts]);
    expect(post.channel).toBe('C0DIGEST');
    expect(post.text).toContain('Two deploys, one incident');
    // Settling again (the scheduler's pass) posts nothing more.
    await pass();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(slack.posts.length).toBe(posts + 1);
    // The API shows the window's result.
    const listed = await server.call('GET', '/api/default/watchers/structured/windows');
    expect(listed.status).toBe(200);
    expect(listed.body.windows[0]).toMatchObject({ status: 'completed', eventCount: 2 });
    const one = await server.call(
      'GET',
      `/api/default/watchers/structured/windows/${listed.body.windows[0].id}`,
    );
    expect(one.body.window.extractedData).toEqual({ headline: 'Two deploys, one incident', incidents: 1 });
    // Its ids are the integers every other record's are: the summary is the event above, its
    // events are events, its run is a run, each read by its id as answered.
    const window = one.body.window;
    expect(window).toMatchObject({
      id: Number(done.id),
      summaryEventId: Number(done.summary_event_id),
      eventIds: done.event_ids.map(Number),
    });
    expect(window.eventIds).toHaveLength(2);
    expect(typeof window.runId).toBe('number');
    expect(typeof window.messageId).toBe('string'); // messages and conversations are uuids
    const ran = await server.call('GET', `/api/default/runs/${window.runId}`);
    expect(ran.body.run).toMatchObject({ id: window.runId, runType: 'watcher', status: 'completed' });
    const summarized = await server.call('GET', `/api/default/events/${window.summaryEventId}`);
    expect(summarized.body.event).toMatchObject({ id: window.summaryEventId, semantic_type: 'summary' });
    // A window id that names no window is a 404, as a run's or an event's is.
    for (const id of ['abc', '0', '1.0', '99999999999999999999']) {
      const missing = await server.call('GET', `/api/default/watchers/structured/windows/${id}`);
      expect(missing.status, id).toBe(404);
      expect(missing.headers.get('content-type'), id).toContain('application/problem+json');
      expect(missing.body.code, id).toBe('not_found');
    }
  });

  it('fails a window whose result does not match, retries it with backoff, pauses after five, and runs again when resumed', async () => {
    const t0 = base();
    model.answer = () => ({ text: JSON.stringify({ headline: 42 }) });
    await watcher('strict', at(t0, 30_000), { extraction_schema: schema });
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    let failed = await windowDone('strict', t0);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('headline');
    expect(failed.error).toContain('incidents: is required');
    // Retried after a minute, then two, four...: never skipped, never at once.
    const delays: number[] = [];
    for (let attempt = 1; attempt < WATCHER_MAX_FAILURES; attempt++) {
      const [row] = await windows('strict');
      delays.push(Math.round((row.retry_at.getTime() - Date.now()) / MINUTE));
      now = at(row.retry_at, 1000);
      await pass();
      failed = await until(`attempt ${attempt + 1}`, async () => {
        const [w] = await windows('strict');
        return w.attempts === attempt + 1 && w.status === 'failed' ? w : null;
      });
    }
    expect(delays).toEqual([1, 2, 4, 8]);
    let listed = await server.call('GET', '/api/default/watchers/strict');
    expect(listed.body.watcher).toMatchObject({
      status: 'paused',
      consecutiveFailures: WATCHER_MAX_FAILURES,
    });
    expect(listed.body.watcher.pausedReason).toContain('5 failed windows in a row');
    expect(listed.body.watcher.lastError).toContain('extraction_schema');
    // Paused: no more attempts, and no new windows, however much time passes.
    now = at(now, 3_600_000);
    await pass();
    expect((await windows('strict')).map((w) => w.attempts)).toEqual([WATCHER_MAX_FAILURES]);
    const refused = await server.call('POST', '/api/default/watchers/strict/run');
    expect(refused).toMatchObject({ status: 409, body: { code: 'watcher_paused' } });
    // Resumed (with a model that now answers well), the same window runs and completes.
    model.answer = () => ({ text: '```json\n{"headline": "quiet", "incidents": 0}\n```' });
    const resumed = await server.call('PATCH', '/api/default/watchers/strict', {
      body: { status: 'active' },
    });
    expect(resumed.body.watcher).toMatchObject({ status: 'active', consecutiveFailures: 0 });
    await pass();
    const done = await until('the window to complete', async () => {
      const [w] = await windows('strict');
      return w.status === 'completed' ? w : null;
    });
    expect(done).toMatchObject({
      window_start: t0,
      attempts: WATCHER_MAX_FAILURES + 1,
      extracted_data: { headline: 'quiet', incidents: 0 },
    });
    listed = await server.call('GET', '/api/default/watchers/strict');
    expect(listed.body.watcher).toMatchObject({ consecutiveFailures: 0, lastError: null });
  });

  it('retries a window whose model failed, and a run now starts a window from the mark', async () => {
    const t0 = base();
    model.answer = () => ({ status: 500 });
    await watcher('flaky', at(t0, 30_000));
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    const failed = await windowDone('flaky', t0);
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed.error).toContain('model_unavailable');
    model.answer = () => ({ text: 'fine now' });
    // A person asks for a run: the failed window is retried at once, not after its backoff.
    const run = await server.call('POST', '/api/default/watchers/flaky/run');
    expect(run).toMatchObject({ status: 200, body: { created: false } });
    await pass();
    const done = await until('the retried window', async () => {
      const [w] = await windows('flaky');
      return w.status === 'completed' ? w : null;
    });
    expect(done.reply).toBe('fine now');
    // Now nothing is open: a run makes a window from the mark to now.
    const fresh = await server.call('POST', '/api/default/watchers/flaky/run');
    expect(fresh.status).toBe(202);
    expect(fresh.body.window.windowStart).toBe(at(t0, MINUTE).toISOString());
    const [, made] = await windows('flaky');
    expect(fresh.body.window).toMatchObject({ id: Number(made.id), status: 'pending', runId: null });
    expect(run.body.window.id).toBe(Number(done.id));
  });

  it('lists watchers with their last window and next run, and refuses another org', async () => {
    const listed = await server.call('GET', '/api/default/watchers');
    expect(listed.status).toBe(200);
    const race = listed.body.watchers.find((w: { slug: string }) => w.slug === 'race');
    expect(race).toMatchObject({ agent: 'digest', status: 'active', timezone: 'UTC' });
    // Its latest window, as stored (later tests' clocks may have given it more, whose turns meet
    // whatever their model answers then).
    const latest = (await windows('race')).at(-1);
    expect(race.lastWindow.id).toBe(Number(latest.id));
    expect(race.lastWindow.windowStart).toBe(latest.window_start.toISOString());
    expect(typeof race.nextRunAt).toBe('string');
    // A window's attempts are runs of type `watcher`, listed with the others.
    const runs = await server.call('GET', '/api/default/runs?runType=watcher');
    expect(runs.status, JSON.stringify(runs.body)).toBe(200);
    expect(runs.body.runs.length).toBeGreaterThan(0);
    expect(runs.body.runs[0]).toMatchObject({ runType: 'watcher', connectionId: null });
    const org = await server.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } });
    expect(org.status).toBe(201);
    expect((await server.call('GET', '/api/elsewhere/watchers')).body.watchers).toEqual([]);
    expect((await server.call('GET', '/api/elsewhere/watchers/race/windows')).status).toBe(404);
    expect((await server.call('POST', '/api/elsewhere/watchers/race/run')).status).toBe(404);
  });
});

// Last: it moves the clock to the present (the other tests keep theirs hours back).
describe('a window and a transaction still open', () => {
  it('waits for a transaction that began before its end: the row it commits late is in the window, not lost', async () => {
    model.answer = () => ({ text: 'ok' });
    // Its clock is the real one: every other watcher, whose windows were hours back, would get a
    // catch-up window now. They are paused, so that this test is about its own watcher alone.
    await server.pool.query(`UPDATE watchers SET status = 'paused'`);
    const t0 = new Date(Math.floor(Date.now() / MINUTE) * MINUTE);
    await watcher('inflight', at(t0, -30_000));
    // A sync's transaction begins now and writes its event; its created_at is the transaction's start.
    const writer = await server.pool.connect();
    try {
      await writer.query('BEGIN');
      const { rows } = await writer.query<{ id: string; created_at: Date }>(
        `INSERT INTO events (org_id, origin_id, origin_type, payload_text, title, occurred_at)
         SELECT id, 'inflight-1', 'fixture', 'written slowly', 'Slow commit', now() FROM orgs WHERE slug = 'default'
         RETURNING id, created_at`,
      );
      const slow = rows[0] as { id: string; created_at: Date };
      // Two minutes later by the scheduler's clock, the transaction still open.
      now = at(t0, 2 * MINUTE + SETTLE_MS + 1);
      await pass();
      await pass();
      for (const w of await windows('inflight')) {
        expect(w.window_end.getTime()).toBeLessThanOrEqual(slow.created_at.getTime());
      }
      await writer.query('COMMIT');
      await until('a window to take the late row', async () => {
        await pass();
        return (await windows('inflight')).find((w) => w.event_ids?.includes(slow.id));
      });
    } finally {
      await writer.query('ROLLBACK').catch(() => {});
      writer.release();
    }
  });
});
