import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { dedent, writeProject } from '../project/test/fixture.js';
import { translateQuery } from './sql-sources.js';
import { readTree, runImport, tempDir } from './test/run-import.js';

/** One class of Lobu key at a time: providers, secrets, schedules, bundles, watchers, errors. */

async function imported(files: Record<string, string>) {
  const dir = await writeProject(files);
  const run = await runImport({ dir, json: true });
  const tree = run.code === 1 ? {} : await readTree(`${dir}-svc`);
  return { dir, run, tree, toml: tree['svc.toml'] ? (parseToml(tree['svc.toml']) as any) : null };
}

// Values shaped like real credentials: none may appear in what the import writes or prints.
const LITERALS = {
  provider: 'sk-or-v1-4f3c2a9e8b7d6c5b4a39281706f5e4d3',
  botToken: '123456789:AAHfiqksKZ8WmR2zSjiQ7_v4TMAKdiHm9T0',
  header: 'Bearer ghp_R4nd0mT0k3nV4lu3xxxxxxxxxxxxxxx',
  clientSecret: 'oauth-client-secret-9a8b7c',
  secretStore: 'secret://org/providers/anthropic',
};

describe('svc import lobu: providers and secrets', () => {
  it('writes references only: a key written as a value is never copied, and the report names the variable', async () => {
    const { run, tree, toml } = await imported({
      'lobu.toml': dedent(`
        [agents.bot]
        name = "bot"
        dir = "./agents/bot"

        [[agents.bot.providers]]
        id = "openrouter"
        model = "anthropic/claude-sonnet-4"
        key = "${LITERALS.provider}"

        [[agents.bot.providers]]
        id = "anthropic"
        secret_ref = "${LITERALS.secretStore}"

        [[agents.bot.providers]]
        id = "together-ai"
        key = "$TOGETHER_KEY"

        [[agents.bot.platforms]]
        type = "telegram"
        [agents.bot.platforms.config]
        botToken = "${LITERALS.botToken}"

        [agents.bot.skills.mcp.github]
        url = "https://api.githubcopilot.com/mcp/"
        headers = { Authorization = "${LITERALS.header}" }

        [agents.bot.skills.mcp.github.oauth]
        auth_url = "https://github.com/login/oauth/authorize"
        token_url = "https://github.com/login/oauth/access_token"
        client_id = "Iv1.abc"
        client_secret = "${LITERALS.clientSecret}"
      `),
    });
    expect(run.code, run.out).toBe(0);
    const everything = JSON.stringify(tree) + run.out + run.err;
    for (const literal of Object.values(LITERALS)) expect(everything).not.toContain(literal);
    const bot = toml.agents.bot;
    expect(bot.providers).toEqual([
      { key: 'openrouter', secret_ref: '$OPENROUTER_API_KEY' },
      { key: 'anthropic', secret_ref: '$ANTHROPIC_API_KEY' },
      { key: 'together', secret_ref: '$TOGETHER_KEY' },
    ]);
    expect(bot.provider_model_preferences).toEqual({ openrouter: { model: 'anthropic/claude-sonnet-4' } });
    expect(bot.model_selection).toEqual({ mode: 'auto', providers: ['openrouter', 'anthropic', 'together'] });
    expect(bot.platforms[0].config).toEqual({
      bot_token: '$TELEGRAM_BOT_TOKEN',
      secret_token: '$TELEGRAM_SECRET_TOKEN',
    });
    expect(bot.skills.mcp.github).toEqual({
      url: 'https://api.githubcopilot.com/mcp/',
      headers: { Authorization: '$BOT_GITHUB_HEADERS_AUTHORIZATION' },
      oauth: { client_id: 'Iv1.abc', client_secret: '$BOT_GITHUB_CLIENT_SECRET' },
    });
    const secrets = run.json?.steps.filter((s) => s.kind === 'secret').map((s) => s.command);
    expect(secrets).toEqual(
      expect.arrayContaining([
        'svc secrets set OPENROUTER_API_KEY',
        'svc secrets set ANTHROPIC_API_KEY',
        'svc secrets set TOGETHER_KEY',
        'svc secrets set TELEGRAM_BOT_TOKEN',
        'openssl rand -hex 32 | svc secrets set TELEGRAM_SECRET_TOKEN',
        'svc secrets set BOT_GITHUB_HEADERS_AUTHORIZATION',
        'svc secrets set BOT_GITHUB_CLIENT_SECRET',
      ]),
    );
    const key = run.json?.entries.find((e) => e.lobu === 'agents.bot.providers[0].key');
    expect(key).toMatchObject({ outcome: 'translated', at: 'lobu.toml:8' });
    expect(key?.why).toContain('not copied');
    expect(run.json?.entries.find((e) => e.lobu === 'agents.bot.providers[2].id')?.svc).toBe(
      'svc.toml agents.bot.providers[2].key',
    );
  });
});

describe('svc import lobu: platforms', () => {
  it('keeps a WhatsApp phone number id written as a value, never a token, and names variables per agent', async () => {
    const { run, toml } = await imported({
      'lobu.toml': dedent(`
        [agents.sales]
        name = "sales"
        dir = "./agents/sales"
        [[agents.sales.platforms]]
        type = "whatsapp"
        config = { accessToken = "EAAG-literal-access-token", phoneNumberId = "106540352242922" }

        [agents.support]
        name = "support"
        dir = "./agents/support"
        [agents.support.platforms.telegram]
      `),
    });
    expect(run.code, run.out).toBe(0);
    expect(run.out + JSON.stringify(toml)).not.toContain('EAAG-literal-access-token');
    expect(toml.agents.sales.platforms[0].config).toEqual({
      flavor: 'whatsapp',
      access_token: '$SALES_WHATSAPP_ACCESS_TOKEN',
      phone_number_id: '106540352242922',
      app_secret: '$SALES_WHATSAPP_APP_SECRET',
      verify_token: '$SALES_WHATSAPP_VERIFY_TOKEN',
    });
    expect(toml.agents.support.platforms[0].config).toEqual({
      bot_token: '$SUPPORT_TELEGRAM_BOT_TOKEN',
      secret_token: '$SUPPORT_TELEGRAM_SECRET_TOKEN',
    });
  });
});

describe('svc import lobu: schedules', () => {
  it('turns deliver_to of a Slack connection into a notification channel on the svc platform', async () => {
    const { run, tree } = await imported({
      'lobu.toml': dedent(`
        [agents.ops]
        name = "ops"
        dir = "./agents/ops"

        [[agents.ops.connections]]
        type = "slack"
        name = "main"
        config = { botToken = "$SLACK_BOT_TOKEN", signingSecret = "$SLACK_SIGNING_SECRET" }

        [[agents.ops.schedules]]
        id = "standup"
        cron = "0 9 * * 1-5"
        task = "Post the standup."
        deliver_to = "slack:ops-slack-main:C0123:1700000000.0001"
        concurrency = "skip"

        [[agents.ops.schedules]]
        id = "every-second"
        cron = "* * * * * *"
        task = "Too often."
      `),
    });
    expect(run.code, run.out).toBe(0);
    const bundle = parseYaml(tree['models/lobu-schedules.yaml'] as string);
    expect(bundle.watchers).toEqual([
      {
        slug: 'standup',
        name: 'standup',
        schedule: '0 9 * * 1-5',
        prompt: 'Post the standup.',
        agent: 'ops',
        notification_channel: { platform: 'ops-team-chat-main', channel: 'C0123', thread: '1700000000.0001' },
      },
    ]);
    const dropped = run.json?.entries.filter((e) => e.outcome === 'dropped').map((e) => e.lobu);
    expect(dropped).toEqual(
      expect.arrayContaining(['agents.ops.schedules[0].concurrency', 'agents.ops.schedules[1]']),
    );
  });
});

describe('svc import lobu: memory bundles', () => {
  const lobuToml = (agents: string[]) =>
    `${agents.map((a) => `[agents.${a}]\nname = "${a}"\ndir = "./agents/${a}"\n`).join('\n')}\n[memory]\nmodels = "./models"\n`;

  it('regroups v1 files into v2 bundles, drops what svc cannot hold and keeps the rest', async () => {
    const { run, tree } = await imported({
      'lobu.toml': lobuToml(['crm']),
      'models/company.yaml': dedent(`
        version: 1
        type: entity
        slug: company
        name: Company
        icon: building
        color: "#2563eb"
        metadata_schema:
          type: object
          properties:
            domain:
              type: string
              x-table-column: true
      `),
      'models/nested/works_at.yml': dedent(`
        version: 1
        type: relationship
        slug: works_at
        name: Works At
        rules:
          - { source: "$member", target: company }
          - { source: company, target: company }
        auto_create_when:
          - sourceNamespace: hosted_domain
            targetField: domain
      `),
      'models/multi.yaml': dedent(`
        version: 1
        type: entity
        slug: person
        name: Person
        metadata_schema: {type: objekt}
        ---
        version: 1
        type: watcher
        slug: weekly
        name: Weekly
        schedule: "0 9 * * 1"
        prompt: Summarise the week.
        extraction_schema: {type: string}
      `),
    });
    expect(run.code, run.out).toBe(0);
    expect(parseYaml(tree['models/company.yaml'] as string)).toEqual({
      version: 2,
      entities: [
        {
          slug: 'company',
          name: 'Company',
          icon: 'building',
          color: '#2563eb',
          metadata_schema: {
            type: 'object',
            properties: { domain: { type: 'string', 'x-table-column': true } },
          },
        },
      ],
    });
    expect(parseYaml(tree['models/nested/works_at.yaml'] as string).relationships).toEqual([
      { slug: 'works_at', name: 'Works At', rules: [{ source: 'company', target: 'company' }] },
    ]);
    const multi = parseYaml(tree['models/multi.yaml'] as string);
    expect(multi.entities).toEqual([{ slug: 'person', name: 'Person' }]);
    expect(multi.watchers).toEqual([
      { slug: 'weekly', name: 'Weekly', schedule: '0 9 * * 1', prompt: 'Summarise the week.', agent: 'crm' },
    ]);
    const why = (lobu: string) => run.json?.entries.find((e) => e.lobu === lobu)?.why ?? '';
    expect(
      why('models/nested/works_at.yml relationship works_at rules {source: $member, target: company}'),
    ).toContain('$member');
    expect(why('models/nested/works_at.yml relationship works_at auto_create_when')).toContain('identit');
    expect(why('models/multi.yaml entity person metadata_schema')).toContain('svc would refuse it');
    expect(why('models/multi.yaml watcher weekly extraction_schema')).toContain('type');
  });

  it('translates simple SQL sources and drops the others with the reason', async () => {
    const { run, tree } = await imported({
      'lobu.toml': lobuToml(['crm']),
      'models/schema.yaml': dedent(`
        version: 2
        entities:
          - {slug: founder, name: Founder}
        watchers:
          - slug: founders
            name: Founders
            schedule: "0 10 * * *"
            prompt: What did founders say?
            sources:
              - name: posts
                query: SELECT id FROM events WHERE connector_key IN ('x') AND origin_type IN ('tweet')
              - name: content
                query: SELECT id, title FROM events WHERE entity_id IN (SELECT id FROM entities WHERE entity_type = 'founder') ORDER BY occurred_at DESC LIMIT 300
              - name: mail
                query: SELECT id FROM events WHERE connector_key = 'google.gmail' ORDER BY occurred_at DESC LIMIT 200
      `),
    });
    expect(run.code, run.out).toBe(0);
    const watcher = parseYaml(tree['models/schema.yaml'] as string).watchers[0];
    expect(watcher.sources).toEqual([
      { name: 'content', entity_type: 'founder' },
      { name: 'mail', connector: 'google.gmail' },
    ]);
    expect(
      run.json?.entries.find((e) => e.lobu === 'models/schema.yaml watcher founders sources posts'),
    ).toMatchObject({
      outcome: 'dropped',
      at: 'models/schema.yaml:5',
    });
  });

  it("fills a watcher's agent only when the project has one agent", async () => {
    const { run, tree } = await imported({
      'lobu.toml': lobuToml(['sales', 'support']),
      'models/w.yaml': dedent(`
        version: 2
        watchers:
          - {slug: a, name: A, schedule: "0 9 * * *", prompt: P}
          - {slug: b, name: B, schedule: "0 9 * * *", prompt: P, agent: support}
      `),
    });
    expect(run.code, run.out).toBe(0);
    expect(parseYaml(tree['models/w.yaml'] as string).watchers.map((w: any) => w.slug)).toEqual(['b']);
    expect(run.json?.entries.find((e) => e.lobu === 'models/w.yaml watcher a')?.why).toContain('has 2');
  });

  it('translates each SQL filter shape, and nothing more', () => {
    expect(translateQuery("SELECT * FROM events WHERE connector_key = 'rss'")).toEqual([
      { connector: 'rss' },
    ]);
    expect(translateQuery("select id from events where connector_key in ('a', 'b') limit 5")).toEqual([
      { connector: 'a' },
      { connector: 'b' },
    ]);
    expect(
      translateQuery(
        "SELECT id FROM events WHERE connector_key = 'x' AND entity_id IN (SELECT id FROM entities WHERE entity_type = 'founder')",
      ),
    ).toEqual([{ connector: 'x', entity_type: 'founder' }]);
    expect(translateQuery('SELECT id FROM events ORDER BY occurred_at DESC LIMIT 10')).toEqual([]);
    expect(translateQuery("SELECT id FROM events WHERE origin_type = 'tweet'")).toBeNull();
    expect(translateQuery("SELECT id FROM entities WHERE entity_type = 'founder'")).toBeNull();
    expect(
      translateQuery("SELECT id FROM events WHERE connector_key = 'x' OR connector_key = 'y'"),
    ).toBeNull();
  });
});

describe('svc import lobu: what it refuses, writing nothing', () => {
  it('a lobu.toml that does not parse: file:line:col, exit 1, no folder', async () => {
    const dir = await writeProject({ 'lobu.toml': '[agents.a]\nname = "a"\ndir = \n' });
    const run = await runImport({ dir });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^svc import lobu: lobu\.toml:3:\d+: invalid TOML/);
    expect(run.err).toContain('Nothing was written.');
    await expect(readdir(`${dir}-svc`)).rejects.toThrow();
  });

  it('no lobu.toml: exit 1, saying where it looked', async () => {
    const dir = await tempDir();
    const run = await runImport({ dir });
    expect(run.code).toBe(1);
    expect(run.err).toContain(`no lobu.toml in ${dir}`);
  });

  it('a non-empty --out only with --force, and never the Lobu project itself', async () => {
    const dir = await writeProject({ 'lobu.toml': '[agents.a]\nname = "a"\ndir = "."\n' });
    const out = join(await tempDir(), 'out');
    expect((await runImport({ dir, out })).code).toBe(0);
    const again = await runImport({ dir, out });
    expect(again.code).toBe(1);
    expect(again.err).toContain('is not empty');
    expect((await runImport({ dir, out, force: true })).code).toBe(0);
    const itself = await runImport({ dir, out: dir, force: true });
    expect(itself.code).toBe(1);
    expect(itself.err).toContain('is the Lobu project itself');
  });
});
