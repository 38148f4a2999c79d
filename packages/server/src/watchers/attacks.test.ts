import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { type FakeSlack, startFakeSlack } from '../../test/fakes/slack.js';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { watcherPass } from './scheduler.js';

/**
 * Attacks on the watcher, memory-model and relationship boundaries, by a write-scoped token of org
 * `default` (the attacker) against org `victim` and against the process every org shares. A plain
 * `it` asserts a defence that holds; an `it.fails` documents a hole (its body asserts the safe
 * behaviour, which does not hold today).
 */

const SETTLE_MS = 1000;
const MINUTE = 60_000;
let server: TestServer;
let model: FakeChatCompletions;
let slack: FakeSlack;
let attacker: string; // write token of org default
let reader: string; // read token of org default
let messenger: string; // messages token of org default
let helperChat: string; // the platform of another agent of org default
let victimChat: string; // the platform of org victim's agent
let now = new Date();
const clock = () => now;
const pass = () => watcherPass(server.pool, server.env, { clock, settleMs: SETTLE_MS });

let hour = 0;
function base(): Date {
  hour += 3;
  return new Date(Math.floor(Date.now() / MINUTE) * MINUTE - hour * 3_600_000);
}
const at = (start: Date, ms: number) => new Date(start.getTime() + ms);

async function until<T>(what: string, check: () => T | Promise<T>, ms = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const schemaOp = (org: string, body: Record<string, unknown>, token?: string) =>
  server.call('POST', `/api/${org}/operations/manage_entity_schema`, { body, ...(token ? { token } : {}) });

async function watcher(
  org: string,
  slug: string,
  agent: string,
  created: Date,
  extra: Record<string, unknown> = {},
) {
  const res = await schemaOp(org, {
    action: 'upsert',
    kind: 'watcher',
    item: { slug, name: `Watcher ${slug}`, schedule: '* * * * *', prompt: 'Summarise.', agent, ...extra },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await server.pool.query(
    'UPDATE watchers SET created_at = $3 WHERE slug = $2 AND org_id = (SELECT id FROM orgs WHERE slug = $1)',
    [org, slug, created],
  );
}

async function windows(org: string, slug: string) {
  const { rows } = await server.pool.query(
    `SELECT w.id, w.window_start, w.status, w.attempts, w.error, w.event_ids::text[] AS event_ids,
            w.summary_event_id, w.message_id, m.status AS message_status
       FROM watcher_windows w LEFT JOIN messages m ON m.id = w.message_id
      WHERE w.watcher_slug = $2 AND w.org_id = (SELECT id FROM orgs WHERE slug = $1) ORDER BY w.window_start`,
    [org, slug],
  );
  return rows;
}

const windowDone = (org: string, slug: string, start: Date) =>
  until(`the window of ${slug} at ${start.toISOString()} to end`, async () =>
    (await windows(org, slug)).find(
      (w) => w.window_start.getTime() === start.getTime() && ['completed', 'failed'].includes(w.status),
    ),
  );

async function entity(org: string, type: string, title: string): Promise<number> {
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO entities (org_id, entity_type, title) SELECT id, $2, $3 FROM orgs WHERE slug = $1 RETURNING id`,
    [org, type, title],
  );
  return Number(rows[0]?.id);
}

/**
 * The longest the event loop was blocked while `work` ran: the test server runs in this process,
 * so a timer that fires late measures what every other org's requests waited.
 */
async function blockedWhile<T>(work: () => Promise<T>): Promise<{ result: T; blockedMs: number }> {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    worst = Math.max(worst, t - last - 10);
    last = t;
  }, 10);
  try {
    const result = await work();
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { result, blockedMs: Math.round(worst) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * A victim org's request meant to go 150 ms after the attack was sent: how much later than it
 * should have it was answered (its timer, its request and its answer all wait for the loop).
 */
async function victimLatency(): Promise<number> {
  const meant = performance.now() + 150;
  await new Promise((resolve) => setTimeout(resolve, 150));
  const res = await server.call('GET', '/api/victim/watchers');
  expect(res.status).toBe(200);
  return Math.round(performance.now() - meant);
}

/** The org's agent with a Slack platform; answers the platform's stable id. */
async function setUpOrg(org: string, agent: string): Promise<string> {
  const made = await server.call('POST', `/api/${org}/agents`, {
    body: { agentId: agent, name: agent, providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  for (const [name, value] of Object.entries({
    SLACK_SIGNING_SECRET: 'sign',
    SLACK_BOT_TOKEN: 'xoxb-attacks',
    OPENAI_API_KEY: 'sk-attacks',
  })) {
    const res = await server.call('PUT', `/api/${org}/secrets/${name}`, { body: { value } });
    expect([200, 201]).toContain(res.status);
  }
  const body = {
    type: 'team_chat',
    config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN' },
  };
  // The stable id is derived from the agent and type: the refusal of a wrong one names it.
  const probe = await server.call('PUT', `/api/${org}/agents/${agent}/platforms/by-stable-id/probe`, {
    body,
  });
  const stableId = JSON.parse(probe.body.errors[0].message.replace(/^expected /, '')) as string;
  const res = await server.call('PUT', `/api/${org}/agents/${agent}/platforms/by-stable-id/${stableId}`, {
    body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return stableId;
}

beforeAll(async () => {
  model = await startFakeChatCompletions();
  slack = await startFakeSlack({ botToken: 'xoxb-attacks' });
  server = await startTestServer({
    secretEnv: {
      SVC_PROVIDER_OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-attacks',
      SVC_TEAM_CHAT_API_URL: slack.url,
    },
    workers: { concurrency: 4, watchers: false, deliveries: { backoffMs: 100, pollMs: 50 } },
  });
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'victim' } })).status).toBe(201);
  await setUpOrg('default', 'digest');
  helperChat = await setUpOrg('default', 'helper');
  victimChat = await setUpOrg('victim', 'vdigest');
  attacker = (await createToken(server, 'default', ['write'])).secret;
  reader = (await createToken(server, 'default', ['read'])).secret;
  messenger = (await createToken(server, 'default', ['messages'])).secret;
}, 60_000);

afterAll(() => {
  model.answer = () => ({ text: 'ok' });
});

describe('1. notification_channel naming a platform that is not the watcher agent’s', () => {
  it("posts nothing to another org's platform nor to another agent's platform of the same org", async () => {
    const t0 = base();
    model.answer = () => ({ text: 'SECRET-SUMMARY of org default' });
    await watcher('default', 'to-victim', 'digest', at(t0, 30_000), {
      notification_channel: { platform: victimChat, channel: 'CVICTIM' },
    });
    await watcher('default', 'to-helper', 'digest', at(t0, 30_000), {
      notification_channel: { platform: helperChat, channel: 'CHELPER' },
    });
    const posts = slack.posts.length;
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    const victim = await windowDone('default', 'to-victim', t0);
    const helper = await windowDone('default', 'to-helper', t0);
    expect(victim.status).toBe('completed');
    expect(victim.error).toBe(
      `the result was not posted: "${victimChat}" is not a platform of agent "digest"`,
    );
    expect(helper.error).toBe(
      `the result was not posted: "${helperChat}" is not a platform of agent "digest"`,
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(slack.posts.length).toBe(posts);
    const outbox = await server.pool.query(
      'SELECT count(*)::int AS n FROM outbox WHERE stable_id = ANY($1::text[])',
      [[victimChat, helperChat]],
    );
    expect(outbox.rows[0].n).toBe(0);
  });
});

describe('2. schemas that hang the one process every org shares', () => {
  it("a relationship type's metadata_schema with a backtracking pattern: one POST is answered at once", async () => {
    // Was a hole, closed by running patterns on RE2 (memory/json-schema.ts): relationships/routes.ts:107 (metadataProblems, memory/json-schema.ts:38, validator from :28 with
    // the default RegExp engine). The schema `^(a+)+$` is accepted when stored (memory/routes.ts:140),
    // then one POST with "aaaa…a!" backtracks exponentially inside the request. Measured on this
    // 2-core machine: 26 a's blocked the event loop 2.5–8 s; each extra "a" roughly doubles it, so
    // 35 a's is hours. Every org's requests wait.
    const type = {
      slug: 'redos_rel',
      name: 'ReDoS',
      metadata_schema: { type: 'object', properties: { note: { type: 'string', pattern: '^(a+)+$' } } },
    };
    expect(
      (await schemaOp('default', { action: 'upsert', kind: 'relationship_type', item: type }, attacker))
        .status,
    ).toBe(201);
    const [a, b] = [await entity('default', 'person', 'A'), await entity('default', 'person', 'B')];
    const { result, blockedMs } = await blockedWhile(() =>
      Promise.all([
        server.call('POST', '/api/default/relationships', {
          token: attacker,
          body: {
            type: 'redos_rel',
            sourceEntityId: a,
            targetEntityId: b,
            metadata: { note: `${'a'.repeat(26)}!` },
          },
        }),
        victimLatency(),
      ]),
    );
    console.log(
      `[attack 2a] relationship ReDoS: event loop blocked ${blockedMs} ms, victim org's GET answered ${result[1]} ms after it was due`,
    );
    expect(result[0].status).toBe(422);
    expect(blockedMs).toBeLessThan(1000);
  }, 120_000);

  it('a metadata_schema with uniqueItems over untyped items is refused when stored', async () => {
    // Was a hole: Ajv checks uniqueItems over untyped items with a nested loop of deep-equals
    // (n²/2); 50,000 integers in one POST blocked 2.5-5 s. Such a schema is now refused when
    // stored (the SDK's schemaLimitProblems, also at file:line in svc apply); over scalar items
    // Ajv hashes, in linear time.
    const untyped = {
      slug: 'unique_rel',
      name: 'Unique',
      metadata_schema: { type: 'object', properties: { tags: { type: 'array', uniqueItems: true } } },
    };
    const refused = await schemaOp(
      'default',
      { action: 'upsert', kind: 'relationship_type', item: untyped },
      attacker,
    );
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('invalid_schema');
    expect(refused.body.detail).toContain('uniqueItems: needs items of a scalar type');
    const typed = {
      ...untyped,
      metadata_schema: {
        type: 'object',
        properties: { tags: { type: 'array', uniqueItems: true, items: { type: 'integer' } } },
      },
    };
    expect(
      (await schemaOp('default', { action: 'upsert', kind: 'relationship_type', item: typed }, attacker))
        .status,
    ).toBe(201);
    const [a, b] = [await entity('default', 'person', 'C'), await entity('default', 'person', 'D')];
    const tags = Array.from({ length: 50_000 }, (_, i) => i);
    const { result, blockedMs } = await blockedWhile(() =>
      server.call('POST', '/api/default/relationships', {
        token: attacker,
        body: { type: 'unique_rel', sourceEntityId: a, targetEntityId: b, metadata: { tags } },
      }),
    );
    console.log(
      `[attack 2b] uniqueItems over integers: event loop blocked ${blockedMs} ms (status ${result.status})`,
    );
    expect(result.status).toBe(201);
    expect(blockedMs).toBeLessThan(1000);
  }, 120_000);

  it('storing a large schema is refused before it is compiled', async () => {
    // Was a hole, closed by the SDK's schemaLimitProblems (size, depth, patterns) checked first: memory/routes.ts:139-140 → memory/json-schema.ts:67 (invalidSchemaProblems: validateSchema,
    // then a full Ajv compile of the schema) on the request's thread, with no limit on the schema's
    // size or number of keywords but the 1 MiB body. Compile time grows faster than linear in the
    // number of `pattern` properties: measured standalone 3 000 → 3.9 s, 6 000 (274 KB) → 18 s,
    // 20 000 (938 KB) → 30 s ending in "Maximum call stack size exceeded" (refused, after blocking).
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 3_500; i++) properties[`p${i}`] = { type: 'string', pattern: `^x${i}$` };
    const { result, blockedMs } = await blockedWhile(() =>
      schemaOp(
        'default',
        {
          action: 'upsert',
          kind: 'entity_type',
          item: { slug: 'wide', name: 'Wide', metadata_schema: { type: 'object', properties } },
        },
        attacker,
      ),
    );
    console.log(
      `[attack 2c] large schema stored: event loop blocked ${blockedMs} ms (status ${result.status})`,
    );
    expect(result.status).toBe(422);
    expect(blockedMs).toBeLessThan(1000);
  }, 120_000);

  it("an extraction_schema with a backtracking pattern: the model's reply (steered by events) is checked at once", async () => {
    // Was a hole, closed by RE2 and by checking results with the server's validators: watchers/result.ts:33 (schemaProblems, sdk/src/definition/json-schema.ts:20) runs the
    // reply through the pattern in settleWindow, on the turn worker of the shared process. The
    // reply is what the model makes of the window's events: attacker-controlled data (a connector's
    // events) can ask for the string. Same exponential curve as 2a.
    const t0 = base();
    await watcher('default', 'redos-extract', 'digest', at(t0, 30_000), {
      extraction_schema: {
        type: 'object',
        properties: { headline: { type: 'string', pattern: '^(a+)+$' } },
      },
    });
    model.answer = () => ({ text: JSON.stringify({ headline: `${'a'.repeat(26)}!` }) });
    now = at(t0, MINUTE + SETTLE_MS + 1);
    const { result, blockedMs } = await blockedWhile(async () => {
      await pass();
      return windowDone('default', 'redos-extract', t0);
    });
    console.log(
      `[attack 2d] extraction_schema ReDoS: event loop blocked ${blockedMs} ms (window ${result.status})`,
    );
    expect(result.status).toBe('failed');
    expect(blockedMs).toBeLessThan(1000);
  }, 120_000);

  it('a remote $ref is refused when stored, and nothing is fetched', async () => {
    const fetched: string[] = [];
    const { createServer } = await import('node:http');
    const http = createServer((req, res) => {
      fetched.push(req.url ?? '');
      res.end('{"type":"string"}');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const port = (http.address() as { port: number }).port;
    try {
      for (const schema of [
        { type: 'object', properties: { a: { $ref: `http://127.0.0.1:${port}/s.json` } } },
        { $ref: `http://127.0.0.1:${port}/root.json` },
        { type: 'object', properties: { a: { $ref: '#/$defs/x' } }, $defs: { x: { $ref: '#/$defs/x' } } },
      ]) {
        const res = await schemaOp(
          'default',
          {
            action: 'upsert',
            kind: 'entity_type',
            item: { slug: 'refs', name: 'Refs', metadata_schema: schema },
          },
          attacker,
        );
        // Remote refs do not resolve (Ajv has no loadSchema here); the self-referencing one is
        // refused too. Either way: answered at once, nothing fetched.
        expect(res.status, JSON.stringify(res.body)).toBe(422);
        expect(res.body.code).toBe('invalid_schema');
      }
      expect(fetched).toEqual([]);
    } finally {
      http.close();
    }
  });

  it('an extraction_schema with a $id: every window settles, and no watcher of any org is held up', async () => {
    // Was a hole, closed by checking results with the server's validators (keyed by the schema's
    // text, each removed from Ajv once compiled), and by settling and starting each window apart
    // (a window that cannot be settled fails, alone): sdk/src/definition/json-schema.ts:20-24. schemaProblems caches by the schema *object*
    // (WeakMap) in one process-wide Ajv; settleWindow reads the schema from its row every time, so
    // each settle compiles a new object into that Ajv, which keeps it (an unbounded leak of one
    // compiled validator per window settled). With a `$id`, the second compile throws
    // `schema with key or id "…" already exists`: settleWindow (watchers/windows.ts:297 → result.ts:33) throws,
    // the window stays `running` for ever, and settleEndedWindows (windows.ts:449) throws on it in
    // every watcherPass (scheduler.ts:28) before openDueWindows / startDueWindow run. No watcher of
    // any org gets a new window again, on every replica, until the row is fixed by hand.
    const t0 = base();
    const schema = {
      $id: `https://attacker.example/${randomBytes(4).toString('hex')}`,
      type: 'object',
      properties: { headline: { type: 'string' } },
    };
    await watcher('default', 'poison', 'digest', at(t0, 30_000), { extraction_schema: schema });
    await watcher('victim', 'innocent', 'vdigest', at(t0, 30_000));
    model.answer = () => ({ text: JSON.stringify({ headline: 'fine' }) });
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    expect((await windowDone('default', 'poison', t0)).status).toBe('completed');
    expect((await windowDone('victim', 'innocent', t0)).status).toBe('completed');
    // Second tick: the poison window's turn completes, but its settle throws.
    now = at(t0, 2 * MINUTE + SETTLE_MS + 1);
    await pass();
    await windowDone('victim', 'innocent', at(t0, MINUTE));
    await until('the poison turn to end', async () =>
      (await windows('default', 'poison')).find(
        (w) => w.window_start.getTime() === at(t0, MINUTE).getTime() && w.message_status === 'completed',
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stuck = (await windows('default', 'poison'))[1];
    console.log(`[attack 2e] poison window 2 status after its turn ended: ${stuck?.status}`);
    // Third tick: the victim's watcher should get its third window.
    now = at(t0, 3 * MINUTE + SETTLE_MS + 1);
    const outcome = await pass().then(
      () => 'ok',
      (error: Error) => `threw: ${error.message}`,
    );
    console.log(`[attack 2e] watcherPass at the third tick: ${outcome}`);
    const victimWindows = (await windows('victim', 'innocent')).length;
    // Gone before the tests after this one, which need a scheduler that runs. Deleted through the
    // API while its third window may be starting: a plain DELETE deadlocked with it once.
    const deleted = await schemaOp('default', { action: 'delete', kind: 'watcher', slug: 'poison' });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(outcome).toBe('ok');
    expect(victimWindows).toBe(3);
  }, 120_000);
});

describe('3. relationships across orgs and id type confusion', () => {
  it("refuses another org's entities and ids that are not positive safe integers; lists and deletes only its own", async () => {
    const type = { slug: 'knows', name: 'Knows' };
    for (const org of ['default', 'victim']) {
      expect([200, 201]).toContain(
        (await schemaOp(org, { action: 'upsert', kind: 'relationship_type', item: type })).status,
      );
    }
    const mine = await entity('default', 'person', 'Mine');
    const theirs = await entity('victim', 'person', 'Theirs');
    const theirs2 = await entity('victim', 'person', 'Theirs2');
    const victimRel = await server.call('POST', '/api/victim/relationships', {
      body: { type: 'knows', sourceEntityId: theirs, targetEntityId: theirs2 },
    });
    expect(victimRel.status).toBe(201);
    const rel = (body: Record<string, unknown>) =>
      server.call('POST', '/api/default/relationships', {
        token: attacker,
        body: { type: 'knows', ...body },
      });
    expect((await rel({ sourceEntityId: mine, targetEntityId: theirs })).status).toBe(404);
    expect((await rel({ sourceEntityId: theirs, targetEntityId: theirs2 })).status).toBe(404);
    for (const bad of [
      '1e3',
      String(mine),
      -1,
      0,
      1.5,
      2 ** 63,
      '9223372036854775808',
      null,
      [mine],
      { id: mine },
    ]) {
      const res = await rel({ sourceEntityId: bad, targetEntityId: mine });
      expect(res.status, `${JSON.stringify(bad)} → ${JSON.stringify(res.body)}`).toBe(400);
    }
    // 1e3 as a JSON number is the integer 1000: an id like any other (not an entity of this org).
    const raw = await server.call('POST', '/api/default/relationships', {
      token: attacker,
      raw: `{"type":"knows","sourceEntityId":${theirs}e0,"targetEntityId":${mine}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(raw.status).toBe(404);
    for (const query of [
      `entityId=${theirs}`,
      'entityId=-1',
      'entityId=1e3',
      'entityId=99999999999999999999',
      'cursor=AAAA',
      'type=knows',
    ]) {
      const res = await server.call('GET', `/api/default/relationships?${query}`, { token: attacker });
      expect(res.status, `${query} → ${JSON.stringify(res.body)}`).toBeLessThan(500);
      if (res.status === 200) expect(res.body.relationships).toEqual([]);
    }
    const id = victimRel.body.relationship.id;
    for (const target of [String(id), `${id}.0`, `-${id}`, `0${id}`, '99999999999999999999']) {
      const res = await server.call('DELETE', `/api/default/relationships/${target}`, { token: attacker });
      expect(res.status, target).toBe(404);
    }
    expect((await server.call('GET', '/api/victim/relationships', { token: attacker })).status).toBe(404);
    expect((await server.call('GET', '/api/victim/relationships')).body.relationships).toHaveLength(1);
  });
});

describe('4. windows and sources across orgs', () => {
  it("sources naming the victim's types read nothing of the victim; another watcher's window ids are 404", async () => {
    const t0 = base();
    const prompts: string[] = [];
    model.answer = (request) => {
      prompts.push(JSON.stringify(request.body.messages));
      return { text: 'ok' };
    };
    const { rows } = await server.pool.query<{ id: string }>(
      `INSERT INTO events (org_id, origin_id, origin_type, payload_text, title, occurred_at, created_at)
       SELECT id, 'v-secret', 'fixture', 'VICTIM-SECRET body', 'VICTIM-SECRET', $1, $1 FROM orgs WHERE slug = 'victim' RETURNING id`,
      [at(t0, 5_000)],
    );
    const person = await entity('victim', 'customer', 'Victim customer');
    await server.pool.query('INSERT INTO event_entities (event_id, entity_id) VALUES ($1, $2)', [
      rows[0]?.id,
      person,
    ]);
    await watcher('default', 'snoop', 'digest', at(t0, 30_000), {
      sources: [{ entity_type: 'customer' }, { connector: 'victim-connector' }, { feed: 'victim-feed' }],
    });
    await watcher('victim', 'private', 'vdigest', at(t0, 30_000));
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    const snoop = await windowDone('default', 'snoop', t0);
    const victim = await windowDone('victim', 'private', t0);
    expect(snoop.event_ids).toEqual([]);
    expect(victim.event_ids).toEqual([rows[0]?.id]);
    const given = await server.pool.query('SELECT content FROM messages WHERE id = $1', [snoop.message_id]);
    expect(given.rows[0].content).not.toContain('VICTIM-SECRET');
    expect(prompts.some((p) => p.includes('VICTIM-SECRET'))).toBe(true); // the victim's own window saw it
    for (const path of [
      `/api/default/watchers/private/windows/${victim.id}`,
      `/api/default/watchers/snoop/windows/${victim.id}`,
      '/api/default/watchers/private/windows',
      `/api/victim/watchers/private/windows/${victim.id}`,
      `/api/default/watchers/snoop/windows/${victim.id}%20`,
      `/api/default/watchers/snoop/windows/-${victim.id}`,
    ]) {
      const res = await server.call('GET', path, { token: attacker });
      expect(res.status, path).toBe(404);
    }
    for (const [method, path, body] of [
      ['POST', '/api/default/watchers/private/run', undefined],
      ['PATCH', '/api/default/watchers/private', { status: 'paused' }],
      ['POST', '/api/victim/watchers/private/run', undefined],
      ['PATCH', '/api/victim/watchers/private', { status: 'paused' }],
    ] as const) {
      const res = await server.call(method, path, { token: attacker, ...(body ? { body } : {}) });
      expect(res.status, path).toBe(404);
    }
    expect((await server.call('GET', '/api/victim/watchers/private')).body.watcher.status).toBe('active');
  });
});

describe('5. summary events', () => {
  it('watchers whose slugs share a prefix keep their own summaries; a connector-shaped event is untouched', async () => {
    const t0 = base();
    model.answer = () => ({ text: 'a summary' });
    await watcher('default', 'sum', 'digest', at(t0, 30_000));
    await watcher('default', 'sum-x', 'digest', at(t0, 30_000));
    // An event that is not a watcher's but carries the origin a summary would: a different
    // origin_type (any other writer's), so the partial unique key does not meet it.
    const { rows } = await server.pool.query<{ id: string }>(
      `INSERT INTO events (org_id, origin_id, origin_type, payload_text, title, occurred_at, created_at)
       SELECT id, $1, 'fixture', 'original', 'original', $2, $2 FROM orgs WHERE slug = 'default' RETURNING id`,
      [`sum@${t0.toISOString()}`, at(t0, -3_600_000)],
    );
    now = at(t0, MINUTE + SETTLE_MS + 1);
    await pass();
    const a = await windowDone('default', 'sum', t0);
    const b = await windowDone('default', 'sum-x', t0);
    expect(a.summary_event_id).not.toBe(b.summary_event_id);
    const texts = await server.pool.query(
      `SELECT id::text, coalesce(metadata->>'watcher', payload_text) AS payload_text
         FROM events WHERE id = ANY($1::bigint[]) ORDER BY id`,
      [[a.summary_event_id, b.summary_event_id, rows[0]?.id]],
    );
    const byId = Object.fromEntries(texts.rows.map((r) => [r.id, r.payload_text]));
    expect(byId[rows[0]?.id as string]).toBe('original');
    expect(byId[a.summary_event_id]).toBe('sum');
    expect(byId[b.summary_event_id]).toBe('sum-x');
  });
});

describe('6. scopes', () => {
  it('a read token cannot write and a messages token cannot read these routes', async () => {
    const writes: [string, string, unknown][] = [
      ['POST', '/api/default/watchers/sum/run', undefined],
      ['PATCH', '/api/default/watchers/sum', { status: 'paused' }],
      ['POST', '/api/default/relationships', { type: 'knows', sourceEntityId: 1, targetEntityId: 2 }],
      ['DELETE', '/api/default/relationships/1', undefined],
      [
        'POST',
        '/api/default/operations/manage_entity_schema',
        { action: 'upsert', kind: 'entity_type', item: { slug: 'x', name: 'X' } },
      ],
      [
        'POST',
        '/api/default/operations/manage_entity_schema',
        { action: 'delete', kind: 'watcher', slug: 'sum' },
      ],
    ];
    for (const [method, path, body] of writes) {
      const res = await server.call(method, path, { token: reader, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path} with read`).toBe(403);
    }
    const reads: [string, string, unknown][] = [
      ['GET', '/api/default/watchers', undefined],
      ['GET', '/api/default/watchers/sum', undefined],
      ['GET', '/api/default/watchers/sum/windows', undefined],
      ['GET', '/api/default/relationships', undefined],
      ['POST', '/api/default/operations/manage_entity_schema', { action: 'list' }],
    ];
    for (const [method, path, body] of [...reads, ...writes]) {
      const res = await server.call(method, path, { token: messenger, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path} with messages`).toBe(403);
    }
    expect((await server.call('GET', '/api/default/watchers/sum')).body.watcher.status).toBe('active');
  });
});
