import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTurns } from '../../../test/agent-turns.js';
import {
  type FakeChatCompletions,
  type RecordedRequest,
  startFakeChatCompletions,
} from '../../../test/fakes/chat-completions.js';
import { type FakePetsApi, startFakePetsApi } from '../../../test/fakes/pets-api.js';
import { startTestServer, type TestServer } from '../../../test/harness.js';
import { startTestRunWorkers } from '../../../test/runtime.js';
import type { RunWorkers } from '../../runs/worker.js';

/**
 * A connector of a few lines over an OpenAPI 3.1 description served on 127.0.0.1: installed from
 * its URL, connected with an API key, and called by an agent, GET directly and POST after a
 * person approves; the key reaches the upstream where the description says, and nowhere else.
 */

const API_KEY = 'pets-key-7c1e9d0b44';
let fake: FakeChatCompletions;
let pets: FakePetsApi;
let server: TestServer;
let workers: RunWorkers;

const definition = (extra: Record<string, unknown> = {}) => ({
  key: 'pets',
  name: 'Pets',
  version: '1.0.0',
  authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'api_key', secret: true }] }] },
  openapiConfig: { specUrl: pets.specUrl, includeTags: ['pets'], ...extra },
});

const toolNames = (request: RecordedRequest | undefined) =>
  (request?.body.tools ?? []).map((t) => t.function.name).filter((name) => name.startsWith('pets__'));

const { calling, send, until } = agentTurns(
  () => server,
  () => fake,
);

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  pets = await startFakePetsApi(API_KEY);
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-pets' },
    workers: { approvalTtlMs: 60_000 },
  });
  workers = await startTestRunWorkers(server, {
    leaseMs: 10_000,
    limits: { timeoutMs: 20_000, memoryMb: 128 },
  });
  await server.call('POST', '/api/default/agents', {
    body: {
      agentId: 'keeper',
      name: 'keeper',
      providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    },
  });
}, 60_000);

afterAll(() => workers?.close(1000));

describe('a connector from an OpenAPI description', () => {
  it('installs from its URL: the tag chosen gives exactly its operations, with their input schemas', async () => {
    const installed = await server.call('POST', '/api/default/connectors', {
      body: { definition: definition() },
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const { connector } = installed.body;
    expect(connector.package).toBeNull();
    // `/search` has no operationId: its key is its method and path.
    expect(Object.keys(connector.definition.actions).sort()).toEqual([
      'createPet',
      'get_search',
      'listPets',
      'showPetById',
    ]);
    const { listPets, createPet, showPetById } = connector.definition.actions;
    expect(listPets).toMatchObject({ requiresApproval: false, annotations: { idempotentHint: true } });
    expect(createPet.requiresApproval).toBe(true);
    expect(listPets.inputSchema.properties.limit).toMatchObject({ type: 'integer', maximum: 100 });
    expect(createPet.inputSchema).toMatchObject({
      required: ['body'],
      properties: { body: { required: ['name'], properties: { name: { type: 'string' } } } },
    });
    expect(showPetById.inputSchema.required).toEqual(['petId', 'X-Request-Id']);
    expect(connector.generated).toMatchObject({ kind: 'openapi', warning: null });
    // The same again changes nothing.
    const again = await server.call('POST', '/api/default/connectors', {
      body: { definition: definition() },
    });
    expect(again.body.result).toBe('unchanged');
  });

  it('include and exclude lists choose by operationId', async () => {
    const only = await server.call('POST', '/api/default/connectors', {
      body: {
        definition: {
          ...definition({ includeTags: undefined, includeOperations: ['deletePet', 'whoAmI'] }),
          key: 'pets-admin',
        },
      },
    });
    expect(only.status, JSON.stringify(only.body)).toBe(201);
    expect(Object.keys(only.body.connector.definition.actions).sort()).toEqual(['deletePet', 'whoAmI']);
    expect(only.body.connector.definition.actions.deletePet).toMatchObject({
      requiresApproval: true,
      annotations: { destructiveHint: true },
    });
    const but = await server.call('POST', '/api/default/connectors', {
      body: { definition: { ...definition({ excludeOperations: ['createPet'] }), key: 'pets-read' } },
    });
    expect(Object.keys(but.body.connector.definition.actions)).not.toContain('createPet');
    expect(Object.keys(but.body.connector.definition.actions)).toContain('listPets');
  });

  it('an agent calls a GET directly and a POST once approved; the key goes in the declared header only', async () => {
    const connected = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'pets', credentials: { api_key: API_KEY } },
    });
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);

    calling('pets__listPets', { species: 'cat', limit: 3 });
    const listed = await send('keeper', 'which cats are there?');
    expect(listed.body.status, JSON.stringify(listed.body)).toBe('completed');
    expect(toolNames(fake.requests.at(-1))).toContain('pets__createPet');
    const get = pets.requests.at(-1);
    expect(get?.method).toBe('GET');
    expect(get?.url).toBe('/v1/pets?limit=3&species=cat');
    expect(get?.headers['x-api-key']).toBe(API_KEY);
    expect(listed.body.reply).toContain('Rex');

    const before = pets.requests.length;
    calling('pets__createPet', { body: { name: 'Tom' } });
    const paused = await send('keeper', 'add a cat named Tom');
    expect(paused.body.status).toBe('awaiting_approval');
    expect(pets.requests.length).toBe(before);
    const { rows } = await server.pool.query(
      `SELECT data FROM conversation_events WHERE message_id = $1 AND type = 'approval.requested'`,
      [paused.body.id],
    );
    const approved = await server.call('POST', `/api/v1/agents/keeper/approvals/${rows[0].data.approvalId}`, {
      body: { decision: 'approve' },
    });
    expect(approved.status).toBe(200);
    const done = await until('keeper', paused.body.id, ['completed', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('completed');
    const post = pets.requests.at(-1);
    expect(post).toMatchObject({ method: 'POST', url: '/v1/pets', body: '{"name":"Tom"}' });
    expect(post?.headers['x-api-key']).toBe(API_KEY);

    // Never in a log line, a run, an answer or what the model was sent.
    const { rows: runs } = await server.pool.query(
      `SELECT id FROM runs WHERE run_type = 'action' ORDER BY id`,
    );
    for (const run of runs) {
      const shown = await server.call('GET', `/api/default/runs/${run.id}`);
      const logs = await server.call('GET', `/api/default/runs/${run.id}/logs`);
      expect(JSON.stringify([shown.body, logs.body])).not.toContain(API_KEY);
    }
    expect(JSON.stringify([done, listed.body, fake.requests])).not.toContain(API_KEY);
    const { rows: lines } = await server.pool.query('SELECT * FROM run_logs');
    expect(JSON.stringify(lines)).not.toContain(API_KEY);
  }, 60_000);

  it("an upstream's refusal is the agent's failure result, with its message", async () => {
    await server.call('POST', '/api/default/connectors', {
      body: { definition: definition(), requiresApproval: { createPet: false } },
    });
    calling('pets__createPet', { body: { name: '' } });
    const res = await send('keeper', 'add a pet with no name');
    expect(res.body.status).toBe('completed');
    const result = JSON.parse(
      String(
        fake.requests
          .at(-1)
          ?.body.messages.filter((m) => m.role === 'tool')
          .at(-1)?.content,
      ),
    );
    expect(result).toMatchObject({ success: false });
    expect(result.error).toContain('a pet needs a name');
  }, 30_000);

  it('refresh reads the description again: an operation gone from it stops being a tool', async () => {
    const before = (await server.call('GET', '/api/default/connectors/pets')).body.connector;
    const same = await server.call('POST', '/api/default/connectors/pets/refresh', { body: {} });
    expect(same.status, JSON.stringify(same.body)).toBe(200);
    expect(same.body).toMatchObject({ result: 'unchanged', added: [], removed: [] });
    expect(Date.parse(same.body.connector.generated.refreshedAt)).toBeGreaterThan(
      Date.parse(before.generated.refreshedAt),
    );
    const original = pets.description;
    pets.description = original.replace('operationId: createPet', 'operationId: addPet');
    try {
      const changed = await server.call('POST', '/api/default/connectors/pets/refresh', { body: {} });
      expect(changed.body).toMatchObject({ result: 'updated', added: ['addPet'], removed: ['createPet'] });
      // The org's word on approval stays with the install, and applies to what it names.
      expect(changed.body.connector.generated.approvalOverrides).toEqual({ createPet: false });
      calling('pets__listPets', {});
      await send('keeper', 'what can you do?');
      const names = toolNames(fake.requests.at(-1));
      expect(names).toContain('pets__addPet');
      expect(names).not.toContain('pets__createPet');
    } finally {
      pets.description = original;
      await server.call('POST', '/api/default/connectors/pets/refresh', { body: {} });
    }
  }, 30_000);

  it('a definition given inline needs no fetch; one that is not OpenAPI is refused at its field', async () => {
    const inline = await server.call('POST', '/api/default/connectors', {
      body: {
        definition: {
          key: 'inline',
          name: 'Inline',
          version: '1.0.0',
          openapiConfig: {
            spec: {
              openapi: '3.1.0',
              info: { title: 't', version: '1' },
              paths: { '/x': { get: { operationId: 'getX' } } },
            },
            serverUrl: `${pets.url}/v1`,
          },
        },
      },
    });
    expect(inline.status, JSON.stringify(inline.body)).toBe(201);
    expect(Object.keys(inline.body.connector.definition.actions)).toEqual(['getX']);
    const broken = await server.call('POST', '/api/default/connectors', {
      body: {
        definition: {
          ...definition(),
          key: 'broken',
          openapiConfig: { specUrl: `${pets.url}/nothing.yaml` },
        },
      },
    });
    expect(broken.status).toBe(422);
    expect(broken.body.errors[0].path).toBe('/definition/openapiConfig/specUrl');
    expect(broken.body.errors[0].message).toContain('404');
    expect((await server.call('GET', '/api/default/connectors/broken')).status).toBe(404);
  });

  it('refuses feeds, hand-written actions and code-only auth in a definition without code', async () => {
    const res = await server.call('POST', '/api/default/connectors', {
      body: {
        definition: {
          ...definition(),
          key: 'mixed',
          actions: { x: { key: 'x', name: 'X', requiresApproval: false } },
          authSchema: { methods: [{ type: 'interactive' }] },
        },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '/definition/actions',
      '/definition/authSchema/methods/0/type',
    ]);
  });
});

describe('a private upstream', () => {
  it('is refused unless SVC_EGRESS_ALLOW allows it', async () => {
    const strict = await startTestServer({ egressAllow: '' });
    const res = await strict.call('POST', '/api/default/connectors', { body: { definition: definition() } });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.errors[0].path).toBe('/definition/openapiConfig/specUrl');
    expect(res.body.errors[0].message).toMatch(
      /refused by the egress policy: 127\.0\.0\.1 is a loopback address/,
    );
    expect(res.body.errors[0].message).toContain('SVC_EGRESS_ALLOW');
    expect(pets.requests.some((r) => r.url === '/openapi.yaml')).toBe(false);
  }, 30_000);
});
