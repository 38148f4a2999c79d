/**
 * What svc.toml accepts as people (and Lobu projects) write it: other spellings that mean one
 * svc thing, and the mistakes among them reported at file:line.
 */
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject } from './load.js';
import { formatProblem, formatWarning, type ProjectProblem } from './problems.js';
import { dedent, problemsOf, writeProject } from './test/fixture.js';

const lines = (problems: ProjectProblem[]) => problems.map(formatProblem);
const load = async (files: Record<string, string>, env: Record<string, string> = {}) =>
  loadProject(await writeProject(files), env);

const BUNDLE = (slug: string) => `version: 2\nentities:\n  - slug: ${slug}\n    name: ${slug}\n`;

describe('network.allowed and network.denied', () => {
  it('are the allowed_domains and denied_domains lists, leading dots included', async () => {
    const toml = dedent(`
      [agents.a.network]
      allowed = ["api.example.com", ".example.org"]
      denied = ["evil.example.com"]
    `);
    const project = await load({ 'svc.toml': toml });
    expect(project.agents[0]?.config.networkConfig).toEqual({
      allowedDomains: ['api.example.com', '*.example.org'],
      deniedDomains: ['evil.example.com'],
    });
  });

  it('are refused alongside their svc spelling in one table, at the alias, naming the other line', async () => {
    const toml = dedent(`
      [agents.a.network]
      allowed_domains = ["api.example.com"]
      denied_domains = ["x.example.com"]
      allowed = ["other.example.com"]
    `);
    expect(lines(await problemsOf({ 'svc.toml': toml }))).toEqual([
      'svc.toml:4:1: "allowed" and "allowed_domains" are two spellings of one list in [agents.a.network] ("allowed_domains" is at line 2: keep one of them, holding every entry)',
    ]);
  });

  it('report a bad value at the alias as written', async () => {
    const toml = dedent(`
      [agents.a.network]
      denied = ["Not A Domain"]
    `);
    expect(lines(await problemsOf({ 'svc.toml': toml }))[0]).toMatch(
      /^svc\.toml:2:11: agents\.a\.network\.denied\[0\]: /,
    );
  });

  it('are not suggested for a typo: the documented names are', async () => {
    const toml = dedent(`
      [agents.a.network]
      alowed_domains = ["api.example.com"]
    `);
    expect(lines(await problemsOf({ 'svc.toml': toml }))).toEqual([
      'svc.toml:2:1: unknown key "alowed_domains" in [agents.a.network] (did you mean "allowed_domains"?)',
    ]);
  });
});

describe('memory.models naming a folder', () => {
  it('reads every *.yaml and *.yml directly in it, in name order, and not its subfolders', async () => {
    const project = await load({
      'svc.toml': '[memory]\nmodels = ["models", "extra/one.yaml"]\n',
      'models/b.yml': BUNDLE('bee'),
      'models/a.yaml': BUNDLE('ant'),
      'models/notes.md': 'not a bundle',
      'models/drafts/c.yaml': BUNDLE('cat'),
      'extra/one.yaml': BUNDLE('one'),
    });
    expect(project.entityTypes.map((e) => e.slug)).toEqual(['ant', 'bee', 'one']);
  });

  it('takes one path written alone, and reads a file named twice (alone and in its folder) once', async () => {
    const project = await load({
      'svc.toml': '[memory]\nmodels = "models"\n',
      'models/a.yaml': BUNDLE('ant'),
    });
    expect(project.entityTypes.map((e) => e.slug)).toEqual(['ant']);
    const twice = await load({
      'svc.toml': '[memory]\nmodels = ["models/a.yaml", "models"]\n',
      'models/a.yaml': BUNDLE('ant'),
    });
    expect(twice.entityTypes.map((e) => e.slug)).toEqual(['ant']);
  });

  it("reports a folder's bundle problems in that file, and an empty folder at the line naming it", async () => {
    const problems = await problemsOf({
      'svc.toml': '[memory]\nmodels = [\n  "models",\n  "empty",\n]\n',
      'models/a.yaml': 'version: 2\nentities:\n  - slug: Bad\n    name: x\n',
      'empty/readme.txt': '',
    });
    expect(lines(problems)).toEqual([
      'svc.toml:4:3: memory bundle folder "empty" holds no *.yaml or *.yml file',
      'models/a.yaml:3:11: entities[0].slug: must be lowercase letters, digits, "_" or "-", at most 63',
    ]);
  });

  it('keeps to the project: a folder outside, or a file of the folder linking out, is not read', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'svc-outside-'));
    try {
      await writeFile(join(outside, 'secret.yaml'), 'version: 2\nentities:\n  - slug: LEAKED\n');
      const dir = await writeProject({
        'svc.toml': '[memory]\nmodels = ["models", "../"]\n',
        'models/a.yaml': BUNDLE('ant'),
      });
      await symlink(join(outside, 'secret.yaml'), join(dir, 'models/z.yaml'));
      const error = await loadProject(dir, {}).catch((e: { problems: ProjectProblem[] }) => e);
      const printed = lines((error as { problems: ProjectProblem[] }).problems);
      expect(printed).toEqual([
        'svc.toml:2:11: memory bundle "models/z.yaml" (in "models") leads outside the project folder through a symbolic link (paths are relative to the project folder and must stay inside it)',
        'svc.toml:2:21: memory bundle "../" is outside the project folder (paths are relative to the project folder and must stay inside it)',
      ]);
      expect(printed.join('\n')).not.toContain('LEAKED');
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});

const SLACK_ENV = { SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'b' };
const WA_ENV = { WA_ACCESS: 'a', WA_SECRET: 's', WA_VERIFY: 'v' };

describe('platform types as the chat apps are called', () => {
  it('reads slack, telegram and whatsapp as the svc types, with the stable ID of the svc type', async () => {
    const toml = dedent(`
      [[agents.a.platforms]]
      type = "slack"
      config = { signing_secret = "$SLACK_SIGNING_SECRET", bot_token = "$SLACK_BOT_TOKEN" }

      [[agents.a.platforms]]
      type = "telegram"
      name = "tg"
      config = { bot_token = "$TG_TOKEN", secret_token = "$TG_SECRET" }

      [[agents.a.platforms]]
      type = "whatsapp"
      name = "wa"
      config = { access_token = "$WA_ACCESS", app_secret = "$WA_SECRET", verify_token = "$WA_VERIFY", phone_number_id = "1065" }
    `);
    const env = { ...SLACK_ENV, ...WA_ENV, TG_TOKEN: 't', TG_SECRET: 's' };
    const project = await load({ 'svc.toml': toml }, env);
    expect(project.agents[0]?.platforms).toEqual([
      {
        stableId: 'a-team-chat',
        type: 'team_chat',
        config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN' },
      },
      {
        stableId: 'a-messenger-tg',
        type: 'messenger',
        name: 'tg',
        config: { bot_token: '$TG_TOKEN', secret_token: '$TG_SECRET' },
      },
      {
        stableId: 'a-messenger-wa',
        type: 'messenger',
        name: 'wa',
        config: {
          flavor: 'whatsapp',
          access_token: '$WA_ACCESS',
          app_secret: '$WA_SECRET',
          verify_token: '$WA_VERIFY',
          phone_number_id: '1065',
        },
      },
    ]);
  });

  it('names the types it reads for one it does not, with the one meant when only the case differs', async () => {
    const problems = async (type: string) =>
      lines(await problemsOf({ 'svc.toml': `[[agents.a.platforms]]\ntype = "${type}"\n` }));
    const known =
      'is not a platform type: team_chat (Slack), messenger (Telegram; WhatsApp with flavor = "whatsapp"), or the apps\' names slack, telegram, whatsapp';
    expect(await problems('Slack')).toEqual([
      `svc.toml:2:8: agents.a.platforms[0].type: "Slack" ${known} (did you mean "slack"?)`,
    ]);
    expect(await problems('team-chat')).toEqual([
      `svc.toml:2:8: agents.a.platforms[0].type: "team-chat" ${known} (did you mean "team_chat"?)`,
    ]);
    expect(await problems('discord')).toEqual([
      `svc.toml:2:8: agents.a.platforms[0].type: "discord" ${known}`,
    ]);
  });

  it('refuses a flavor that contradicts the alias, at the flavor', async () => {
    const toml = dedent(`
      [[agents.a.platforms]]
      type = "telegram"
      [agents.a.platforms.config]
      flavor = "whatsapp"
    `);
    expect(lines(await problemsOf({ 'svc.toml': toml }))).toEqual([
      'svc.toml:4:10: agents.a.platforms[0].config.flavor: "whatsapp" contradicts type = "telegram" (write type = "messenger" with the flavor meant, or remove flavor)',
    ]);
  });

  it('counts two aliases of one svc type as two platforms of that type, which need names', async () => {
    const toml = dedent(`
      [[agents.a.platforms]]
      type = "telegram"
      config = { bot_token = "$T", secret_token = "$S" }
      [[agents.a.platforms]]
      type = "whatsapp"
      config = { access_token = "$T", app_secret = "$S", verify_token = "$S", phone_number_id = "1" }
    `);
    expect(lines(await problemsOf({ 'svc.toml': toml }, { T: 't', S: 's' }))).toEqual([
      'svc.toml:1:1: agent "a" has 2 platforms of type "messenger": each needs a "name" (the stable ID, and so the webhook URL, is {agent}-{type}-{name})',
      'svc.toml:4:1: agent "a" has 2 platforms of type "messenger": each needs a "name" (the stable ID, and so the webhook URL, is {agent}-{type}-{name})',
    ]);
  });

  it('names each keyed [platforms.<type>] table at its header, with the [[...]] entry it becomes', async () => {
    const toml = dedent(`
      [agents.a.platforms.telegram]
      bot_token = "$T"

      [agents.a.platforms.main]
      type = "team_chat"
      config = { bot_token = "$T" }
    `);
    expect(lines(await problemsOf({ 'svc.toml': toml }, { T: 't' }))).toEqual([
      'svc.toml:1:1: [agents.a.platforms.telegram]: each platform is an entry of the array of tables [[agents.a.platforms]] (did you mean [[agents.a.platforms]] with type = "telegram", and these keys under [agents.a.platforms.config]?)',
      'svc.toml:4:1: [agents.a.platforms.main]: each platform is an entry of the array of tables [[agents.a.platforms]] (did you mean [[agents.a.platforms]] with type = "team_chat", "messenger", "slack", "telegram" or "whatsapp"?)',
    ]);
  });
});

describe('platform config keys', () => {
  it('refuses each camelCase spelling of a key the protocol reads, at its line, naming the key', async () => {
    const toml = dedent(`
      [[agents.a.platforms]]
      type = "slack"
      [agents.a.platforms.config]
      botToken = "$SLACK_BOT_TOKEN"
      signingSecret = "$SLACK_SIGNING_SECRET"

      [[agents.a.platforms]]
      type = "telegram"
      [agents.a.platforms.config]
      bot_token = "$SLACK_BOT_TOKEN"
      secretToken = "$SLACK_SIGNING_SECRET"

      [[agents.a.platforms]]
      type = "whatsapp"
      [agents.a.platforms.config]
      accessToken = "$WA_ACCESS"
      appSecret = "$WA_SECRET"
      verifyToken = "$WA_VERIFY"
      phoneNumberId = "1065"
    `);
    const rule = (type: string, key: string) =>
      `is not a key of a ${type}: write it as "${key}" (svc's config keys are snake_case)`;
    const slack = 'team_chat platform (Slack Events API)';
    const whatsapp = 'messenger platform with flavor "whatsapp" (WhatsApp Cloud API)';
    expect(lines(await problemsOf({ 'svc.toml': toml }, { ...SLACK_ENV, ...WA_ENV }))).toEqual(
      [
        `svc.toml:4:12: agents.a.platforms[0].config.botToken: ${rule(slack, 'bot_token')}`,
        `svc.toml:5:17: agents.a.platforms[0].config.signingSecret: ${rule(slack, 'signing_secret')}`,
        `svc.toml:11:15: agents.a.platforms[1].config.secretToken: ${rule('messenger platform (Telegram Bot API)', 'secret_token')}`,
        `svc.toml:16:15: agents.a.platforms[2].config.accessToken: ${rule(whatsapp, 'access_token')}`,
        `svc.toml:17:13: agents.a.platforms[2].config.appSecret: ${rule(whatsapp, 'app_secret')}`,
        `svc.toml:18:15: agents.a.platforms[2].config.verifyToken: ${rule(whatsapp, 'verify_token')}`,
        `svc.toml:19:17: agents.a.platforms[2].config.phoneNumberId: ${rule(whatsapp, 'phone_number_id')}`,
        // Three messengers once their types are read: the naming rule still runs in the same pass.
        'svc.toml:7:1: agent "a" has 2 platforms of type "messenger": each needs a "name" (the stable ID, and so the webhook URL, is {agent}-{type}-{name})',
        'svc.toml:13:1: agent "a" has 2 platforms of type "messenger": each needs a "name" (the stable ID, and so the webhook URL, is {agent}-{type}-{name})',
      ].sort(byLine),
    );
  });

  it('keeps a key no protocol reads, with a warning at its line naming the key it resembles', async () => {
    const toml = dedent(`
      [[agents.a.platforms]]
      type = "team_chat"
      [agents.a.platforms.config]
      signing_secret = "$SLACK_SIGNING_SECRET"
      bot_token = "$SLACK_BOT_TOKEN"
      bot_tokens = "$SLACK_BOT_TOKEN"
      app_token = "$SLACK_BOT_TOKEN"
    `);
    const project = await load({ 'svc.toml': toml }, SLACK_ENV);
    expect(project.agents[0]?.platforms[0]?.config).toMatchObject({ app_token: '$SLACK_BOT_TOKEN' });
    expect(project.warnings.map(formatWarning)).toEqual([
      'svc.toml:6:1: warning: agents.a.platforms[0].config.bot_tokens: "bot_tokens" is not read by a team_chat platform (Slack Events API); it is kept as written (did you mean "bot_token"?)',
      'svc.toml:7:1: warning: agents.a.platforms[0].config.app_token: "app_token" is not read by a team_chat platform (Slack Events API); it is kept as written (the keys it reads: signing_secret, bot_token)',
    ]);
  });
});

function byLine(a: string, b: string): number {
  const line = (s: string) => Number(s.split(':')[1]);
  return line(a) - line(b);
}
