import { connect } from 'node:net';
import type { ProblemCode } from '@svc/core';
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { SLACK_CONFIG, TELEGRAM_CONFIG } from '../../test/platform-configs.js';

/**
 * DESIGN.md section 11: "Bad input gets a clear problem answer and changes nothing". Every case
 * below is sent against a database that already holds agents, platforms (in two orgs), settings
 * and memory schema, and the whole database is compared before and after it.
 */

let server: TestServer;

/** Every public table's rows, as JSON text in a stable order: a readable diff when one changes. */
async function snapshot(pool: pg.Pool): Promise<Record<string, string>> {
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const contents: Record<string, string> = {};
  for (const { name } of tables) {
    // Ordering by the row's text makes the aggregate independent of physical row order.
    const { rows } = await pool.query<{ rows: string | null }>(
      `SELECT json_agg(t ORDER BY t::text)::text AS rows FROM public."${name.replace(/"/g, '""')}" t`,
    );
    contents[name] = rows[0]?.rows ?? '[]';
  }
  return contents;
}

/** Fails the setup loudly: a fixture that silently did not apply would make every case vacuous. */
async function must(method: string, path: string, body: unknown) {
  const res = await server.call(method, path, { body });
  if (res.status !== 200 && res.status !== 201) {
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  return res;
}

beforeAll(async () => {
  server = await startTestServer();
  await must('POST', '/api/default/agents', { agentId: 'helper', name: 'Helper' });
  await must('PATCH', '/api/default/agents/helper/config', {
    'IDENTITY.md': 'You help.',
    networkConfig: { allowedDomains: ['api.example.com'] },
  });
  // One unnamed team_chat and one named messenger: adding a sibling to either needs names.
  await must('PUT', '/api/default/agents/helper/platforms/by-stable-id/helper-team-chat', {
    type: 'team_chat',
    config: SLACK_CONFIG,
  });
  await must('PUT', '/api/default/agents/helper/platforms/by-stable-id/helper-messenger-a', {
    type: 'messenger',
    name: 'a',
    config: TELEGRAM_CONFIG,
  });
  await must('POST', '/api/default/operations/manage_entity_schema', {
    action: 'upsert',
    kind: 'entity_type',
    item: { slug: 'person', name: 'Person' },
  });
  await must('POST', '/api/default/operations/manage_entity_schema', {
    action: 'upsert',
    kind: 'watcher',
    item: { slug: 'daily', name: 'Daily', schedule: '0 9 * * *', prompt: 'Summarise.', agent: 'helper' },
  });
  // The stable ID `shared-team-chat` belongs to org `other`; org `default` has an agent `shared` too.
  await must('POST', '/api/orgs', { slug: 'other' });
  await must('POST', '/api/other/agents', { agentId: 'shared', name: 'Shared' });
  await must('PUT', '/api/other/agents/shared/platforms/by-stable-id/shared-team-chat', {
    type: 'team_chat',
    config: SLACK_CONFIG,
  });
  await must('POST', '/api/default/agents', { agentId: 'shared', name: 'Shared' });
});

interface Case {
  name: string;
  method: string;
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as is, with `contentType`. */
  raw?: string;
  contentType?: string;
  status: number;
  code: ProblemCode;
  /** JSON Pointer (with its location prefix) that one of `errors[]` must name. */
  errorPath?: string;
}

const AGENTS = '/api/default/agents';
const CONFIG = '/api/default/agents/helper/config';
const PLATFORM = (stableId: string) => `/api/default/agents/helper/platforms/by-stable-id/${stableId}`;
const MEMORY = '/api/default/operations/manage_entity_schema';
const TOKENS = '/api/default/tokens';

const watcher = (overrides: Record<string, unknown>) => ({
  action: 'upsert',
  kind: 'watcher',
  item: {
    slug: 'nightly',
    name: 'Nightly',
    schedule: '0 2 * * *',
    prompt: 'Check.',
    agent: 'helper',
    ...overrides,
  },
});
const agentBody = (agentId: string) => ({ agentId, name: 'Agent' });

const cases: Case[] = [
  // ---- the body is not a JSON object at all ------------------------------------------------
  {
    name: 'truncated JSON',
    method: 'POST',
    path: AGENTS,
    raw: '{"agentId": "x",',
    contentType: 'application/json',
    status: 400,
    code: 'malformed_json',
  },
  {
    name: 'JSON with a trailing comma',
    method: 'PATCH',
    path: CONFIG,
    raw: '{"SOUL.md": "x",}',
    contentType: 'application/json',
    status: 400,
    code: 'malformed_json',
  },
  {
    name: 'empty JSON body',
    method: 'POST',
    path: AGENTS,
    raw: '',
    contentType: 'application/json',
    status: 400,
    code: 'malformed_json',
  },
  {
    name: 'text/plain body',
    method: 'POST',
    path: AGENTS,
    raw: 'agentId=helper',
    contentType: 'text/plain',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'form-encoded body',
    method: 'PATCH',
    path: CONFIG,
    raw: 'SOUL.md=x',
    contentType: 'application/x-www-form-urlencoded',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'body over 1 MiB',
    method: 'PATCH',
    path: CONFIG,
    body: { 'SOUL.md': 'x'.repeat(1024 * 1024 + 1) },
    status: 413,
    code: 'payload_too_large',
  },
  {
    name: 'JSON array instead of an object',
    method: 'POST',
    path: AGENTS,
    body: [agentBody('arr')],
    status: 400,
    code: 'validation_failed',
    errorPath: '/body',
  },
  {
    name: 'JSON null body',
    method: 'POST',
    path: AGENTS,
    raw: 'null',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body',
  },
  {
    // Prototype poisoning is refused while parsing, before any schema sees the object.
    name: 'JSON with a __proto__ key',
    method: 'POST',
    path: AGENTS,
    raw: '{"agentId": "proto", "name": "P", "__proto__": {"admin": true}}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/__proto__',
  },
  {
    name: 'JSON with constructor.prototype in a platform config',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    raw: '{"type": "team_chat", "config": {"constructor": {"prototype": {"admin": true}}}}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/constructor',
  },

  // ---- issue 8, item 3: what any JSON body may not hold, whatever the route -----------------
  {
    // Was a 500: the validator of the free-form config recursed until the stack ran out.
    name: 'platform config nested 1,300 levels deep',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    raw: `{"type": "team_chat", "config": ${'{"a": '.repeat(1300)}1${'}'.repeat(1300)}}`,
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    // The body is level 1, `config` level 2: the first object past level 64 is named.
    errorPath: `/body/config${'/a'.repeat(63)}`,
  },
  {
    name: 'arrays nested 65 deep in a setting',
    method: 'PATCH',
    path: CONFIG,
    raw: `{"preApprovedTools": ${'['.repeat(64)}${']'.repeat(64)}}`,
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: `/body/preApprovedTools${'/0'.repeat(63)}`,
  },
  {
    // Was stored with U+FFFD in its place.
    name: 'a lone surrogate in an agent name',
    method: 'POST',
    path: AGENTS,
    raw: '{"agentId": "lone", "name": "a\\ud800b"}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/name',
  },
  {
    name: 'a lone low surrogate in an agent description',
    method: 'POST',
    path: AGENTS,
    raw: '{"agentId": "helper", "name": "Helper", "description": "\\udc00 first"}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/description',
  },
  {
    name: 'a lone surrogate in message content',
    method: 'POST',
    path: '/api/v1/agents/helper/messages',
    raw: '{"platform": "api", "content": "hello \\ud83d"}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/content',
  },
  {
    name: 'a lone surrogate in a watcher prompt',
    method: 'POST',
    path: MEMORY,
    body: watcher({ prompt: 'Check \ud800.' }),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/prompt',
  },
  {
    name: 'a lone surrogate in SOUL.md',
    method: 'PATCH',
    path: CONFIG,
    body: { 'SOUL.md': 'calm \udfff' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/SOUL.md',
  },
  {
    name: 'a lone surrogate in a platform config value',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    body: { type: 'team_chat', config: { botToken: '$SLACK_TOKEN\ud800' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/botToken',
  },
  {
    // A refused key is named by its own path.
    name: 'a lone surrogate in a platform config key',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    body: { type: 'team_chat', config: { 'bot\ud800': 'x' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/bot\ud800',
  },
  {
    name: 'a NUL character in an agent name',
    method: 'POST',
    path: AGENTS,
    body: { agentId: 'nul', name: 'a\u0000b' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/name',
  },
  {
    // Was stored as 9007199254740992.
    name: 'an integer beyond 2^53 in a platform config',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    raw: '{"type": "team_chat", "config": {"channelId": 9007199254740993}}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/channelId',
  },
  {
    name: 'a negative integer beyond -2^53 in a list of a platform config',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    raw: '{"type": "team_chat", "config": {"ids": [1, -18014398509481984]}}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/ids/1',
  },
  {
    name: 'an integer written with an exponent beyond 2^53 (1e300)',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    raw: '{"type": "team_chat", "config": {"retries": 1e300}}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/retries',
  },
  {
    name: 'a number beyond a double (1e400, which JSON.parse reads as Infinity)',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    raw: '{"type": "team_chat", "config": {"limit": -1e400}}',
    contentType: 'application/json',
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/limit',
  },

  // ---- agents: identifiers, types, lengths, unknown keys ----------------------------------
  {
    name: 'agentId with uppercase',
    method: 'POST',
    path: AGENTS,
    body: agentBody('Helper'),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/agentId',
  },
  {
    name: 'agentId with a space',
    method: 'POST',
    path: AGENTS,
    body: agentBody('my agent'),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/agentId',
  },
  {
    name: 'agentId with a leading dash',
    method: 'POST',
    path: AGENTS,
    body: agentBody('-agent'),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/agentId',
  },
  {
    name: 'agentId of 64 characters',
    method: 'POST',
    path: AGENTS,
    body: agentBody('a'.repeat(64)),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/agentId',
  },
  {
    name: 'agent name over 200 characters',
    method: 'POST',
    path: AGENTS,
    body: { agentId: 'long', name: 'n'.repeat(201) },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/name',
  },
  {
    name: 'agent name of the wrong type',
    method: 'POST',
    path: AGENTS,
    body: { agentId: 'typed', name: 42 },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/name',
  },
  {
    name: 'agent without a name',
    method: 'POST',
    path: AGENTS,
    body: { agentId: 'nameless' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/name',
  },
  {
    name: 'unknown top-level key on an agent',
    method: 'POST',
    path: AGENTS,
    body: { agentId: 'helper', name: 'Helper 2', colour: 'blue' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/colour',
  },
  {
    name: 'bad agentId in the path',
    method: 'PATCH',
    path: '/api/default/agents/Helper/config',
    body: { 'SOUL.md': 'x' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/params/id',
  },

  // ---- settings (PATCH config) ------------------------------------------------------------
  {
    name: 'unknown setting key',
    method: 'PATCH',
    path: CONFIG,
    body: { 'SOUL.md': 'changed', memory: { enabled: true } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/memory',
  },
  {
    name: 'bad domain in networkConfig.allowedDomains',
    method: 'PATCH',
    path: CONFIG,
    body: { networkConfig: { allowedDomains: ['Not A Domain'] } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/networkConfig/allowedDomains/0',
  },
  {
    name: 'unknown key inside networkConfig',
    method: 'PATCH',
    path: CONFIG,
    body: { networkConfig: { allowDomains: ['api.example.com'] } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/networkConfig/allowDomains',
  },
  {
    name: 'mcpServers entry with both url and command',
    method: 'PATCH',
    path: CONFIG,
    body: { mcpServers: { github: { url: 'https://mcp.example.com', command: 'gh-mcp' } } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/mcpServers/github/url',
  },
  {
    name: 'unknown key inside an mcpServers entry',
    method: 'PATCH',
    path: CONFIG,
    body: { mcpServers: { github: { command: 'gh-mcp', timeout: 30 } } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/mcpServers/github/timeout',
  },
  {
    name: 'modelSelection pinned without a model',
    method: 'PATCH',
    path: CONFIG,
    body: { modelSelection: { mode: 'pinned' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/modelSelection/model',
  },
  {
    name: 'modelSelection pinned to a model without its provider',
    method: 'PATCH',
    path: CONFIG,
    body: { modelSelection: { mode: 'pinned', model: 'gpt-4.1' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/modelSelection/model',
  },
  {
    // `null` clears a whole setting; inside a setting it is just a wrong type.
    name: 'null inside a setting',
    method: 'PATCH',
    path: CONFIG,
    body: { networkConfig: { allowedDomains: null } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/networkConfig/allowedDomains',
  },
  {
    name: 'IDENTITY.md over 262144 characters',
    method: 'PATCH',
    path: CONFIG,
    body: { 'IDENTITY.md': 'x'.repeat(262_145) },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/IDENTITY.md',
  },
  {
    name: 'preApprovedTools of the wrong type',
    method: 'PATCH',
    path: CONFIG,
    body: { preApprovedTools: 'github.create_issue' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/preApprovedTools',
  },
  {
    name: 'egress port out of range',
    method: 'PATCH',
    path: CONFIG,
    body: { egressConfig: { mode: 'proxy', allowedPorts: [443, 70_000] } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/egressConfig/allowedPorts/1',
  },

  // ---- platforms --------------------------------------------------------------------------
  {
    name: 'stable ID that does not match the body',
    method: 'PUT',
    path: PLATFORM('helper-slack'),
    body: { type: 'team_chat', config: SLACK_CONFIG },
    status: 422,
    code: 'stable_id_mismatch',
    errorPath: '/params/stableId',
  },
  {
    // Longer than the schema's 200 but also than Fastify's default router limit of 100 characters.
    name: 'stable ID over 200 characters',
    method: 'PUT',
    path: PLATFORM(`helper-team-chat-${'x'.repeat(200)}`),
    body: { type: 'team_chat', name: 'x'.repeat(200), config: SLACK_CONFIG },
    status: 400,
    code: 'validation_failed',
    errorPath: '/params/stableId',
  },
  {
    name: 'unknown platform type',
    method: 'PUT',
    path: PLATFORM('helper-irc'),
    body: { type: 'irc', config: {} },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/type',
  },
  {
    name: 'unknown top-level key on a platform',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    body: { type: 'team_chat', config: SLACK_CONFIG, token: 'xoxb' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/token',
  },
  {
    name: 'platform config value over 8192 characters',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    body: { type: 'team_chat', config: { botToken: 'x'.repeat(8193) } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/botToken',
  },
  {
    name: 'platform config that is a list',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    body: { type: 'team_chat', config: ['$SLACK_TOKEN'] },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config',
  },
  {
    name: 'a named platform beside an unnamed one of its type',
    method: 'PUT',
    path: PLATFORM('helper-team-chat-second'),
    body: { type: 'team_chat', name: 'second', config: SLACK_CONFIG },
    status: 409,
    code: 'platform_name_required',
    errorPath: '/body/name',
  },
  {
    name: 'an unnamed platform beside a named one of its type',
    method: 'PUT',
    path: PLATFORM('helper-messenger'),
    body: { type: 'messenger', config: TELEGRAM_CONFIG },
    status: 409,
    code: 'platform_name_required',
    errorPath: '/body/name',
  },
  {
    name: 'stable ID owned by another org',
    method: 'PUT',
    path: '/api/default/agents/shared/platforms/by-stable-id/shared-team-chat',
    body: { type: 'team_chat', config: { ...SLACK_CONFIG, changed: true } },
    status: 409,
    code: 'stable_id_taken',
    errorPath: '/params/stableId',
  },
  {
    name: 'platform of an unknown agent',
    method: 'PUT',
    path: '/api/default/agents/ghost/platforms/by-stable-id/ghost-team-chat',
    body: { type: 'team_chat', config: SLACK_CONFIG },
    status: 404,
    code: 'not_found',
  },
  {
    // slugify("***") is empty: DESIGN.md section 5 makes that an error naming the input.
    name: 'platform name with no letters or digits',
    method: 'PUT',
    path: PLATFORM('helper-messenger'),
    body: { type: 'messenger', name: '***', config: TELEGRAM_CONFIG },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/name',
  },
  {
    // The same for a name in a script that slugify cannot transliterate.
    name: 'platform name in Chinese characters only',
    method: 'PUT',
    path: PLATFORM('helper-messenger'),
    body: { type: 'messenger', name: '客服', config: TELEGRAM_CONFIG },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/name',
  },

  {
    name: 'team_chat config without its keys',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    body: { type: 'team_chat', config: { channel: 'C1' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/signing_secret',
  },
  {
    name: 'a secret written as a value in a platform config',
    method: 'PUT',
    path: PLATFORM('helper-team-chat'),
    body: { type: 'team_chat', config: { ...SLACK_CONFIG, bot_token: 'xoxb-1-2-3' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/bot_token',
  },
  {
    name: 'a messenger flavor that names no protocol',
    method: 'PUT',
    path: PLATFORM('helper-messenger-a'),
    body: { type: 'messenger', name: 'a', config: { ...TELEGRAM_CONFIG, flavor: 'signal' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/config/flavor',
  },

  // ---- memory schema ----------------------------------------------------------------------
  {
    name: 'watcher naming an unknown agent',
    method: 'POST',
    path: MEMORY,
    body: watcher({ agent: 'ghost' }),
    status: 422,
    code: 'unknown_agent',
    errorPath: '/body/item/agent',
  },
  {
    // Agents are per org: `helper` exists in `default` only.
    name: 'watcher naming an agent of another org',
    method: 'POST',
    path: '/api/other/operations/manage_entity_schema',
    body: watcher({ agent: 'helper' }),
    status: 422,
    code: 'unknown_agent',
    errorPath: '/body/item/agent',
  },
  {
    name: 'cron with 6 fields',
    method: 'POST',
    path: MEMORY,
    body: watcher({ schedule: '0 0 2 * * *' }),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/schedule',
  },
  {
    name: 'cron minute out of range',
    method: 'POST',
    path: MEMORY,
    body: watcher({ schedule: '61 2 * * *' }),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/schedule',
  },
  {
    name: 'cron of five garbage fields',
    method: 'POST',
    path: MEMORY,
    body: watcher({ schedule: 'every day at nine am' }),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/schedule',
  },
  {
    name: 'cron in words',
    method: 'POST',
    path: MEMORY,
    body: watcher({ schedule: 'daily' }),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/schedule',
  },
  {
    name: 'cron that never runs (31 February)',
    method: 'POST',
    path: MEMORY,
    body: watcher({ schedule: '0 0 31 2 *' }),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/schedule',
  },
  {
    name: 'watcher with an unknown time zone',
    method: 'POST',
    path: MEMORY,
    body: watcher({ timezone: 'Mars/Olympus_Mons' }),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/timezone',
  },
  {
    name: 'watcher naming a malformed agentId',
    method: 'POST',
    path: MEMORY,
    body: watcher({ agent: 'Helper' }),
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/agent',
  },
  {
    name: 'entity type with an uppercase slug',
    method: 'POST',
    path: MEMORY,
    body: { action: 'upsert', kind: 'entity_type', item: { slug: 'Person', name: 'Person' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/slug',
  },
  {
    name: 'unknown key inside an entity type',
    method: 'POST',
    path: MEMORY,
    body: { action: 'upsert', kind: 'entity_type', item: { slug: 'person', name: 'P', colour: 'red' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/item/colour',
  },
  {
    name: 'unknown memory action',
    method: 'POST',
    path: MEMORY,
    body: { action: 'rename', kind: 'entity_type', slug: 'person' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/action',
  },
  {
    name: 'unknown memory kind',
    method: 'POST',
    path: MEMORY,
    body: { action: 'upsert', kind: 'widget', item: { slug: 'w', name: 'W' } },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/kind',
  },
  {
    name: 'delete without a slug',
    method: 'POST',
    path: MEMORY,
    body: { action: 'delete', kind: 'entity_type' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/slug',
  },
  {
    // The watcher `daily` of the fixture names `helper`.
    name: 'deleting an agent that a watcher names',
    method: 'DELETE',
    path: '/api/default/agents/helper',
    status: 409,
    code: 'conflict',
  },

  // ---- tokens and orgs --------------------------------------------------------------------
  {
    name: 'token with an unknown scope',
    method: 'POST',
    path: TOKENS,
    body: { name: 'ci', scopes: ['read', 'root'] },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/scopes/1',
  },
  {
    name: 'token with no scopes',
    method: 'POST',
    path: TOKENS,
    body: { name: 'ci', scopes: [] },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/scopes',
  },
  {
    name: 'token expiring in 0 days',
    method: 'POST',
    path: TOKENS,
    body: { name: 'ci', scopes: ['read'], expiresInDays: 0 },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/expiresInDays',
  },
  {
    name: 'org slug with a space',
    method: 'POST',
    path: '/api/orgs',
    body: { slug: 'my org' },
    status: 400,
    code: 'validation_failed',
    errorPath: '/body/slug',
  },

  // ---- query strings and routes -----------------------------------------------------------
  {
    name: 'bad include value',
    method: 'GET',
    path: `${AGENTS}?include=config,secrets`,
    status: 400,
    code: 'validation_failed',
    errorPath: '/querystring/include/1',
  },
  {
    name: 'unknown query parameter',
    method: 'GET',
    path: `${AGENTS}?expand=config`,
    status: 400,
    code: 'validation_failed',
    errorPath: '/querystring/expand',
  },
  {
    name: 'unknown route',
    method: 'GET',
    path: '/api/default/widgets',
    status: 404,
    code: 'route_not_found',
  },
  {
    name: 'known path with an unrouted method',
    method: 'DELETE',
    path: AGENTS,
    status: 404,
    code: 'route_not_found',
  },

  // ---- URLs that Fastify's router refuses before any route runs: still problem answers ----------
  {
    name: 'bad percent-encoding in the path',
    method: 'GET',
    path: '/api/default/agents/%E0%A4%A',
    status: 400,
    code: 'validation_failed',
  },
  {
    // With the router's parameter limit above the schema's, the org lookup answers first.
    name: 'org slug of 101 characters in the path',
    method: 'GET',
    path: `/api/${'o'.repeat(101)}/agents`,
    status: 404,
    code: 'not_found',
  },
];

describe('malformed requests', () => {
  it('has a table of at least 35 cases over a non-trivial database', async () => {
    expect(cases.length).toBeGreaterThanOrEqual(35);
    const state = await snapshot(server.pool);
    for (const table of ['agents', 'platforms', 'watchers', 'entity_types', 'orgs']) {
      expect(state[table], table).not.toBe('[]');
    }
  });

  it('the snapshot notices a real change (control)', async () => {
    const before = await snapshot(server.pool);
    await must('PATCH', CONFIG, { 'USER.md': 'control' });
    expect(await snapshot(server.pool)).not.toEqual(before);
    await must('PATCH', CONFIG, { 'USER.md': null });
  });

  it.each(cases)('$name: $status $code, database unchanged', async (c) => {
    const before = await snapshot(server.pool);
    const res = await server.call(c.method, c.path, {
      body: c.body,
      raw: c.raw,
      headers: c.contentType ? { 'content-type': c.contentType } : {},
    });
    // The key property first, so that it is checked even when the answer is wrong too.
    expect(await snapshot(server.pool)).toEqual(before);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: c.status, code: c.code });
    expect(res.status).toBe(c.status);
    expect(typeof res.body.detail).toBe('string');
    if (c.errorPath !== undefined) {
      const paths = (res.body.errors ?? []).map((e: { path: string }) => e.path);
      expect(paths).toContain(c.errorPath);
    }
  });
});

/** Sends bytes on a fresh connection and reads every answer until the server closes it. */
function exchange(text: string): Promise<{ status: number; type: string; body: any }[]> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(url.port), url.hostname, () => socket.write(text));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.setTimeout(5000, () => reject(new Error('the server kept the connection open')));
    socket.on('close', () => {
      const answers = [];
      let rest = Buffer.concat(chunks).toString('utf8');
      while (rest.length > 0) {
        const end = rest.indexOf('\r\n\r\n');
        const head = rest.slice(0, end);
        const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        const body = rest.slice(end + 4, end + 4 + length);
        answers.push({
          status: Number(head.split(' ')[1]),
          type: /content-type: *([^\r\n]*)/i.exec(head)?.[1] ?? '',
          body: JSON.parse(body),
        });
        rest = rest.slice(end + 4 + length);
      }
      resolve(answers);
    });
  });
}

const ADMIN = 'Bearer test-admin-password-0123456789';

describe('requests the HTTP parser refuses before any route runs', () => {
  it('a URL over 16 KB: 431 request_header_too_large problem, database unchanged', async () => {
    const before = await snapshot(server.pool);
    const res = await server.call('POST', `${AGENTS}?${'x'.repeat(17 * 1024)}`, {
      body: agentBody('long-url'),
    });
    expect(await snapshot(server.pool)).toEqual(before);
    expect(res.status).toBe(431);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 431, code: 'request_header_too_large' });
    expect(res.body.detail).toMatch(/16384 bytes; shorten the URL or the headers/);
  });

  it('a Content-Length shorter than the body: every answer a problem, database unchanged', async () => {
    const before = await snapshot(server.pool);
    const body = JSON.stringify(agentBody('short-length'));
    const answers = await exchange(
      `POST ${AGENTS} HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 10\r\n\r\n${body}`,
    );
    expect(await snapshot(server.pool)).toEqual(before);
    expect(answers.length).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.type).toMatch(/^application\/problem\+json/);
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ status: 400, code: expect.any(String) });
    }
    expect(answers[0]?.body.code).toBe('malformed_json');
  });

  it('bytes after a request that are not HTTP: the request is answered, then a malformed_request problem', async () => {
    const answers = await exchange('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"rest of a body"\r\n\r\n');
    expect(answers.map((a) => a.status)).toEqual([200, 400]);
    expect(answers[1]?.type).toMatch(/^application\/problem\+json/);
    expect(answers[1]?.body).toMatchObject({ status: 400, code: 'malformed_request' });
    expect(answers[1]?.body.detail).toMatch(/Content-Length shorter than its body/);
  });

  it('a Content-Length that is not a number: malformed_request problem, database unchanged', async () => {
    const before = await snapshot(server.pool);
    const body = JSON.stringify(agentBody('bad-length'));
    const answers = await exchange(
      `POST ${AGENTS} HTTP/1.1\r\nHost: x\r\nAuthorization: ${ADMIN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ten\r\n\r\n${body}`,
    );
    expect(await snapshot(server.pool)).toEqual(before);
    expect(answers).toHaveLength(1);
    expect(answers[0]?.type).toMatch(/^application\/problem\+json/);
    expect(answers[0]?.body).toMatchObject({ status: 400, code: 'malformed_request' });
  });

  it('a body that is not UTF-8: malformed_json problem, database unchanged', async () => {
    const before = await snapshot(server.pool);
    // "name": "a<ED A0 80>b" is a surrogate encoded as if UTF-8 could carry one (CESU-8).
    const bytes = Buffer.concat([
      Buffer.from('{"agentId": "cesu", "name": "a'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('b"}'),
    ]);
    const res = await fetch(`${server.url}${AGENTS}`, {
      method: 'POST',
      headers: { authorization: ADMIN, 'content-type': 'application/json' },
      body: bytes,
    });
    expect(await snapshot(server.pool)).toEqual(before);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await res.json()).toMatchObject({
      code: 'malformed_json',
      detail: expect.stringMatching(/UTF-8/),
    });
  });
});
