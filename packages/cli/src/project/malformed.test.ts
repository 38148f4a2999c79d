import { describe, expect, it } from 'vitest';
import { loadProject } from './load.js';
import { formatProblem, type ProjectProblem } from './problems.js';
import { dedent, problemsOf, writeProject } from './test/fixture.js';

/** Each problem as the one line the CLI prints. */
const lines = (problems: ProjectProblem[]) => problems.map(formatProblem);

const toml = (text: string) => ({ 'svc.toml': dedent(text) });

/** Complete platform configs as inline tables, for cases about something else; SECRETS sets them. */
const SLACK = '{ signing_secret = "$SLACK_SIGNING_SECRET", bot_token = "$SLACK_BOT_TOKEN" }';
const TELEGRAM = '{ bot_token = "$TELEGRAM_BOT_TOKEN", secret_token = "$TELEGRAM_SECRET_TOKEN" }';
const SECRETS = {
  SLACK_SIGNING_SECRET: 'set',
  SLACK_BOT_TOKEN: 'set',
  TELEGRAM_BOT_TOKEN: 'set',
  TELEGRAM_SECRET_TOKEN: 'set',
};

describe('malformed svc.toml', () => {
  it('reports a TOML syntax error at smol-toml position', async () => {
    expect(lines(await problemsOf(toml('[agents.a]\nname = "A"\ndescription = \n')))).toEqual([
      'svc.toml:3:15: invalid TOML: invalid value',
    ]);
  });

  it('reports unknown keys at every level with a hint', async () => {
    const problems = await problemsOf(
      toml(`
        agnts = 1
        [agents.a]
        nmae = "A"
        [[agents.a.platforms]]
        typ = "messenger"
        [agents.a.skills.mcp.gh]
        url = "https://mcp.example.com"
        oauth = { client_id = "x", clientSecret = "$S" }
        [agents.a.guardrails]
        max_input = 3
        zzzz = 1
      `),
      { S: 'set' },
    );
    expect(lines(problems)).toEqual([
      'svc.toml:1:1: unknown key "agnts" at the top level (did you mean "agents"?)',
      'svc.toml:3:1: unknown key "nmae" in [agents.a] (did you mean "name"?)',
      'svc.toml:4:1: agents.a.platforms[0].type: is required',
      'svc.toml:5:1: unknown key "typ" in [[agents.a.platforms]] (did you mean "type"?)',
      'svc.toml:8:28: unknown key "clientSecret" in [agents.a.skills.mcp.gh.oauth] (did you mean "client_secret"?)',
      'svc.toml:10:1: unknown key "max_input" in [agents.a.guardrails] (did you mean "max_input_chars"?)',
      'svc.toml:11:1: unknown key "zzzz" in [agents.a.guardrails]',
    ]);
  });

  it('reports wrong types at the value', async () => {
    const problems = await problemsOf(
      toml(`
        [agents.a]
        name = 42
        pre_approved_tools = "github.create_issue"
        [agents.a.tools]
        max_calls_per_turn = "five"
        [agents.a.egress]
        mode = "direct"
        allowed_ports = [443, 70000]
      `),
    );
    expect(lines(problems)).toEqual([
      'svc.toml:2:8: agents.a.name: expected string, received number',
      'svc.toml:3:22: agents.a.pre_approved_tools: expected array, received string',
      'svc.toml:5:22: agents.a.tools.max_calls_per_turn: expected number, received string',
      'svc.toml:8:23: agents.a.egress.allowed_ports[1]: too big: expected number to be <=65535',
    ]);
  });

  it('reports bad agent ids with a suggestion', async () => {
    const problems = await problemsOf(toml('[agents.Support_Bot]\n[agents."-x"]\n'));
    expect(problems).toEqual([
      expect.objectContaining({ line: 1, col: 1, hint: 'did you mean "support-bot"?' }),
      expect.objectContaining({ line: 2, col: 1, hint: 'did you mean "x"?' }),
    ]);
    expect(problems[0]?.message).toMatch(/^agent id "Support_Bot" must be lowercase letters/);
  });

  it('reports a table given where a list of tables is expected, and a non-table agent', async () => {
    const problems = await problemsOf(toml('agents.b = 1\n[agents.a.providers]\nkey = "openai"\n'));
    expect(lines(problems)).toEqual([
      'svc.toml:1:12: agents.b must be a table: [agents.b]',
      'svc.toml:2:1: agents.a.providers must be an array of tables: [[agents.a.providers]]',
    ]);
  });

  it('refuses a provider secret written as a value, and a provider declared twice', async () => {
    const problems = await problemsOf(
      toml(`
        [[agents.a.providers]]
        key = "openai"
        secret_ref = "sk-live-abc"
        [[agents.a.providers]]
        key = "openai"
        secret_ref = "$OPENAI_API_KEY"
      `),
      { OPENAI_API_KEY: 'x' },
    );
    expect(lines(problems)).toEqual([
      'svc.toml:3:14: agents.a.providers[0].secret_ref: must be a reference such as "$OPENAI_API_KEY" (the value itself belongs in the environment, never in svc.toml)',
      'svc.toml:5:7: provider "openai" is declared twice on this agent',
    ]);
  });

  it('reports two unnamed platforms of one type, each at its header', async () => {
    const problems = await problemsOf(
      toml(`
        [[agents.a.platforms]]
        type = "team_chat"
        config = ${SLACK}
        [[agents.a.platforms]]
        type = "messenger"
        config = ${TELEGRAM}
        [[agents.a.platforms]]
        type = "team_chat"
        config = ${SLACK}
      `),
      SECRETS,
    );
    expect(problems.map((p) => [p.line, p.message])).toEqual([
      [1, 'agent "a" has 2 platforms of type "team_chat": each needs a "name"'],
      [7, 'agent "a" has 2 platforms of type "team_chat": each needs a "name"'],
    ]);
  });

  it('names each key a platform lacks, at its config, with the naming problems in the same run', async () => {
    const problems = await problemsOf(
      toml(`
        [[agents.a.platforms]]
        type = "team_chat"
        [agents.a.platforms.config]
        channel = "C123"
        bot_token = "xoxb-1234"

        [[agents.a.platforms]]
        type = "team_chat"
        config = { signing_secret = "$SLACK_SIGNING_SECRET", bot_token = "$SLACK_BOT_TOKEN" }

        [[agents.a.platforms]]
        type = "messenger"
        name = "WhatsApp"
        config = { flavor = "whatsapp", access_token = "$WA_TOKEN" }

        [[agents.a.platforms]]
        type = "messenger"
        name = "Signal"
        config = { flavor = "signal" }
      `),
      { ...SECRETS, WA_TOKEN: 'set' },
    );
    expect(lines(problems)).toEqual([
      'svc.toml:1:1: agent "a" has 2 platforms of type "team_chat": each needs a "name" (the stable ID, and so the webhook URL, is {agent}-{type}-{name})',
      'svc.toml:3:1: agents.a.platforms[0].config.signing_secret: is required for a team_chat platform (Slack Events API): a secret reference such as "$SLACK_SIGNING_SECRET"; store the value with "svc secrets set SLACK_SIGNING_SECRET" and write "$SLACK_SIGNING_SECRET" here',
      'svc.toml:5:13: agents.a.platforms[0].config.bot_token: must be a secret reference such as "$SLACK_BOT_TOKEN", never the secret itself: store the value with "svc secrets set SLACK_BOT_TOKEN" and write "$SLACK_BOT_TOKEN" here',
      'svc.toml:7:1: agent "a" has 2 platforms of type "team_chat": each needs a "name" (the stable ID, and so the webhook URL, is {agent}-{type}-{name})',
      'svc.toml:14:1: agents.a.platforms[2].config.app_secret: is required for a messenger platform with flavor "whatsapp" (WhatsApp Cloud API): a secret reference such as "$WHATSAPP_APP_SECRET"; store the value with "svc secrets set WHATSAPP_APP_SECRET" and write "$WHATSAPP_APP_SECRET" here',
      'svc.toml:14:1: agents.a.platforms[2].config.verify_token: is required for a messenger platform with flavor "whatsapp" (WhatsApp Cloud API): a secret reference such as "$WHATSAPP_VERIFY_TOKEN"; store the value with "svc secrets set WHATSAPP_VERIFY_TOKEN" and write "$WHATSAPP_VERIFY_TOKEN" here',
      'svc.toml:14:1: agents.a.platforms[2].config.phone_number_id: is required for a messenger platform with flavor "whatsapp" (WhatsApp Cloud API): the phone number ID (Meta App Dashboard > WhatsApp > API Setup), or a reference such as "$WHATSAPP_PHONE_NUMBER_ID"',
      'svc.toml:19:21: agents.a.platforms[3].config.flavor: must be "telegram" (the default when absent) or "whatsapp"',
    ]);
    // The literal is named by its key, never repeated.
    expect(lines(problems).join('\n')).not.toContain('xoxb-1234');
  });

  it('reports stable IDs that collide, within an agent and across agents', async () => {
    const problems = await problemsOf(
      toml(`
        [[agents.a.platforms]]
        type = "team_chat"
        name = "Main"
        config = ${SLACK}
        [[agents.a.platforms]]
        type = "team_chat"
        name = "main!"
        config = ${SLACK}
        [[agents.x.platforms]]
        type = "messenger"
        name = "team chat"
        config = ${TELEGRAM}
        [[agents.x-messenger.platforms]]
        type = "team_chat"
        config = ${SLACK}
      `),
      SECRETS,
    );
    expect(lines(problems)).toEqual([
      'svc.toml:7:8: platform stable ID "a-team-chat-main" is already used by the platform at svc.toml:1 (give one of them another "name")',
      'svc.toml:13:1: platform stable ID "x-messenger-team-chat" is already used by the platform at svc.toml:9 (give one of them another "name")',
    ]);
  });

  it('reports a platform name that slugifies to nothing', async () => {
    const problems = await problemsOf(
      toml(`[[agents.a.platforms]]\ntype = "messenger"\nname = "!!!"\nconfig = ${TELEGRAM}\n`),
      SECRETS,
    );
    expect(problems).toEqual([expect.objectContaining({ line: 3, col: 8 })]);
    expect(problems[0]?.message).toMatch(/^agents\.a\.platforms\[0\]\.name: must contain a letter/);
  });

  it('reports settings that core refuses, at the TOML key names', async () => {
    const problems = await problemsOf(
      toml(`
        [agents.a.model_selection]
        mode = "pinned"
        model = "openai/gpt-4.1"
        providers = ["openai"]
        [agents.a.skills.mcp.gh]
        command = "x"
        url = "https://x.example.com"
        [[agents.a.skills.list]]
        name = "Web Search"
        [agents.a.provider_model_preferences.openai]
        fallback_models = []
      `),
    );
    expect(lines(problems)).toEqual([
      'svc.toml:4:1: key "providers" is not allowed in [agents.a.model_selection] with these values',
      'svc.toml:7:7: agents.a.skills.mcp.gh.url: set exactly one of "url" or "command"',
      'svc.toml:9:8: agents.a.skills.list[0].name: must be a skill name such as "web-search"',
      'svc.toml:10:1: agents.a.provider_model_preferences.openai.model: is required',
    ]);
  });

  it('reports a named agent folder that does not exist, and a too long Markdown file', async () => {
    const problems = await problemsOf({
      ...toml('[agents.a]\ndir = "nowhere"\n[agents.b]\n'),
      'agents/b/IDENTITY.md': 'x'.repeat(262_145),
    });
    expect(lines(problems)).toEqual([
      'svc.toml:2:7: agents.a.dir: folder "nowhere" not found',
      'agents/b/IDENTITY.md:1:1: IDENTITY.md is longer than 262144 characters (262145)',
    ]);
  });
});

describe('agent files named almost right', () => {
  it('are problems, not absent files that would clear the setting', async () => {
    const problems = await problemsOf({ 'svc.toml': '[agents.a]\n', 'agents/a/Soul.md': 'Be kind.\n' });
    expect(lines(problems)).toEqual([
      'agents/a/Soul.md:1:1: "Soul.md" is not read: the file must be named exactly SOUL.md',
    ]);
  });
});

describe('text the server cannot store', () => {
  it('is reported at its file:line:col in svc.toml, a Markdown file and a bundle, before any request', async () => {
    const problems = await problemsOf({
      'svc.toml': '[agents.a]\nname = "A\\u0000"\n\n[memory]\nmodels = ["m.yaml"]\n',
      'agents/a/SOUL.md': 'Be kind.\nBe \u0000brief.\n',
      'm.yaml': 'version: 2\nentities:\n  - slug: person\n    name: "Per\\0son"\n',
    });
    expect(lines(problems)).toEqual([
      'svc.toml:2:8: agents.a.name: contains a NUL character, which the server cannot store',
      'agents/a/SOUL.md:2:4: SOUL.md contains a NUL character, which the server cannot store',
      'm.yaml:4:11: entities[0].name: contains a NUL character, which the server cannot store',
    ]);
  });

  it('accepts emoji, whose surrogates come in pairs', async () => {
    const dir = await writeProject({ 'svc.toml': '[agents.a]\nname = "A 🚀"\n', 'agents/a/SOUL.md': '🚀\n' });
    expect((await loadProject(dir, {})).agents[0]?.config['SOUL.md']).toBe('🚀\n');
  });
});

describe('malformed memory bundles', () => {
  const project = (bundles: Record<string, string>, extra = '') => ({
    'svc.toml': `[agents.support]\n${extra}[memory]\nmodels = ${JSON.stringify(Object.keys(bundles))}\n`,
    ...Object.fromEntries(Object.entries(bundles).map(([f, t]) => [f, dedent(t)])),
  });

  it('reports YAML syntax errors at their LinePos, several per file', async () => {
    const problems = await problemsOf(project({ 'm.yaml': 'version: 2\nentities: [\n  - a: b: c\n' }));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.file === 'm.yaml' && p.message.startsWith('invalid YAML: '))).toBe(true);
    expect(problems[0]?.line).toBeGreaterThanOrEqual(2);
    expect(problems[0]?.message).not.toMatch(/at line/);
  });

  it('reports a duplicate key', async () => {
    expect(lines(await problemsOf(project({ 'm.yaml': 'version: 2\nversion: 2\n' })))).toEqual([
      'm.yaml:2:1: invalid YAML: Map keys must be unique',
    ]);
  });

  it('reports the version, unknown keys and bad items', async () => {
    const problems = await problemsOf(
      project({
        'm.yaml': `
          entitys: []
          entities:
            - slug: customer
              nmae: Customer
            - slug: Bad Slug
              name: X
          relationships: {}
        `,
      }),
    );
    expect(lines(problems)).toEqual([
      'm.yaml:1:1: unknown key "entitys" at the top level (did you mean "entities"?)',
      'm.yaml:1:1: version must be 2 (it is missing)',
      'm.yaml:3:5: entities[0].name: is required',
      'm.yaml:4:5: unknown key "nmae" in entities[0] (did you mean "name"?)',
      'm.yaml:5:11: entities[1].slug: must be lowercase letters, digits, "_" or "-", at most 63',
      'm.yaml:7:16: relationships must be a list',
    ]);
  });

  it('reports a bundle that is not a mapping, and a missing or twice-listed bundle file', async () => {
    const problems = await problemsOf({
      'svc.toml': '[memory]\nmodels = ["list.yaml", "gone.yaml", "./list.yaml"]\n',
      'list.yaml': '- 1\n- 2\n',
    });
    expect(lines(problems)).toEqual([
      'svc.toml:2:24: memory bundle "gone.yaml" not found',
      'svc.toml:2:37: memory bundle "./list.yaml" is listed twice',
      'list.yaml:1:1: a memory bundle must be a mapping with "version: 2"',
    ]);
  });

  it('reports duplicate slugs across bundles, naming both places', async () => {
    const problems = await problemsOf(
      project({
        'a.yaml': 'version: 2\nentities:\n  - slug: customer\n    name: Customer\n',
        'b.yaml':
          'version: 2\nentities:\n  - slug: lead\n    name: Lead\n  - slug: customer\n    name: Client\n',
      }),
    );
    expect(lines(problems)).toEqual([
      'b.yaml:5:11: duplicate entity type slug "customer": also defined at a.yaml:3:11',
    ]);
  });

  it('keeps kinds apart: an entity type and a relationship type may share a slug', async () => {
    const problems = await problemsOf(
      project(
        {
          'a.yaml':
            'version: 2\nentities:\n  - {slug: owns, name: Owns}\nrelationships:\n  - {slug: owns, name: Owns}\n',
        },
        'name = 1\n',
      ),
    );
    expect(lines(problems)).toEqual(['svc.toml:2:8: agents.support.name: expected string, received number']);
  });

  it('reports a watcher naming an agent that svc.toml does not declare', async () => {
    const problems = await problemsOf(
      project({
        'w.yaml': `
          version: 2
          watchers:
            - slug: digest
              name: Digest
              schedule: "0 9 * * *"
              prompt: Summarise.
              agent: sales
        `,
      }),
    );
    expect(lines(problems)).toEqual([
      'w.yaml:7:12: watchers[0].agent: watcher "digest" names agent "sales", which svc.toml does not declare (declared agents: "support")',
    ]);
  });

  it('reports a bad cron, a 6-field cron and a bad time zone', async () => {
    const watcher = (slug: string, schedule: string, tz = 'UTC') =>
      `  - {slug: ${slug}, name: W, schedule: "${schedule}", prompt: p, agent: support, timezone: ${tz}}\n`;
    const problems = await problemsOf(
      project({
        'w.yaml': `version: 2\nwatchers:\n${watcher('a', 'every day')}${watcher('b', '*/10 * * * * *')}${watcher('c', '0 9 * * *', 'Mars/Base')}`,
      }),
    );
    expect(problems.map((p) => [p.file, p.line, p.message])).toEqual([
      ['w.yaml', 3, 'watchers[0].schedule: must have 5 fields (minute hour day month weekday), got 2'],
      ['w.yaml', 4, 'watchers[1].schedule: must have 5 fields (minute hour day month weekday), got 6'],
      ['w.yaml', 5, 'watchers[2].timezone: must be an IANA time zone such as "Europe/Berlin"'],
    ]);
    const invalid = await problemsOf(
      project({ 'w.yaml': `version: 2\nwatchers:\n${watcher('a', '61 * * * *')}` }),
    );
    expect(invalid).toEqual([
      expect.objectContaining({
        line: 3,
        message: expect.stringMatching(/^watchers\[0\]\.schedule: is not a valid cron/),
      }),
    ]);
  });
});
