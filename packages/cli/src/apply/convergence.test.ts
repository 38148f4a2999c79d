import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  createToken,
  startTestServer,
  type TestServer,
} from '../../../server/test/harness.js';
import { applyInProcess } from '../../test/apply-in-process.js';
import { exited, type SvcProcess, svc } from '../../test/run-svc.js';
import type { Kind } from '../plan/types.js';
import { dedent, writeProject } from '../project/test/fixture.js';
import type { ApplyFlags } from './command.js';

/**
 * Convergence, one field at a time: a project that sets every kind of field is applied, then each
 * case changes exactly one field and checks that the plan flags exactly that row and field, that
 * applying it sends one write (counted by the server, from /metrics), that the server then holds
 * the new value, and that the next plan is all noop.
 */

let server: TestServer;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-convergence-'));
  dirs.push(dir);
  return dir;
}

/** Values of the secret references below: only their presence is checked, they never leave. */
const SECRETS = {
  OPENAI_API_KEY: 'sk-test',
  SLACK_BOT_TOKEN: 'xoxb-test',
  SLACK_SIGNING_SECRET: 'signing-test',
  GITHUB_TOKEN: 'ghp-test',
};

// `{{support}}` and `{{ops}}` are the agent ids of one case: stable platform IDs are unique on the
// deployment, so each case has its own org and its own agent ids.
const SVC_TOML = dedent(`
  [agents.{{support}}]
  name = "Support"
  description = "Answers customers"
  pre_approved_tools = ["github.create_issue"]

  [[agents.{{support}}.providers]]
  key = "openai"
  secret_ref = "$OPENAI_API_KEY"

  [[agents.{{support}}.platforms]]
  type = "team_chat"
  name = "Main"
  [agents.{{support}}.platforms.config]
  signing_secret = "$SLACK_SIGNING_SECRET"
  bot_token = "$SLACK_BOT_TOKEN"
  channel = "C123"

  [agents.{{support}}.skills.mcp.github]
  url = "https://mcp.example.com"
  headers = { Authorization = "Bearer \${GITHUB_TOKEN}" }
  env = { LOG_LEVEL = "info" }

  [[agents.{{support}}.skills.list]]
  name = "web-search"
  source = "https://skills.example.com/web-search"
  enabled = true

  [agents.{{support}}.network]
  allowed_domains = ["api.example.com", "*.example.org"]
  denied_domains = ["evil.example.com"]

  [agents.{{support}}.egress]
  mode = "proxy"
  proxy_url = "http://proxy:3128"
  allowed_ports = [443]

  [agents.{{support}}.nix]
  packages = ["jq"]
  channel = "nixos-24.05"

  [agents.{{support}}.tools]
  allowed = ["github.*"]
  denied = ["github.delete_repo"]
  max_calls_per_turn = 5

  [agents.{{support}}.guardrails]
  max_input_chars = 10000
  max_output_chars = 4000
  blocked_terms = ["password"]
  redact_pii = true

  [agents.{{support}}.model_selection]
  mode = "auto"
  providers = ["openai"]

  [agents.{{support}}.provider_model_preferences.openai]
  model = "gpt-4.1"
  fallback_models = ["gpt-4.1-mini"]
  temperature = 0.2
  max_output_tokens = 2000

  [agents.{{ops}}]
  name = "Ops"

  [memory]
  models = ["models/crm.yaml"]
`);

const BUNDLE = dedent(`
  version: 2
  entities:
    - slug: customer
      name: Customer
      description: A paying customer
      icon: "🧑"
      color: "#3b82f6"
      metadata_schema:
        type: object
        properties:
          email: {type: string, format: email}
          seats: {type: integer, minimum: 1}
        required: [email]
    - slug: ticket
      name: Ticket
  relationships:
    - slug: opened_by
      name: Opened by
      description: Who opened a ticket
      metadata_schema: {type: object, properties: {channel: {type: string}}}
      rules:
        - {source: ticket, target: customer}
  watchers:
    - slug: daily-digest
      name: Daily digest
      schedule: "0 9 * * 1-5"
      prompt: Summarise yesterday's tickets.
      agent: {{support}}
      timezone: Europe/Berlin
      description: The day in tickets
      extraction_schema:
        type: object
        properties:
          summary: {type: string}
          open: {type: integer}
        required: [summary]
      tags: [tickets, daily]
      sources:
        - {connector: rss, feed: items}
      notification_channel: both
      min_cooldown_seconds: 3600
`);

type Files = Record<string, string>;

const BASE: Files = {
  'svc.toml': SVC_TOML,
  'agents/{{support}}/IDENTITY.md': '# Support\n\nThe support agent.\n',
  'agents/{{support}}/SOUL.md': 'Be kind.\n',
  'agents/{{support}}/USER.md': 'Customers of Example Inc.\n',
  'models/crm.yaml': BUNDLE,
};

interface Ids {
  org: string;
  support: string;
  ops: string;
  platform: string;
}

let nextCase = 0;
function newIds(): Ids {
  const n = ++nextCase;
  return {
    org: `conv-${n}`,
    support: `support-${n}`,
    ops: `ops-${n}`,
    platform: `support-${n}-team-chat-main`,
  };
}

const render = (text: string, ids: Ids) =>
  text.replaceAll('{{support}}', ids.support).replaceAll('{{ops}}', ids.ops);

async function writeFiles(files: Files, ids: Ids): Promise<string> {
  return writeProject(
    Object.fromEntries(Object.entries(files).map(([p, c]) => [render(p, ids), render(c, ids)])),
  );
}

/** `files` with `from` replaced by `to` in `file`; `from` must occur exactly once, so no edit is lost. */
function edit(files: Files, file: string, from: string, to: string): Files {
  const text = files[file];
  if (text === undefined) throw new Error(`no file ${file}`);
  const parts = text.split(from);
  if (parts.length !== 2)
    throw new Error(`${JSON.stringify(from)} occurs ${parts.length - 1} times in ${file}`);
  return { ...files, [file]: parts.join(to) };
}

// ---- running svc apply in-process -------------------------------------------------------------

async function apply(dir: string, token: string, flags: Partial<ApplyFlags>) {
  return applyInProcess(dir, flags, {
    SVC_API_TOKEN: token,
    SVC_URL: server.url,
    XDG_CONFIG_HOME: dir,
    ...SECRETS,
  });
}

interface JsonPlan {
  summary: Record<'create' | 'update' | 'noop' | 'drift', number>;
  rows: {
    kind: Kind;
    id: string;
    verb: string;
    changes: { field: string; before: unknown; after: unknown }[];
    restarts_worker?: boolean;
  }[];
}

async function plan(dir: string, token: string, org: string): Promise<JsonPlan> {
  const run = await apply(dir, token, { org, dryRun: true, json: true });
  expect(run.code, run.err).toBe(0);
  return JSON.parse(run.out) as JsonPlan;
}

const notNoop = (p: JsonPlan) => p.rows.filter((r) => r.verb !== 'noop');

// ---- what the server counted (GET /metrics) ---------------------------------------------------

type Counts = Map<string, number>;

/** `svc_http_requests_total` by `METHOD route`, all statuses summed; /metrics' own reads left out. */
async function serverRequests(): Promise<Counts> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const counts: Counts = new Map();
  for (const line of text.split('\n')) {
    const match = /^svc_http_requests_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries(
      [...(match[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (labels.route === '/metrics') continue;
    const key = `${labels.method} ${labels.route}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(match[2]));
  }
  return counts;
}

/** What was counted between two reads of /metrics, without the zeros. */
function since(before: Counts, after: Counts): Record<string, number> {
  const delta: Record<string, number> = {};
  for (const [key, n] of after) {
    const d = n - (before.get(key) ?? 0);
    if (d !== 0) delta[key] = d;
  }
  return delta;
}

const total = (delta: Record<string, number>) => Object.values(delta).reduce((a, b) => a + b, 0);
const nonGet = (delta: Record<string, number>) =>
  Object.entries(delta)
    .filter(([key]) => !key.startsWith('GET '))
    .reduce((a, [, n]) => a + n, 0);

const SCHEMA_ROUTE = 'POST /api/:org/operations/manage_entity_schema';
const PLAN_READS = { 'GET /api/:org/agents': 1, [SCHEMA_ROUTE]: 1 };
/** What a successful apply sends last, whatever it changed: the ids the project declares. */
const MANIFEST_ROUTE = 'PUT /api/:org/apply-manifest';

/** The settings check a plan sends for each agent whose settings change: a POST that writes nothing. */
const CHECK_ROUTE = 'POST /api/:org/agents/:id/config/check';

/**
 * Writes of resources the server received: its non-GET requests, less the schema `list` that every
 * plan sends, the settings checks and the manifest's PUT (counted on its own). The `list` is a POST
 * on the same route as the schema upserts, so /metrics alone cannot tell them apart; each plan
 * sends exactly one (asserted below as PLAN_READS).
 */
const serverWrites = (delta: Record<string, number>, plans: number) =>
  nonGet(delta) - plans - (delta[MANIFEST_ROUTE] ?? 0) - (delta[CHECK_ROUTE] ?? 0);

// ---- an org holding the base project ----------------------------------------------------------

async function newOrg(ids: Ids): Promise<string> {
  const created = await server.call('POST', '/api/orgs', { body: { slug: ids.org } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return (await createToken(server, ids.org, ['write'])).secret;
}

/** The server's view of one case's org, as `read` functions of the cases see it. */
interface ServerView {
  support: any;
  ops: any;
  platform: any;
  memory: { entityTypes: any[]; relationshipTypes: any[]; watchers: any[] };
}

async function serverView(ids: Ids): Promise<ServerView> {
  const agents = await server.call('GET', `/api/${ids.org}/agents?include=config,platforms`);
  expect(agents.status).toBe(200);
  const memory = await server.call('POST', `/api/${ids.org}/operations/manage_entity_schema`, {
    body: { action: 'list' },
  });
  expect(memory.status).toBe(200);
  const support = agents.body.agents.find((a: any) => a.agentId === ids.support);
  return {
    support,
    ops: agents.body.agents.find((a: any) => a.agentId === ids.ops),
    platform: support?.platforms.find((p: any) => p.stableId === ids.platform),
    memory: memory.body,
  };
}

// ---- the cases --------------------------------------------------------------------------------

interface Case {
  name: string;
  /** The one-field change, on the base files (placeholders still in). */
  change: (files: Files) => Files;
  kind: Kind;
  /** The row's id; placeholders are rendered. */
  id: string;
  field: string;
  /** The value the server holds for the field, in the form the plan shows it. */
  read: (view: ServerView) => unknown;
  /** Strings have their placeholders rendered. */
  expected: unknown;
  restartsWorker?: boolean;
  /** The plan's `after`, when it is not what the server stores (an absent description is ""). */
  planned?: unknown;
  /** A known bug: the case documents it with `it.fails`. */
  bug?: string;
}

const toml = (from: string, to: string) => (files: Files) => edit(files, 'svc.toml', from, to);
const yaml = (from: string, to: string) => (files: Files) => edit(files, 'models/crm.yaml', from, to);
const markdown = (file: string, to: string) => (files: Files) => ({
  ...files,
  [`agents/{{support}}/${file}`]: to,
});
const setting = (key: string) => (view: ServerView) => view.support.config[key];
const memoryItem = (list: keyof ServerView['memory'], slug: string, field: string) => (view: ServerView) =>
  view.memory[list].find((item) => item.slug === slug)?.[field];

const SUPPORT = '{{support}}';
const cases: Case[] = [
  // The agent row: name, description, providers.
  {
    name: 'agent name',
    change: toml('name = "Support"', 'name = "Support desk"'),
    kind: 'agent',
    id: SUPPORT,
    field: 'name',
    read: (v) => v.support.name,
    expected: 'Support desk',
  },
  {
    name: 'agent description',
    change: toml('description = "Answers customers"', 'description = "Answers customers, politely"'),
    kind: 'agent',
    id: SUPPORT,
    field: 'description',
    read: (v) => v.support.description,
    expected: 'Answers customers, politely',
  },
  {
    name: 'agent providers (the secret reference text)',
    change: toml('secret_ref = "$OPENAI_API_KEY"', 'secret_ref = "${OPENAI_API_KEY}"'),
    kind: 'agent',
    id: SUPPORT,
    field: 'providers',
    read: (v) => v.support.providers.map((p: any) => ({ key: p.key, secret_ref: p.secret_ref })),
    expected: [{ key: 'openai', secret_ref: '${OPENAI_API_KEY}' }],
  },
  // The settings row: the three Markdown files and each TOML settings table.
  {
    name: 'IDENTITY.md',
    change: markdown('IDENTITY.md', '# Support\n\nThe front-line support agent.\n'),
    kind: 'settings',
    id: SUPPORT,
    field: 'IDENTITY.md',
    read: setting('IDENTITY.md'),
    expected: '# Support\n\nThe front-line support agent.\n',
  },
  {
    name: 'SOUL.md',
    change: markdown('SOUL.md', 'Be kind, and brief.\n'),
    kind: 'settings',
    id: SUPPORT,
    field: 'SOUL.md',
    read: setting('SOUL.md'),
    expected: 'Be kind, and brief.\n',
  },
  {
    name: 'USER.md',
    change: markdown('USER.md', 'Customers of Example GmbH.\n'),
    kind: 'settings',
    id: SUPPORT,
    field: 'USER.md',
    read: setting('USER.md'),
    expected: 'Customers of Example GmbH.\n',
  },
  {
    name: '[network]',
    change: toml(
      'denied_domains = ["evil.example.com"]',
      'denied_domains = ["evil.example.com", "*.bad.example"]',
    ),
    kind: 'settings',
    id: SUPPORT,
    field: 'networkConfig',
    read: setting('networkConfig'),
    expected: {
      allowedDomains: ['api.example.com', '*.example.org'],
      deniedDomains: ['evil.example.com', '*.bad.example'],
    },
  },
  {
    name: '[egress]',
    change: toml('allowed_ports = [443]', 'allowed_ports = [443, 8443]'),
    kind: 'settings',
    id: SUPPORT,
    field: 'egressConfig',
    read: setting('egressConfig'),
    expected: { mode: 'proxy', proxyUrl: 'http://proxy:3128', allowedPorts: [443, 8443] },
  },
  {
    name: '[nix]',
    change: toml('packages = ["jq"]', 'packages = ["jq", "ripgrep"]'),
    kind: 'settings',
    id: SUPPORT,
    field: 'nixConfig',
    read: setting('nixConfig'),
    expected: { packages: ['jq', 'ripgrep'], channel: 'nixos-24.05' },
  },
  {
    name: '[tools]',
    change: toml('max_calls_per_turn = 5', 'max_calls_per_turn = 6'),
    kind: 'settings',
    id: SUPPORT,
    field: 'toolsConfig',
    read: setting('toolsConfig'),
    expected: { allowed: ['github.*'], denied: ['github.delete_repo'], maxCallsPerTurn: 6 },
  },
  {
    name: '[guardrails]',
    change: toml('redact_pii = true', 'redact_pii = false'),
    kind: 'settings',
    id: SUPPORT,
    field: 'guardrails',
    read: setting('guardrails'),
    expected: { maxInputChars: 10000, maxOutputChars: 4000, blockedTerms: ['password'], redactPii: false },
  },
  {
    name: 'pre_approved_tools',
    change: toml(
      'pre_approved_tools = ["github.create_issue"]',
      'pre_approved_tools = ["github.create_issue", "github.comment"]',
    ),
    kind: 'settings',
    id: SUPPORT,
    field: 'preApprovedTools',
    read: setting('preApprovedTools'),
    expected: ['github.create_issue', 'github.comment'],
  },
  {
    name: '[model_selection]',
    change: toml('mode = "auto"\nproviders = ["openai"]', 'mode = "pinned"\nmodel = "openai/gpt-4.1"'),
    kind: 'settings',
    id: SUPPORT,
    field: 'modelSelection',
    read: setting('modelSelection'),
    expected: { mode: 'pinned', model: 'openai/gpt-4.1' },
  },
  {
    name: '[provider_model_preferences]',
    change: toml('temperature = 0.2', 'temperature = 0.7'),
    kind: 'settings',
    id: SUPPORT,
    field: 'providerModelPreferences',
    read: setting('providerModelPreferences'),
    expected: {
      openai: { model: 'gpt-4.1', fallbackModels: ['gpt-4.1-mini'], temperature: 0.7, maxOutputTokens: 2000 },
    },
  },
  {
    name: '[skills.mcp]',
    change: toml('url = "https://mcp.example.com"', 'url = "https://mcp2.example.com"'),
    kind: 'settings',
    id: SUPPORT,
    field: 'mcpServers',
    read: setting('mcpServers'),
    expected: {
      github: {
        url: 'https://mcp2.example.com',
        headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
        env: { LOG_LEVEL: 'info' },
      },
    },
  },
  {
    name: '[[skills.list]]',
    change: toml('enabled = true', 'enabled = false'),
    kind: 'settings',
    id: SUPPORT,
    field: 'skillsConfig',
    read: setting('skillsConfig'),
    expected: {
      skills: [{ name: 'web-search', source: 'https://skills.example.com/web-search', enabled: false }],
    },
  },
  // The platform row: name (one that keeps the stable ID) and config.
  {
    name: 'platform name',
    change: toml('name = "Main"', 'name = "MAIN"'),
    kind: 'platform',
    id: '{{platform}}',
    field: 'name',
    read: (v) => v.platform.name,
    expected: 'MAIN',
    restartsWorker: false,
  },
  {
    name: 'platform config',
    change: toml('channel = "C123"', 'channel = "C456"'),
    kind: 'platform',
    id: '{{platform}}',
    field: 'config',
    read: (v) => v.platform.config,
    expected: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN', channel: 'C456' },
    restartsWorker: true,
  },
  // Memory: entity type, relationship type, watcher.
  {
    name: 'entity type name',
    change: yaml('name: Customer', 'name: Client'),
    kind: 'entity_type',
    id: 'customer',
    field: 'name',
    read: memoryItem('entityTypes', 'customer', 'name'),
    expected: 'Client',
  },
  {
    name: 'entity type description',
    change: yaml('description: A paying customer', 'description: Someone who pays'),
    kind: 'entity_type',
    id: 'customer',
    field: 'description',
    read: memoryItem('entityTypes', 'customer', 'description'),
    expected: 'Someone who pays',
  },
  {
    name: 'relationship type name',
    change: yaml('name: Opened by', 'name: Raised by'),
    kind: 'relationship_type',
    id: 'opened_by',
    field: 'name',
    read: memoryItem('relationshipTypes', 'opened_by', 'name'),
    expected: 'Raised by',
  },
  {
    name: 'relationship type description',
    change: yaml('description: Who opened a ticket', 'description: The person who opened the ticket'),
    kind: 'relationship_type',
    id: 'opened_by',
    field: 'description',
    read: memoryItem('relationshipTypes', 'opened_by', 'description'),
    expected: 'The person who opened the ticket',
  },
  {
    name: 'watcher name',
    change: yaml('name: Daily digest', 'name: Morning digest'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'name',
    read: memoryItem('watchers', 'daily-digest', 'name'),
    expected: 'Morning digest',
  },
  {
    name: 'watcher prompt',
    change: yaml("prompt: Summarise yesterday's tickets.", "prompt: List yesterday's open tickets."),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'prompt',
    read: memoryItem('watchers', 'daily-digest', 'prompt'),
    expected: "List yesterday's open tickets.",
  },
  {
    name: 'watcher schedule',
    change: yaml('schedule: "0 9 * * 1-5"', 'schedule: "30 8 * * 1-5"'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'schedule',
    read: memoryItem('watchers', 'daily-digest', 'schedule'),
    expected: '30 8 * * 1-5',
  },
  {
    name: 'watcher agent',
    change: yaml('agent: {{support}}', 'agent: {{ops}}'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'agent',
    read: memoryItem('watchers', 'daily-digest', 'agent'),
    expected: '{{ops}}',
  },
  {
    name: 'watcher timezone',
    change: yaml('timezone: Europe/Berlin', 'timezone: America/New_York'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'timezone',
    read: memoryItem('watchers', 'daily-digest', 'timezone'),
    expected: 'America/New_York',
  },
  // The fields bundles write beyond the spec's: each one is a change of its own.
  {
    name: 'entity type icon',
    change: yaml('icon: "🧑"', 'icon: "🏢"'),
    kind: 'entity_type',
    id: 'customer',
    field: 'icon',
    read: memoryItem('entityTypes', 'customer', 'icon'),
    expected: '🏢',
  },
  {
    name: 'entity type color',
    change: yaml('color: "#3b82f6"', 'color: teal'),
    kind: 'entity_type',
    id: 'customer',
    field: 'color',
    read: memoryItem('entityTypes', 'customer', 'color'),
    expected: 'teal',
  },
  {
    name: 'entity type metadata_schema (one nested keyword)',
    change: yaml('minimum: 1}', 'minimum: 2}'),
    kind: 'entity_type',
    id: 'customer',
    field: 'metadata_schema',
    read: memoryItem('entityTypes', 'customer', 'metadata_schema'),
    expected: {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, seats: { type: 'integer', minimum: 2 } },
      required: ['email'],
    },
  },
  {
    name: 'relationship type metadata_schema',
    change: yaml('{channel: {type: string}}', '{channel: {type: string, enum: [email, chat]}}'),
    kind: 'relationship_type',
    id: 'opened_by',
    field: 'metadata_schema',
    read: memoryItem('relationshipTypes', 'opened_by', 'metadata_schema'),
    expected: { type: 'object', properties: { channel: { type: 'string', enum: ['email', 'chat'] } } },
  },
  {
    name: 'relationship type rules',
    change: yaml('{source: ticket, target: customer}', '{source: ticket, target: [customer, ticket]}'),
    kind: 'relationship_type',
    id: 'opened_by',
    field: 'rules',
    read: memoryItem('relationshipTypes', 'opened_by', 'rules'),
    expected: [{ source: 'ticket', target: ['customer', 'ticket'] }],
  },
  {
    name: 'watcher description',
    change: yaml('description: The day in tickets', 'description: The day in tickets, briefly'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'description',
    read: memoryItem('watchers', 'daily-digest', 'description'),
    expected: 'The day in tickets, briefly',
  },
  {
    name: 'watcher extraction_schema',
    change: yaml('required: [summary]', 'required: [summary, open]'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'extraction_schema',
    read: memoryItem('watchers', 'daily-digest', 'extraction_schema'),
    expected: {
      type: 'object',
      properties: { summary: { type: 'string' }, open: { type: 'integer' } },
      required: ['summary', 'open'],
    },
  },
  {
    name: 'watcher tags',
    change: yaml('tags: [tickets, daily]', 'tags: [tickets]'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'tags',
    read: memoryItem('watchers', 'daily-digest', 'tags'),
    expected: ['tickets'],
  },
  {
    name: 'watcher sources',
    change: yaml('{connector: rss, feed: items}', '{connector: rss, feed: items, entity_type: customer}'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'sources',
    read: memoryItem('watchers', 'daily-digest', 'sources'),
    expected: [{ connector: 'rss', feed: 'items', entity_type: 'customer' }],
  },
  {
    name: 'watcher notification_channel (to a platform of its agent)',
    change: yaml(
      'notification_channel: both',
      'notification_channel: {platform: {{support}}-team-chat-main, channel: C123}',
    ),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'notification_channel',
    read: memoryItem('watchers', 'daily-digest', 'notification_channel'),
    expected: { platform: '{{platform}}', channel: 'C123' },
  },
  {
    name: 'watcher min_cooldown_seconds',
    change: yaml('min_cooldown_seconds: 3600', 'min_cooldown_seconds: 0'),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'min_cooldown_seconds',
    read: memoryItem('watchers', 'daily-digest', 'min_cooldown_seconds'),
    expected: 0,
  },
];

// Removing a value is a change too: each of these converges to the server's "none".
cases.push(
  {
    name: 'agent description removed',
    change: toml('description = "Answers customers"\n', ''),
    kind: 'agent',
    id: SUPPORT,
    field: 'description',
    read: (v) => v.support.description,
    expected: '',
  },
  {
    name: 'agent providers removed',
    change: toml('[[agents.{{support}}.providers]]\nkey = "openai"\nsecret_ref = "$OPENAI_API_KEY"\n', ''),
    kind: 'agent',
    id: SUPPORT,
    field: 'providers',
    read: (v) => v.support.providers,
    expected: [],
  },
  {
    name: 'SOUL.md emptied ("" is a value)',
    change: markdown('SOUL.md', ''),
    kind: 'settings',
    id: SUPPORT,
    field: 'SOUL.md',
    read: setting('SOUL.md'),
    expected: '',
  },
  {
    name: 'USER.md deleted',
    change: ({ 'agents/{{support}}/USER.md': _, ...rest }) => rest,
    kind: 'settings',
    id: SUPPORT,
    field: 'USER.md',
    read: setting('USER.md'),
    expected: null,
  },
  {
    name: '[nix] removed',
    change: toml('[agents.{{support}}.nix]\npackages = ["jq"]\nchannel = "nixos-24.05"\n', ''),
    kind: 'settings',
    id: SUPPORT,
    field: 'nixConfig',
    read: setting('nixConfig'),
    expected: null,
  },
  {
    name: '[egress] proxy_url removed',
    change: toml('proxy_url = "http://proxy:3128"\n', ''),
    kind: 'settings',
    id: SUPPORT,
    field: 'egressConfig',
    read: setting('egressConfig'),
    expected: { mode: 'proxy', allowedPorts: [443] },
  },
  {
    name: 'platform config key removed',
    change: toml('channel = "C123"\n', ''),
    kind: 'platform',
    id: '{{platform}}',
    field: 'config',
    read: (v) => v.platform.config,
    expected: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN' },
    restartsWorker: true,
  },
  {
    name: 'entity type description removed',
    change: yaml('    description: A paying customer\n', ''),
    kind: 'entity_type',
    id: 'customer',
    field: 'description',
    read: memoryItem('entityTypes', 'customer', 'description'),
    expected: null,
    planned: '',
  },
  {
    name: 'entity type metadata_schema removed',
    change: yaml(
      '    metadata_schema:\n      type: object\n      properties:\n        email: {type: string, format: email}\n        seats: {type: integer, minimum: 1}\n      required: [email]\n',
      '',
    ),
    kind: 'entity_type',
    id: 'customer',
    field: 'metadata_schema',
    read: memoryItem('entityTypes', 'customer', 'metadata_schema'),
    expected: null,
  },
  {
    name: 'watcher timezone removed',
    change: yaml('    timezone: Europe/Berlin\n', ''),
    kind: 'watcher',
    id: 'daily-digest',
    field: 'timezone',
    read: memoryItem('watchers', 'daily-digest', 'timezone'),
    expected: null,
    planned: 'UTC',
  },
);

const renderId = (id: string, ids: Ids) =>
  id.replace('{{support}}', ids.support).replace('{{platform}}', ids.platform);
const renderValue = (value: unknown, ids: Ids): unknown =>
  typeof value === 'string'
    ? render(renderId(value, ids), ids)
    : value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, ids)]))
      : value;

describe('svc apply: changing each kind of field updates exactly that row', () => {
  it('the base project sets every setting, so that each case changes a value that is there', async () => {
    const ids = newIds();
    const token = await newOrg(ids);
    const dir = await writeFiles(BASE, ids);
    expect((await apply(dir, token, { org: ids.org, yes: true })).code).toBe(0);
    const view = await serverView(ids);
    for (const [key, value] of Object.entries(view.support.config)) expect(value, key).not.toBeNull();
    expect(view.support.providers).toHaveLength(1);
    expect(view.platform).toBeDefined();
    expect(view.memory.watchers[0]).toMatchObject({ agent: ids.support, timezone: 'Europe/Berlin' });
  });

  for (const c of cases) {
    const test = c.bug ? it.fails : it;
    test(`${c.name}${c.bug ? ` (known bug: ${c.bug})` : ''}`, async () => {
      const ids = newIds();
      const token = await newOrg(ids);
      const dir = await writeFiles(BASE, ids);
      const first = await apply(dir, token, { org: ids.org, yes: true });
      expect(first.code, first.err).toBe(0);
      const converged = await plan(dir, token, ids.org);
      expect(notNoop(converged), 'the base project converges').toEqual([]);

      // Exactly one field changes: the plan has one update row, with exactly that field.
      const changedDir = await writeFiles(c.change(BASE), ids);
      const before = await serverRequests();
      const pending = await plan(changedDir, token, ids.org);
      const planned = since(before, await serverRequests());
      expect(total(planned), 'a plan takes at most 4 requests').toBeLessThanOrEqual(4);
      expect(serverWrites(planned, 1), 'a plan writes nothing').toBe(0);

      const expected = renderValue(c.expected, ids);
      const rows = notNoop(pending);
      expect(rows.map(({ kind, id, verb }) => ({ kind, id, verb }))).toEqual([
        { kind: c.kind, id: renderId(c.id, ids), verb: 'update' },
      ]);
      const row = rows[0];
      expect(row?.changes.map((change) => change.field)).toEqual([c.field]);
      expect(pending.summary).toEqual({ create: 0, update: 1, noop: pending.rows.length - 1, drift: 0 });
      if (c.restartsWorker !== undefined) expect(row?.restarts_worker).toBe(c.restartsWorker);

      // Applying it sends one write, and the server then holds the new value.
      const beforeApply = await serverRequests();
      const applied = await apply(changedDir, token, { org: ids.org, yes: true });
      expect(applied.code, applied.err).toBe(0);
      const delta = since(beforeApply, await serverRequests());
      expect(serverWrites(delta, 1), JSON.stringify(delta)).toBe(1);
      expect(delta[MANIFEST_ROUTE], 'then the manifest').toBe(1);
      const view = await serverView(ids);
      expect(c.read(view)).toEqual(expected);
      expect(row?.changes[0]?.after).toEqual('planned' in c ? c.planned : expected);

      // And the next plan is all noop.
      const after = await plan(changedDir, token, ids.org);
      expect(notNoop(after)).toEqual([]);
      expect(after.summary.noop).toBe(pending.rows.length);
    });
  }
});

describe('svc apply: what is not a change', () => {
  it('key order in TOML tables, platform config and YAML items is no change: all noop', async () => {
    const ids = newIds();
    const token = await newOrg(ids);
    expect((await apply(await writeFiles(BASE, ids), token, { org: ids.org, yes: true })).code).toBe(0);
    let files = edit(
      BASE,
      'svc.toml',
      'mode = "proxy"\nproxy_url = "http://proxy:3128"\nallowed_ports = [443]',
      'allowed_ports = [443]\nproxy_url = "http://proxy:3128"\nmode = "proxy"',
    );
    files = edit(
      files,
      'svc.toml',
      'bot_token = "$SLACK_BOT_TOKEN"\nchannel = "C123"',
      'channel = "C123"\nbot_token = "$SLACK_BOT_TOKEN"',
    );
    files = edit(
      files,
      'models/crm.yaml',
      '- slug: customer\n    name: Customer',
      '- name: Customer\n    slug: customer',
    );
    const reordered = await plan(await writeFiles(files, ids), token, ids.org);
    expect(notNoop(reordered)).toEqual([]);
  });
});

describe('svc apply: a JSON Schema that does not compile', () => {
  it.each([
    [
      'metadata_schema',
      'email: {type: string, format: email}',
      'email: {type: strnig}',
      11,
      'entities[0].metadata_schema.properties.email.type',
    ],
    [
      'extraction_schema',
      'open: {type: integer}',
      'open: {type: integr}',
      35,
      'watchers[0].extraction_schema.properties.open.type',
    ],
  ])('a bad %s is reported at file:line and nothing is applied', async (_field, from, to, line, path) => {
    const ids = newIds();
    const token = await newOrg(ids);
    const dir = await writeFiles(yaml(from, to)(BASE), ids);
    const run = await apply(dir, token, { org: ids.org, yes: true });
    expect(run.code).not.toBe(0);
    expect(run.err).toMatch(
      new RegExp(
        `models/crm\\.yaml:${line}:\\d+: ${path.replace(/[.[\]]/g, '\\$&')}: is not valid JSON Schema: must be one of array, boolean`,
      ),
    );
    const view = await serverView(ids);
    expect(view.support).toBeUndefined();
    expect(view.memory).toEqual({ entityTypes: [], relationshipTypes: [], watchers: [] });
  });
});

describe('svc apply: a domain with a leading dot', () => {
  it('is stored as its wildcard form, so the plan converges', async () => {
    const ids = newIds();
    const token = await newOrg(ids);
    const files = edit(BASE, 'svc.toml', '"*.example.org"', '".example.org"');
    const dir = await writeFiles(files, ids);
    const first = await apply(dir, token, { org: ids.org, yes: true });
    expect(first.code, first.err).toBe(0);
    expect((await serverView(ids)).support.config.networkConfig.allowedDomains).toEqual([
      'api.example.com',
      '*.example.org',
    ]);
    expect(notNoop(await plan(dir, token, ids.org))).toEqual([]);
  });
});

describe('svc apply: writes counted by the server', () => {
  it('a no-op re-apply writes nothing but its unchanged manifest; a plan takes at most 4 requests', async () => {
    const ids = newIds();
    const token = await newOrg(ids);
    const dir = await writeFiles(BASE, ids);

    let before = await serverRequests();
    const first = await apply(dir, token, { org: ids.org, yes: true });
    expect(first.code, first.err).toBe(0);
    // Two agents, their settings, a platform, two entity types, a relationship type, a watcher.
    expect(first.out).toMatch(/Applied 8 changes/);
    expect(serverWrites(since(before, await serverRequests()), 1)).toBe(8);
    const snapshot = await serverView(ids);
    const manifest = (await server.call('GET', `/api/${ids.org}/apply-manifest`)).body.manifest;
    expect(manifest.agents).toEqual([ids.ops, ids.support].sort());

    before = await serverRequests();
    const again = await apply(dir, token, { org: ids.org, yes: true });
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/Nothing to apply/);
    const delta = since(before, await serverRequests());
    // The two reads of the plan and the manifest, and nothing else: no POST agents, PATCH config
    // or PUT platform.
    expect(delta).toEqual({ ...PLAN_READS, [MANIFEST_ROUTE]: 1 });
    expect(serverWrites(delta, 1)).toBe(0);
    // Nothing moved on the server either: updated_at (and the manifest's appliedAt) move only on
    // real change.
    expect(await serverView(ids)).toEqual(snapshot);
    expect((await server.call('GET', `/api/${ids.org}/apply-manifest`)).body.manifest).toEqual(manifest);

    before = await serverRequests();
    await plan(dir, token, ids.org);
    const planned = since(before, await serverRequests());
    expect(total(planned)).toBeLessThanOrEqual(4);
    expect(planned).toEqual(PLAN_READS);
  });
});

// ---- the real svc process ---------------------------------------------------------------------

/** Waits for the process to exit; kills it (and fails) after `ms`, so that a hang is an error. */
async function exitWithin(child: SvcProcess, ms: number): Promise<{ code: number | null; elapsed: number }> {
  const start = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  const result = await Promise.race([exited(child), timeout]);
  clearTimeout(timer);
  if (result === 'timeout') {
    child.kill('SIGKILL');
    throw new Error(`svc did not exit within ${ms} ms:\n${child.output()}`);
  }
  return { code: result, elapsed: Date.now() - start };
}

const SMALL_TOML = (agent: string) => `[agents.${agent}]\nname = "Small"\n`;

describe('svc apply through the real process', () => {
  it('without a terminal and without --yes, exits 1 at once naming --yes, and writes nothing', async () => {
    const ids = newIds();
    const token = await newOrg(ids);
    const dir = await writeProject({
      'svc.toml': SMALL_TOML(ids.support),
      [`agents/${ids.support}/SOUL.md`]: 'Small.\n',
    });
    const before = await serverRequests();
    const child = svc(['apply', '--dir', dir, '--org', ids.org], {
      SVC_API_TOKEN: token,
      SVC_URL: server.url,
      SVC_ORG: '',
      XDG_CONFIG_HOME: await temp(),
    });
    const { code, elapsed } = await exitWithin(child, 15_000);
    expect(code, child.output()).toBe(1);
    expect(elapsed).toBeLessThan(8_000);
    expect(child.output()).toMatch(/--yes/);
    expect(child.output()).toMatch(/\+ create\s+support-/);
    const delta = since(before, await serverRequests());
    // The plan's reads, and the check of the settings it would write (one agent has any).
    expect(delta).toEqual({ ...PLAN_READS, [CHECK_ROUTE]: 1 });
    expect(serverWrites(delta, 1)).toBe(0);
    expect((await server.call('GET', `/api/${ids.org}/agents/${ids.support}`)).status).toBe(404);
  });

  it('refuses another org than the linked one, naming both pairs, unless --force', async () => {
    const linked = newIds();
    const other = newIds();
    await newOrg(linked);
    await newOrg(other);
    const config = await temp();
    const dir = await writeProject({
      'svc.toml': SMALL_TOML(linked.support),
      [`agents/${linked.support}/SOUL.md`]: 'Small.\n',
    });
    // The admin password acts on every org, so that --force can really apply to the other one.
    const env = { XDG_CONFIG_HOME: config, SVC_API_TOKEN: '', SVC_URL: '', SVC_ORG: '' };
    const login = svc(['login', '--token', ADMIN_PASSWORD, '--url', server.url, '--org', linked.org], env);
    expect((await exitWithin(login, 15_000)).code, login.output()).toBe(0);
    const linking = svc(['link', '--dir', dir], env);
    expect((await exitWithin(linking, 15_000)).code, linking.output()).toBe(0);
    const context = new URL(server.url).host;

    let before = await serverRequests();
    const refused = svc(['apply', '--dir', dir, '--org', other.org, '--yes'], env);
    expect((await exitWithin(refused, 15_000)).code).toBe(1);
    const message = refused.output();
    expect(message).toContain(`(context "${context}", org "${linked.org}")`);
    expect(message).toContain(`(context "${context}", org "${other.org}")`);
    expect(message).toMatch(/--force/);
    expect(since(before, await serverRequests()), 'refused before any request').toEqual({});
    expect((await server.call('GET', `/api/${other.org}/agents/${linked.support}`)).status).toBe(404);

    before = await serverRequests();
    const forced = svc(['apply', '--dir', dir, '--org', other.org, '--yes', '--force'], env);
    expect((await exitWithin(forced, 15_000)).code, forced.output()).toBe(0);
    expect(forced.output()).toMatch(new RegExp(`Applied 2 changes to org ${other.org}\\.`));
    expect(serverWrites(since(before, await serverRequests()), 1)).toBe(2);
    expect((await server.call('GET', `/api/${other.org}/agents/${linked.support}`)).status).toBe(200);
    // The linked org was not touched.
    expect((await server.call('GET', `/api/${linked.org}/agents/${linked.support}`)).status).toBe(404);
  });
});
