import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  createToken,
  startTestServer,
  type TestServer,
} from '../../../server/test/harness.js';
import { applyInProcess } from '../../test/apply-in-process.js';
import { type RecordingProxy, startRecordingProxy } from '../../test/recording-proxy.js';
import { dedent, writeProject } from '../project/test/fixture.js';
import type { ApplyFlags } from './command.js';

const CANARY = 'canary-7c1e9f-do-not-leak';

const SVC_TOML = dedent(`
  [agents.support]
  name = "Support"
  description = "Answers customers"

  [[agents.support.platforms]]
  type = "team_chat"
  [agents.support.platforms.config]
  signing_secret = "$SLACK_SIGNING_SECRET"
  bot_token = "$SLACK_TOKEN"
  channel = "C123"

  [agents.support.network]
  allowed_domains = ["api.example.com"]

  [agents.ops]
  name = "Ops"

  [memory]
  models = ["models/core.yaml"]
`);
/** `channel` is a key no protocol reads: kept, and warned about on every run (stderr). */
const CHANNEL_WARNING =
  'svc.toml:10:1: warning: agents.support.platforms[0].config.channel: "channel" is not read by a team_chat platform (Slack Events API); it is kept as written (the keys it reads: signing_secret, bot_token)';

/** A complete messenger config (Telegram); its variables are unset, which is one more problem. */
const TELEGRAM = 'config = { bot_token = "$TG_TOKEN", secret_token = "$TG_SECRET" }\n';

const BUNDLE = dedent(`
  version: 2
  entities:
    - slug: person
      name: Person
  relationships:
    - slug: knows
      name: Knows
  watchers:
    - slug: daily
      name: Daily
      schedule: "0 9 * * *"
      prompt: Summarise the day
      agent: support
`);

let server: TestServer;
let proxy: RecordingProxy;
let token: string;
beforeAll(async () => {
  server = await startTestServer();
  proxy = await startRecordingProxy(server.url);
  token = (await createToken(server, 'default', ['write'])).secret;
});
afterAll(() => proxy.close());

async function project(extra: Record<string, string> = {}): Promise<string> {
  return writeProject({
    'svc.toml': SVC_TOML,
    'agents/support/SOUL.md': 'Be kind.\n',
    'models/core.yaml': BUNDLE,
    ...extra,
  });
}

/** Runs `svc apply` in-process with captured output and no terminal, through the recording proxy. */
async function apply(dir: string, flags: Partial<ApplyFlags> = {}, env: Record<string, string> = {}) {
  const base = {
    SVC_API_TOKEN: token,
    SVC_URL: proxy.url,
    SLACK_TOKEN: CANARY,
    SLACK_SIGNING_SECRET: CANARY,
    XDG_CONFIG_HOME: dir,
  };
  return applyInProcess(dir, flags, { ...base, ...env });
}

describe('svc apply', () => {
  it('creates, then converges: the second run is all noop and sends no write', async () => {
    const dir = await project();
    const first = await apply(dir, { yes: true });
    expect(first.code, first.err).toBe(0);
    expect(first.out).toMatch(/created agent support/);
    expect(first.out).toMatch(/Applied 7 changes to org default\./);
    // This server has no SVC_PUBLIC_URL: the webhook URL is a path, and the output says so.
    expect(first.out.split('Applied 7 changes to org default.\n')[1]).toBe(
      [
        '',
        'Webhook of support-team-chat (Slack Events API):',
        '  /api/v1/webhooks/support-team-chat',
        '  this is a path, not a URL: the server has no SVC_PUBLIC_URL. Prefix the public https address where Slack reaches the server, or set SVC_PUBLIC_URL on the server',
        "  paste it in your Slack app's Event Subscriptions > Request URL",
      ].join('\n'),
    );

    const writesBefore = proxy.writes().length;
    const requestsBefore = proxy.requests.length;
    const second = await apply(dir, { yes: true });
    expect(second.code).toBe(0);
    expect(second.out).toMatch(/Plan: 0 to create, 0 to update, \d+ unchanged, 0 drift/);
    expect(second.out).toMatch(/Nothing to apply/);
    // The one write records the manifest again, which the server answers "unchanged".
    expect(
      proxy
        .writes()
        .slice(writesBefore)
        .map((r) => `${r.method} ${r.url}`),
    ).toEqual(['PUT /api/default/apply-manifest']);
    expect(proxy.requests.length - requestsBefore).toBe(3); // the plan's two reads, and the manifest
    expect(second.out).not.toContain('Webhook of');
  });

  it('never lets the canary secret out: not in a request, a header, the plan or the output', async () => {
    const dir = await project();
    const run = await apply(dir, { yes: true, json: false });
    const json = await apply(dir, { dryRun: true, json: true });
    for (const request of proxy.requests) {
      expect(JSON.stringify(request)).not.toContain(CANARY);
    }
    expect(run.out + run.err + json.out + json.err).not.toContain(CANARY);
    expect(JSON.parse(json.out).format_version).toBe(1);
  });

  it('sends providers with their references, and converges', async () => {
    const dir = await project({
      'svc.toml': `${SVC_TOML}\n[[agents.support.providers]]\nkey = "openai"\nsecret_ref = "$OPENAI_API_KEY"\n`,
    });
    const env = { OPENAI_API_KEY: CANARY };
    expect((await apply(dir, { yes: true }, env)).code).toBe(0);
    const { agent } = (await server.call('GET', '/api/default/agents/support')).body;
    expect(agent.providers).toMatchObject([{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }]);
    expect((await apply(dir, { dryRun: true, detailedExitcode: true }, env)).code).toBe(0);
    for (const request of proxy.requests) expect(JSON.stringify(request)).not.toContain(CANARY);
  });

  it('clears SOUL.md when its file is deleted', async () => {
    const dir = await project();
    await apply(dir, { yes: true });
    await rm(join(dir, 'agents/support/SOUL.md'));
    const run = await apply(dir, { yes: true });
    expect(run.out).toMatch(/~ update support\n\s+SOUL\.md cleared/);
    const { agent } = (await server.call('GET', '/api/default/agents/support?include=config')).body;
    expect(agent.config['SOUL.md']).toBeNull();
  });

  it('shows an agent removed from svc.toml as drift and leaves it on the server', async () => {
    const dir = await project();
    await apply(dir, { yes: true });
    await writeFile(join(dir, 'svc.toml'), SVC_TOML.replace('[agents.ops]\nname = "Ops"\n', ''));
    const run = await apply(dir, { yes: true });
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/\? drift\s+ops/);
    expect((await server.call('GET', '/api/default/agents/ops')).status).toBe(200);
  });

  it("lists every variable that is neither set here nor one of the org's secrets, and writes nothing", async () => {
    const dir = await project({
      'svc.toml': `${SVC_TOML}\n[[agents.ops.platforms]]\ntype = "messenger"\n[agents.ops.platforms.config]\nbot_token = "\${TG_TOKEN}"\nsecret_token = "$TG_SECRET"\n`,
    });
    const before = proxy.requests.length;
    const writes = proxy.writes().length;
    const run = await apply(dir, { yes: true }, { SLACK_TOKEN: '' });
    expect(run.code).toBe(1);
    expect(run.err.split('\n')).toEqual([
      CHANNEL_WARNING,
      'svc.toml:9:13: environment variable SLACK_TOKEN is empty (referenced by agents.support.platforms[0].config.bot_token), ' +
        'and org default has no secret SLACK_TOKEN either (store it in the org: svc secrets set SLACK_TOKEN --org default, or set it here)',
      'svc.toml:24:13: environment variable TG_TOKEN is not set (referenced by agents.ops.platforms[0].config.bot_token), ' +
        'and org default has no secret TG_TOKEN either (store it in the org: svc secrets set TG_TOKEN --org default, or set it here)',
      'svc.toml:25:16: environment variable TG_SECRET is not set (referenced by agents.ops.platforms[0].config.secret_token), ' +
        'and org default has no secret TG_SECRET either (store it in the org: svc secrets set TG_SECRET --org default, or set it here)',
      'svc apply: fix the 3 problems above; nothing was changed',
    ]);
    // One read: the names of the org's secrets.
    expect(proxy.requests.slice(before).map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/default/secrets',
    ]);
    expect(proxy.writes().length).toBe(writes);
  });

  it("takes a variable unset here that is one of the org's secrets, as the server resolves it", async () => {
    const dir = await project({
      'svc.toml': `${SVC_TOML}\n[[agents.support.providers]]\nkey = "openai"\nsecret_ref = "$ORG_ONLY_KEY"\n`,
    });
    const missing = await apply(dir, { yes: true });
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/svc secrets set ORG_ONLY_KEY --org default/);
    // What its own advice says to do.
    const stored = await server.call('PUT', '/api/default/secrets/ORG_ONLY_KEY', { body: { value: CANARY } });
    expect(stored.status).toBe(201);
    const run = await apply(dir, { yes: true });
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/^Not set here, resolved from org default's secrets: \$ORG_ONLY_KEY$/m);
    const { agent } = (await server.call('GET', '/api/default/agents/support')).body;
    expect(agent.providers).toMatchObject([{ key: 'openai', secret_ref: '$ORG_ONLY_KEY', status: 'ok' }]);
  });

  it('without a terminal and without --yes, exits 1 at once naming --yes; --dry-run --detailed-exitcode says 2', async () => {
    const dir = await project({ 'agents/support/SOUL.md': 'Changed.\n' });
    const before = proxy.writes().length;
    const run = await apply(dir);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/re-run with --yes/);
    expect(proxy.writes().length).toBe(before);
    expect((await apply(dir, { dryRun: true, detailedExitcode: true })).code).toBe(2);
    expect((await apply(dir, { dryRun: true })).code).toBe(0);
  });

  it('prints partial progress when the Nth write fails, exits 1, and a re-run converges', async () => {
    const dir = await project();
    await apply(dir, { yes: true });
    // Two settings changes on a converged org; the first write fails.
    await writeFile(join(dir, 'agents/support/SOUL.md'), 'Third version.\n');
    await mkdir(join(dir, 'agents/ops'), { recursive: true });
    await writeFile(join(dir, 'agents/ops/IDENTITY.md'), '# Ops\n');
    proxy.failWriteAt(1);
    const failed = await apply(dir, { yes: true, concurrency: 1 });
    proxy.failWriteAt(0);
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(/0 of 2 changes applied before a failure/);
    expect(failed.err).toMatch(/failed: settings \w+: disk full \(internal_error\)/);
    expect(failed.err).toMatch(/run svc apply again to converge/);
    const again = await apply(dir, { yes: true });
    expect(again.code).toBe(0);
    expect((await apply(dir, { dryRun: true, detailedExitcode: true })).code).toBe(0);
  });
});

describe('svc apply: the manifest of what the project declares', () => {
  const manifestRequests = (from: number) =>
    proxy.requests.slice(from).filter((r) => r.url === '/api/default/apply-manifest');
  const manifest = async () => (await server.call('GET', '/api/default/apply-manifest')).body.manifest;

  it('is on the server after an apply: ids only, sorted, named after the project folder', async () => {
    const dir = await project();
    const from = proxy.requests.length;
    const run = await apply(dir, { yes: true });
    expect(run.code, run.err).toBe(0);
    expect(await manifest()).toEqual({
      project: basename(dir),
      agents: ['ops', 'support'],
      platforms: ['support-team-chat'],
      entityTypes: ['person'],
      relationshipTypes: ['knows'],
      watchers: ['daily'],
      appliedAt: expect.any(String),
    });
    // Sent once, last, with ids and the folder's name only.
    const [sent, ...more] = manifestRequests(from);
    expect(more).toEqual([]);
    expect(sent?.method).toBe('PUT');
    expect(proxy.requests.at(-1)).toBe(sent);
    expect(Object.keys(JSON.parse(sent?.body ?? '{}')).sort()).toEqual([
      'agents',
      'entityTypes',
      'platforms',
      'project',
      'relationshipTypes',
      'watchers',
    ]);
    expect(sent?.body).not.toContain(CANARY);
    expect(sent?.body).not.toContain('$SLACK');
  });

  it('is not written by a plan, a declined or refused apply, or a failed one; the next apply replaces it', async () => {
    const dir = await project();
    expect((await apply(dir, { yes: true })).code).toBe(0);
    const before = await manifest();
    expect(before.agents).toEqual(['ops', 'support']);
    // ops leaves the project (drift from now on), and SOUL.md changes (one change pending).
    await writeFile(join(dir, 'svc.toml'), SVC_TOML.replace('[agents.ops]\nname = "Ops"\n', ''));
    await writeFile(join(dir, 'agents/support/SOUL.md'), 'Be brief.\n');
    const from = proxy.requests.length;

    const plan = await apply(dir, { dryRun: true });
    expect(plan.code).toBe(0);
    expect(plan.out).toMatch(/\? drift\s+ops/);
    const json = await apply(dir, { dryRun: true, json: true, detailedExitcode: true });
    expect(json.code).toBe(2);
    // No terminal and no --yes: refused before anything is written.
    expect((await apply(dir)).code).toBe(1);
    proxy.failWriteAt(1);
    const failed = await apply(dir, { yes: true, concurrency: 1 });
    proxy.failWriteAt(0);
    expect(failed.code).toBe(1);
    expect(manifestRequests(from)).toEqual([]);
    expect(await manifest()).toEqual(before);

    const applied = await apply(dir, { yes: true });
    expect(applied.code, applied.err).toBe(0);
    expect(applied.err).toBe(CHANNEL_WARNING);
    const after = await manifest();
    // What the plan called drift is exactly what the manifest no longer declares.
    expect(after.agents).toEqual(['support']);
    expect(after.platforms).toEqual(['support-team-chat']);
    expect(Date.parse(after.appliedAt)).toBeGreaterThanOrEqual(Date.parse(before.appliedAt));
    // A repeat with nothing to apply still records it (the server answers unchanged).
    const from2 = proxy.requests.length;
    const noop = await apply(dir, { yes: true });
    expect(noop.out).toMatch(/Nothing to apply/);
    expect(manifestRequests(from2).map((r) => r.method)).toEqual(['PUT']);
    expect(await manifest()).toEqual(after);
  });

  it('records the whole project with --only: drift is about what the project declares anywhere', async () => {
    const dir = await project();
    expect((await apply(dir, { yes: true, only: 'agents' })).code).toBe(0);
    expect(await manifest()).toMatchObject({ agents: ['ops', 'support'], watchers: ['daily'] });
  });

  it('warns when it cannot be recorded, and the apply still succeeds: its changes are made', async () => {
    const dir = await project();
    expect((await apply(dir, { yes: true })).code).toBe(0);
    // Nothing to apply: the first write is the manifest's.
    proxy.failWriteAt(1);
    const noop = await apply(dir, { yes: true });
    proxy.failWriteAt(0);
    expect(noop.code, noop.err).toBe(0);
    expect(noop.out).toMatch(/Nothing to apply/);
    expect(noop.err.split('\n')).toEqual([
      CHANNEL_WARNING,
      'svc apply: warning: the changes were applied, but recording what the project declares failed: disk full (internal_error)',
      '  until it is recorded, the console cannot tell what svc apply manages from drift; run svc apply again to record it',
    ]);

    // One change, then the manifest: the change is made and said so, the warning follows.
    await writeFile(join(dir, 'agents/support/SOUL.md'), 'Be patient.\n');
    proxy.failWriteAt(2);
    const changed = await apply(dir, { yes: true, concurrency: 1 });
    proxy.failWriteAt(0);
    expect(changed.code, changed.err).toBe(0);
    expect(changed.out).toMatch(/Applied 1 change to org default\./);
    expect(changed.err).toMatch(
      /^svc\.toml:10:1: warning: .*\nsvc apply: warning: the changes were applied, but recording/,
    );
    const { agent } = (await server.call('GET', '/api/default/agents/support?include=config')).body;
    expect(agent.config['SOUL.md']).toBe('Be patient.\n');
  });
});

describe('svc apply --org', () => {
  it('says whose the token is, rather than that the org does not exist', async () => {
    await server.call('POST', '/api/orgs', { body: { slug: 'acme' } });
    const dir = await project();
    await expect(apply(dir, { yes: true, org: 'acme' })).rejects.toThrow(
      'this token belongs to org "default", not "acme": use --org default, or log in with a token of org "acme"',
    );
  });

  it('names the orgs there are when the admin password names one that does not exist', async () => {
    const dir = await project();
    await expect(apply(dir, { yes: true, org: 'nope' }, { SVC_API_TOKEN: ADMIN_PASSWORD })).rejects.toThrow(
      /^org "nope" does not exist on http:\S+ \(its orgs: acme, default\); use --org with one of them/,
    );
  });
});

describe('svc apply on a broken project', () => {
  const twoBundles = (second: string) => ({
    'svc.toml': SVC_TOML.replace(
      'models = ["models/core.yaml"]',
      'models = ["models/core.yaml", "models/more.yaml"]',
    ),
    'models/more.yaml': second,
  });
  const cases: [string, Record<string, string>, RegExp][] = [
    ['malformed TOML', { 'svc.toml': `${SVC_TOML}\n[agents.broken\nname = "x"\n` }, /^svc\.toml:\d+:\d+: /m],
    [
      'an unknown key',
      { 'svc.toml': SVC_TOML.replace('name = "Ops"', 'nmae = "Ops"') },
      /^svc\.toml:16:1: .*"nmae".*did you mean "name"/m,
    ],
    [
      'bad YAML',
      { 'models/core.yaml': 'version: 2\nentities:\n  - slug: [unclosed\n' },
      /^models\/core\.yaml:\d+:\d+: /m,
    ],
    [
      'a duplicate slug',
      twoBundles('version: 2\nentities:\n  - slug: person\n    name: Person again\n'),
      /^models\/more\.yaml:3:\d+: .*"person": also defined at models\/core\.yaml:3/m,
    ],
    [
      'two unnamed platforms of one type',
      { 'svc.toml': `${SVC_TOML}\n[[agents.support.platforms]]\ntype = "team_chat"\n` },
      /^svc\.toml:\d+:\d+: .*name/m,
    ],
    [
      'two platforms whose stable IDs collide',
      {
        'svc.toml': `${SVC_TOML}\n[[agents.ops.platforms]]\ntype = "messenger"\nname = "Main"\n${TELEGRAM}\n[[agents.ops.platforms]]\ntype = "messenger"\nname = "main!"\n${TELEGRAM}`,
      },
      /^svc\.toml:\d+:\d+: .*ops-messenger-main/m,
    ],
    [
      'a platform config missing a key',
      {
        'svc.toml': `${SVC_TOML}\n[[agents.ops.platforms]]\ntype = "messenger"\nconfig = { bot_token = "$SLACK_TOKEN" }\n`,
      },
      /^svc\.toml:23:1: agents\.ops\.platforms\[0\]\.config\.secret_token: is required for a messenger platform \(Telegram Bot API\)/m,
    ],
    [
      'a secret written into a platform config',
      { 'svc.toml': SVC_TOML.replace('bot_token = "$SLACK_TOKEN"', 'bot_token = "xoxb-literal"') },
      /^svc\.toml:9:13: agents\.support\.platforms\[0\]\.config\.bot_token: must be a secret reference such as "\$SLACK_BOT_TOKEN", never the secret itself: store the value with "svc secrets set SLACK_BOT_TOKEN"/m,
    ],
    [
      'a bad cron',
      { 'models/core.yaml': BUNDLE.replace('"0 9 * * *"', '"0 9 * * * *"') },
      /^models\/core\.yaml:11:\d+: .*schedule: must have 5 fields/m,
    ],
  ];

  it.each(cases)('%s: one line with file:line, exit 1, nothing sent', async (_name, files, line) => {
    const dir = await project(files);
    const before = proxy.requests.length;
    const run = await apply(dir, { yes: true });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(line);
    expect(run.err).toMatch(/nothing was sent/);
    expect(proxy.requests.length).toBe(before);
  });
});

describe('svc apply: webhook URLs of the platforms it writes', () => {
  const CHAT_TOML = dedent(`
    [agents.chat]
    name = "Chat"

    [[agents.chat.platforms]]
    type = "messenger"
    name = "Telegram"
    [agents.chat.platforms.config]
    bot_token = "$TG_TOKEN"
    secret_token = "\${TG_SECRET}"

    [[agents.chat.platforms]]
    type = "messenger"
    name = "WhatsApp"
    [agents.chat.platforms.config]
    flavor = "whatsapp"
    access_token = "$WA_ACCESS_TOKEN"
    app_secret = "$WA_APP_SECRET"
    verify_token = "$WA_VERIFY_TOKEN"
    phone_number_id = "106540352242922"
  `);
  const SECRETS = {
    TG_TOKEN: `${CANARY}-tg`,
    TG_SECRET: `${CANARY}-tg-secret`,
    WA_ACCESS_TOKEN: `${CANARY}-wa`,
    WA_APP_SECRET: `${CANARY}-wa-app`,
    WA_VERIFY_TOKEN: `${CANARY}-wa-verify`,
  };
  const TELEGRAM_LINES = [
    'Webhook of chat-messenger-telegram (Telegram Bot API):',
    '  https://svc.example.com/api/v1/webhooks/chat-messenger-telegram',
    '  register it with Telegram:',
    '  curl "https://api.telegram.org/bot${TG_TOKEN}/setWebhook" -d "url=https://svc.example.com/api/v1/webhooks/chat-messenger-telegram" -d "secret_token=${TG_SECRET}"',
  ];
  const WHATSAPP_LINES = [
    'Webhook of chat-messenger-whatsapp (WhatsApp Cloud API):',
    '  https://svc.example.com/api/v1/webhooks/chat-messenger-whatsapp',
    '  paste it in Meta App Dashboard > WhatsApp > Configuration > Callback URL, with the value of ${WA_VERIFY_TOKEN} as Verify token, and subscribe to the "messages" field',
  ];

  let published: TestServer;
  let publishedToken: string;
  beforeAll(async () => {
    published = await startTestServer({ publicUrl: 'https://svc.example.com' });
    publishedToken = (await createToken(published, 'default', ['write'])).secret;
  });
  afterAll(() => published.close());

  const applyHere = (dir: string, flags: Partial<ApplyFlags>) =>
    applyInProcess(dir, flags, {
      ...SECRETS,
      SVC_API_TOKEN: publishedToken,
      SVC_URL: published.url,
      XDG_CONFIG_HOME: dir,
    });

  it('prints each absolute URL with its one step, then only for what changed, and never a value', async () => {
    const dir = await writeProject({ 'svc.toml': CHAT_TOML });
    const created = await applyHere(dir, { yes: true });
    expect(created.code, created.err).toBe(0);
    expect(created.out.split('Applied 3 changes to org default.\n')[1]).toBe(
      ['', ...TELEGRAM_LINES, '', ...WHATSAPP_LINES].join('\n'),
    );

    // A config change to one platform: only its lines again.
    await writeFile(
      join(dir, 'svc.toml'),
      CHAT_TOML.replace('flavor = "whatsapp"', 'flavor = "whatsapp"\napi_version = "v21.0"'),
    );
    const updated = await applyHere(dir, { yes: true });
    expect(updated.code, updated.err).toBe(0);
    expect(updated.out).toMatch(/updated platform chat-messenger-whatsapp/);
    expect(updated.out.split('Applied 1 change to org default.\n')[1]).toBe(
      ['', ...WHATSAPP_LINES].join('\n'),
    );

    // --json: stdout stays the one plan document; the lines go to stderr with the progress.
    await writeFile(join(dir, 'svc.toml'), CHAT_TOML.replace('name = "Telegram"', 'name = "TELEGRAM"'));
    const json = await applyHere(dir, { yes: true, json: true });
    expect(json.code, json.err).toBe(0);
    expect(
      JSON.parse(json.out)
        .rows.filter((r: any) => r.verb === 'update')
        .map((r: any) => r.id),
    ).toEqual(['chat-messenger-telegram', 'chat-messenger-whatsapp']);
    expect(json.err).toContain(TELEGRAM_LINES.join('\n'));
    expect(json.err).toContain(WHATSAPP_LINES.join('\n'));

    for (const run of [created, updated, json]) expect(run.out + run.err).not.toContain(CANARY);
  });
});
