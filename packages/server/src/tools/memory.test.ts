import type { ToolExecutionOptions } from 'ai';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  type RecordedRequest,
  startFakeChatCompletions,
} from '../../test/fakes/chat-completions.js';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { memoryTools } from './memory.js';

/**
 * The memory tools in agents' turns: the fake model calls memory_search, memory_entities and
 * memory_save, and the next request it gets holds what the tool answered. Two orgs hold events of
 * the same words: an agent only ever finds its own org's.
 */

let fake: FakeChatCompletions;
let server: TestServer;
const orgs = { own: '', rival: '' };
let rivalToken = '';
const ids = { alice: '', bob: '', reportsTo: '' };
const events: Record<string, string> = {};

const lastMessage = (request: RecordedRequest) => request.body.messages.at(-1);
const offered = (request: RecordedRequest | undefined) =>
  (request?.body.tools ?? [])
    .map((t) => t.function.name)
    .filter((name) => name.startsWith('memory_'))
    .sort();
type OfferedTool = { function: { name: string; description?: string } };
const offeredTool = (request: RecordedRequest | undefined, name: string) =>
  ((request?.body.tools ?? []) as OfferedTool[]).find((t) => t.function.name === name);
/** The tool result the model got last, as it was sent. */
const toolTextOf = (request: RecordedRequest | undefined) =>
  String(request?.body.messages.filter((m) => m.role === 'tool').at(-1)?.content);
const toolResultOf = (request: RecordedRequest | undefined) => JSON.parse(toolTextOf(request));
const resultIds = (result: { results: { eventId: number }[] }) =>
  result.results.map((r) => String(r.eventId)).sort();

/** Calls `tool` with `args` once, then answers with what the tool said. */
function calling(tool: string, args: Record<string, unknown>) {
  fake.answer = (request) =>
    lastMessage(request)?.role === 'tool'
      ? { text: `done: ${String(lastMessage(request)?.content)}` }
      : { toolCalls: [{ name: tool, arguments: args }] };
}

async function insertEvent(
  name: string,
  seed: { org?: string; title: string; text: string; at: string; entities?: string[] },
): Promise<string> {
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO events (org_id, origin_id, origin_type, payload_type, payload_text, title, source_url, occurred_at)
     VALUES ($1, $2, 'import', 'text', $3, $4, $5, $6) RETURNING id`,
    [seed.org ?? orgs.own, name, seed.text, seed.title, `https://example.com/${name}`, seed.at],
  );
  const id = rows[0]?.id as string;
  for (const entity of seed.entities ?? []) {
    await server.pool.query('INSERT INTO event_entities (event_id, entity_id) VALUES ($1, $2)', [id, entity]);
  }
  events[name] = id;
  return id;
}

async function agent(org: string, agentId: string, config: Record<string, unknown> = {}) {
  const created = await server.call('POST', `/api/${org}/agents`, {
    body: {
      agentId,
      name: `Agent ${agentId}`,
      providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const res = await server.call('PATCH', `/api/${org}/agents/${agentId}/config`, { body: config });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const send = (agentId: string, content: string, token?: string) =>
  server.call('POST', `/api/v1/agents/${agentId}/messages`, {
    body: { platform: 'api', content },
    headers: { prefer: 'wait=20' },
    ...(token ? { token } : {}),
  });

/** The first request of the turn `send` makes, and the follow-up with the tool's result. */
async function turn(agentId: string, content: string, token?: string) {
  const before = fake.requests.length;
  const res = await send(agentId, content, token);
  expect(res.body.status, JSON.stringify(res.body)).toBe('completed');
  return { first: fake.requests[before], followUp: fake.requests[before + 1], res };
}

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-memory' },
    workers: {},
  });
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'rival', name: 'Rival' } })).status).toBe(
    201,
  );
  const { rows } = await server.pool.query<{ id: string; slug: string }>('SELECT id, slug FROM orgs');
  orgs.own = rows.find((r) => r.slug === 'default')?.id as string;
  orgs.rival = rows.find((r) => r.slug === 'rival')?.id as string;
  rivalToken = (await createToken(server, 'rival', ['messages'])).secret;
  const key = await server.call('PUT', '/api/rival/secrets/OPENAI_API_KEY', { body: { value: 'sk-rival' } });
  expect(key.status, JSON.stringify(key.body)).toBeLessThan(300);

  const people = await server.pool.query<{ id: string; title: string }>(
    `INSERT INTO entities (org_id, entity_type, title, traits)
     VALUES ($1, 'person', 'Alice Martin', '{"role": "treasurer"}'), ($1, 'person', 'Bob Stone', '{}')
     RETURNING id, title`,
    [orgs.own],
  );
  ids.alice = people.rows.find((p) => p.title === 'Alice Martin')?.id as string;
  ids.bob = people.rows.find((p) => p.title === 'Bob Stone')?.id as string;
  await server.pool.query(
    `INSERT INTO entity_identities (org_id, entity_type, namespace, value, entity_id)
     VALUES ($1, 'person', 'email', 'alice@example.com', $2)`,
    [orgs.own, ids.alice],
  );
  await server.pool.query(
    `INSERT INTO relationship_types (org_id, slug, name) VALUES ($1, 'reports_to', 'Reports to')`,
    [orgs.own],
  );
  const relationship = await server.pool.query<{ id: string }>(
    `INSERT INTO relationships (org_id, relationship_type, source_entity_id, target_entity_id, metadata)
     VALUES ($1, 'reports_to', $2, $3, '{"since": "2025"}') RETURNING id`,
    [orgs.own, ids.bob, ids.alice],
  );
  ids.reportsTo = relationship.rows[0]?.id as string;

  await insertEvent('budget-march', {
    title: 'Budget for March',
    text: 'Alice approved the budget for the spring campaign.',
    at: '2026-03-02T09:00:00Z',
    entities: [ids.alice],
  });
  await insertEvent('budget-june', {
    title: 'Budget for June',
    text: 'Bob asked for more budget for the summer hires.',
    at: '2026-06-02T09:00:00Z',
    entities: [ids.bob],
  });
  await insertEvent('picnic', { title: 'Picnic', text: 'Sandwiches at noon.', at: '2026-06-03T09:00:00Z' });
  // The rival org's events say the same words.
  await insertEvent('rival-budget', {
    org: orgs.rival,
    title: 'Budget for March',
    text: 'The rival budget for the spring campaign.',
    at: '2026-03-02T09:00:00Z',
  });

  await agent('default', 'keeper');
  await agent('default', 'scribe', { toolsConfig: { memorySave: true } });
  await agent('default', 'forgetful', { toolsConfig: { memory: false, memorySave: true } });
  await agent('default', 'narrow', { toolsConfig: { denied: ['memory_entities'] } });
  await agent('rival', 'spy');
}, 60_000);

afterEach(() => {
  fake.answer = (request) => ({ text: `Hello from ${request.body.model}` });
});

describe('memory_search in a turn', () => {
  it("is offered by default, says its mode, and answers the org's matching events as cited items", async () => {
    calling('memory_search', { query: 'budget' });
    const { first, followUp } = await turn('keeper', 'what about the budget?');
    expect(offered(first)).toEqual(['memory_entities', 'memory_search']);
    expect(offeredTool(first, 'memory_search')?.function.description).toContain('text search only');
    const result = toolResultOf(followUp);
    expect(result).toMatchObject({ mode: 'text', note: expect.stringContaining('text search only') });
    expect(resultIds(result)).toEqual([events['budget-march'], events['budget-june']].sort());
    expect(result.results).toContainEqual({
      eventId: Number(events['budget-march']),
      title: 'Budget for March',
      sourceUrl: 'https://example.com/budget-march',
      date: '2026-03-02T09:00:00.000Z',
      snippet: expect.stringContaining('«budget»'),
    });
  });

  it('filters by entity and by time', async () => {
    calling('memory_search', { query: 'budget', entityId: Number(ids.bob) });
    expect(resultIds(toolResultOf((await turn('keeper', 'budget of bob')).followUp))).toEqual([
      events['budget-june'],
    ]);
    calling('memory_search', {
      query: 'budget',
      since: '2026-01-01T00:00:00Z',
      until: '2026-04-01T00:00:00Z',
    });
    expect(resultIds(toolResultOf((await turn('keeper', 'budget in q1')).followUp))).toEqual([
      events['budget-march'],
    ]);
  });

  it("finds the agent's own org only, whichever org holds the same words", async () => {
    calling('memory_search', { query: 'spring campaign budget', limit: 50 });
    const own = toolResultOf((await turn('keeper', 'spring?')).followUp);
    expect(resultIds(own)).toEqual([events['budget-march']]);
    const rival = toolResultOf((await turn('spy', 'spring?', rivalToken)).followUp);
    expect(resultIds(rival)).toEqual([events['rival-budget']]);
  });

  it('takes no org from its input, and tells the model of a query with nothing to search for', async () => {
    calling('memory_search', { query: 'budget', org: 'rival' });
    // Refused by the input schema (no such key), so nothing was searched.
    const refused = toolTextOf((await turn('keeper', 'sneaky')).followUp);
    expect(refused).toMatch(/org/);
    expect(refused).not.toMatch(/eventId/);
    calling('memory_search', { query: 'the of' });
    expect(toolResultOf((await turn('keeper', 'nothing')).followUp).error).toMatch(/no words to search for/);
  });
});

describe('the memory tools offered', () => {
  it('are none with toolsConfig.memory false, memory_save only with memorySave, and follow denied', async () => {
    const { first: forgetful } = await turn('forgetful', 'hello');
    expect(offered(forgetful)).toEqual([]);
    const { first: scribe } = await turn('scribe', 'hello');
    expect(offered(scribe)).toEqual(['memory_entities', 'memory_save', 'memory_search']);
    const { first: narrow } = await turn('narrow', 'hello');
    expect(offered(narrow)).toEqual(['memory_search']);
  });
});

describe('memory_entities', () => {
  it('finds entities by part of their name or by identity, with traits and latest events', async () => {
    calling('memory_entities', { name: 'alice' });
    const byName = toolResultOf((await turn('keeper', 'who is alice')).followUp);
    expect(byName.entities).toEqual([
      {
        id: Number(ids.alice),
        type: 'person',
        title: 'Alice Martin',
        traits: { role: 'treasurer' },
        identities: [{ namespace: 'email', value: 'alice@example.com' }],
        latestEvents: [
          {
            eventId: Number(events['budget-march']),
            title: 'Budget for March',
            sourceUrl: 'https://example.com/budget-march',
            date: '2026-03-02T09:00:00.000Z',
          },
        ],
        // Both directions: Bob reports to Alice, seen from Alice.
        relationships: [
          {
            id: Number(ids.reportsTo),
            type: 'reports_to',
            direction: 'incoming',
            metadata: { since: '2025' },
            entity: { id: Number(ids.bob), type: 'person', title: 'Bob Stone' },
          },
        ],
      },
    ]);
    calling('memory_entities', { identity: 'email:Alice@Example.com' });
    const byIdentity = toolResultOf((await turn('keeper', 'whose mail')).followUp);
    expect(byIdentity.entities.map((e: { id: number }) => e.id)).toEqual([Number(ids.alice)]);
    // A name spelt a little wrong still finds its entity where pg_trgm is installed.
    const { rowCount } = await server.pool.query(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`);
    calling('memory_entities', { name: 'Bob Stoen' });
    const misspelt = toolResultOf((await turn('keeper', 'bob?')).followUp);
    expect(misspelt.entities.map((e: { id: number }) => e.id)).toEqual(rowCount ? [Number(ids.bob)] : []);
    if (rowCount) {
      expect(misspelt.entities[0].relationships).toEqual([
        expect.objectContaining({
          direction: 'outgoing',
          entity: { id: Number(ids.alice), type: 'person', title: 'Alice Martin' },
        }),
      ]);
    }
    // Another org's agent finds none of these.
    calling('memory_entities', { name: 'alice' });
    expect(toolResultOf((await turn('spy', 'alice?', rivalToken)).followUp).entities).toEqual([]);
  });
});

describe('memory_save', () => {
  it('stores a fact linked to the entities it names, found by memory_search afterwards', async () => {
    calling('memory_save', {
      text: 'The quokka mascot was chosen by Alice.',
      title: 'Mascot',
      kind: 'fact',
      entities: ['alice martin', 'Nobody Known'],
    });
    const saved = toolResultOf((await turn('scribe', 'remember the mascot')).followUp);
    expect(saved).toMatchObject({
      saved: true,
      linkedEntities: [{ id: Number(ids.alice), title: 'Alice Martin' }],
      unknownEntities: ['Nobody Known'],
    });
    const { rows } = await server.pool.query(
      `SELECT org_id, connection_id, feed_id, origin_type, semantic_type, payload_text, title, author_name,
              (SELECT array_agg(entity_id) FROM event_entities WHERE event_id = e.id) AS entities
         FROM events e WHERE id = $1`,
      [saved.eventId],
    );
    expect(rows[0]).toMatchObject({
      org_id: orgs.own,
      connection_id: null,
      feed_id: null,
      origin_type: 'agent',
      semantic_type: 'fact',
      title: 'Mascot',
      author_name: 'Agent scribe',
      entities: [ids.alice],
    });

    calling('memory_search', { query: 'quokka', kind: 'fact' });
    const found = toolResultOf((await turn('keeper', 'mascot?')).followUp);
    expect(resultIds(found)).toEqual([String(saved.eventId)]);
  });

  it('keeps one row when the same call runs twice', async () => {
    const made = await memoryTools({
      pool: server.pool,
      org: { id: orgs.own, slug: 'default' },
      agentId: 'scribe',
      agentName: 'Agent scribe',
      messageId: '00000000-0000-4000-8000-000000000019',
      config: { toolsConfig: { memorySave: true } },
      taken: [],
    });
    const save = made.tools.find((t) => t.name === 'memory_save')?.tool;
    const options = { toolCallId: 'call-1', messages: [] } as unknown as ToolExecutionOptions;
    const input = { text: 'Retried calls write once.', kind: 'note', entities: [Number(ids.bob)] };
    const first = await save?.execute?.(input, options);
    const second = await save?.execute?.(input, options);
    expect(second).toEqual(first);
    const { rows } = await server.pool.query(
      `SELECT count(*)::int AS n FROM events WHERE org_id = $1 AND payload_text = 'Retried calls write once.'`,
      [orgs.own],
    );
    expect(rows[0].n).toBe(1);
  });

  it('is not offered unless memorySave, and memory: false wins over it', async () => {
    const { first: keeper } = await turn('keeper', 'hello');
    expect(offered(keeper)).not.toContain('memory_save');
    const { first: forgetful } = await turn('forgetful', 'hello');
    expect(offered(forgetful)).not.toContain('memory_save');
  });
});
