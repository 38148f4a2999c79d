/**
 * Golden files of the `svc apply` plan, end to end: the real `svc` process (from the sources, no
 * stdin so no TTY, NO_COLOR and FORCE_COLOR unset) against a real test server, one org per
 * scenario. The output must match `golden/<scenario>` exactly, after `mask` (below).
 *
 *   UPDATE_GOLDEN=1 npx vitest run packages/cli/src/plan/golden.test.ts   # rewrites the files
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { exited, svc } from '../../test/run-svc.js';
import { dedent, writeProject } from '../project/test/fixture.js';

const GOLDEN_DIR = fileURLToPath(new URL('./golden/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const ESC = '\x1b[';

/** What the project's secret references resolve to in the CLI; values never reach the output. */
const SECRETS = {
  SLACK_TOKEN: 'xoxb-golden-not-printed',
  SLACK_SIGNING_SECRET: 'signing-golden-not-printed',
  TG_TOKEN: 'tg-golden-not-printed',
  TG_SECRET: 'tg-secret-golden-not-printed',
  OPENAI_API_KEY: 'sk-golden-not-printed',
};

// The first project: applied with --yes, then edited into the second.
const TOML_V1 = dedent(`
  [agents.support]
  name = "Support"
  description = "Answers customers"

  [[agents.support.platforms]]
  type = "team_chat"
  name = "Main"
  [agents.support.platforms.config]
  signing_secret = "$SLACK_SIGNING_SECRET"
  bot_token = "$SLACK_TOKEN"
  channel = "C123"

  [[agents.support.platforms]]
  type = "team_chat"
  name = "Alerts"
  [agents.support.platforms.config]
  signing_secret = "$SLACK_SIGNING_SECRET"
  bot_token = "$SLACK_TOKEN"
  channel = "C999"

  [[agents.support.platforms]]
  type = "messenger"
  [agents.support.platforms.config]
  bot_token = "\${TG_TOKEN}"
  secret_token = "$TG_SECRET"

  [agents.support.network]
  allowed_domains = ["api.example.com"]

  [agents.support.guardrails]
  max_input_chars = 10000
  blocked_terms = ["password"]

  [agents.support.tools]
  allowed = ["github.*"]

  [agents.ops]
  name = "Ops"

  [agents.legacy]
  name = "Legacy"

  [memory]
  models = ["models/core.yaml"]
`);

const SOUL_V1 = dedent(`
  # Support

  You answer customers of Example Corp.

  - Be kind.
  - Be brief.
  - Never promise a refund.

  Escalate anything about billing to a human.
  Sign every answer with "The Example team".
`);

const USER_V1 = 'The customer is usually a small business owner.\n';

const BUNDLE_V1 = dedent(`
  version: 2
  entities:
    - slug: person
      name: Person
      icon: "👤"
      metadata_schema:
        type: object
        properties:
          email: {type: string, format: email}
    - slug: company
      name: Company
      description: A customer's employer
    - slug: ticket
      name: Ticket
  relationships:
    - slug: works-at
      name: Works at
      rules:
        - {source: person, target: company}
    - slug: owns
      name: Owns
      metadata_schema: {type: object, properties: {since: {type: string}}}
      rules:
        - {source: person, target: ticket}
    - slug: knows
      name: Knows
  watchers:
    - slug: daily
      name: Daily digest
      schedule: "0 9 * * *"
      prompt: Summarise the day
      agent: support
      tags: [digest]
      extraction_schema:
        type: object
        properties:
          summary: {type: string}
    - slug: weekly
      name: Weekly review
      schedule: "0 9 * * 1"
      prompt: Review the week
      agent: ops
`);

/**
 * The second project, against the first on the server:
 * - agents: support updated (description, providers), ops noop, billing created, legacy drift;
 * - settings: support updated (SOUL.md changed in two places, USER.md cleared, a list grown, a
 *   setting cleared, one set, one too long for its preview), ops updated (IDENTITY.md set),
 *   billing created;
 * - platforms: support-team-chat-main's config changes (restarts the worker), -alerts only renames
 *   its display name (no restart), -escalations is created, support-messenger is drift;
 * - memory: one noop, one update, one create and one drift of each kind where it makes sense; the
 *   noop entity type has an icon and a metadata_schema, the updates change a colour, rules, tags
 *   and min_cooldown_seconds and show exactly those fields.
 */
const TOML_V2 = dedent(`
  [agents.support]
  name = "Support"
  description = "Answers customers and partners"

  [[agents.support.providers]]
  key = "openai"
  secret_ref = "$OPENAI_API_KEY"

  [[agents.support.platforms]]
  type = "team_chat"
  name = "Main"
  [agents.support.platforms.config]
  signing_secret = "$SLACK_SIGNING_SECRET"
  bot_token = "$SLACK_TOKEN"
  channel = "C456"

  [[agents.support.platforms]]
  type = "team_chat"
  name = "ALERTS"
  [agents.support.platforms.config]
  signing_secret = "$SLACK_SIGNING_SECRET"
  bot_token = "$SLACK_TOKEN"
  channel = "C999"

  [[agents.support.platforms]]
  type = "team_chat"
  name = "Escalations"
  [agents.support.platforms.config]
  signing_secret = "$SLACK_SIGNING_SECRET"
  bot_token = "$SLACK_TOKEN"
  channel = "C777"

  [agents.support.network]
  allowed_domains = ["api.example.com", "docs.example.com"]

  [agents.support.guardrails]
  max_input_chars = 10000
  blocked_terms = ["password", "credit card number", "social security number"]

  [agents.support.model_selection]
  mode = "pinned"
  model = "openai/gpt-4.1"

  [agents.ops]
  name = "Ops"

  [agents.billing]
  name = "Billing"
  description = "Invoices and refunds"

  [[agents.billing.platforms]]
  type = "messenger"
  [agents.billing.platforms.config]
  bot_token = "\${TG_TOKEN}"
  secret_token = "$TG_SECRET"

  [agents.billing.egress]
  mode = "none"

  [memory]
  models = ["models/core.yaml"]
`);

const SOUL_V2 = SOUL_V1.replace('- Be brief.\n', '- Be brief: three sentences at most.\n').replace(
  'Sign every answer with "The Example team".\n',
  'Sign every answer with "The Example team".\nAnswer in the language of the question.\n',
);

const BUNDLE_V2 = dedent(`
  version: 2
  entities:
    - slug: person
      name: Person
      icon: "👤"
      metadata_schema:
        type: object
        properties:
          email: {type: string, format: email}
    - slug: company
      name: Company
      description: The organisation a person works for
      color: "#0ea5e9"
    - slug: invoice
      name: Invoice
      metadata_schema: {type: object, properties: {amount: {type: number}}, required: [amount]}
  relationships:
    - slug: works-at
      name: Works at
      rules:
        - {source: person, target: company}
    - slug: owns
      name: Owns
      metadata_schema: {type: object, properties: {since: {type: string}}}
      rules:
        - {source: person, target: [company, invoice]}
    - slug: billed-to
      name: Billed to
      rules:
        - {source: invoice, target: [person, company]}
  watchers:
    - slug: daily
      name: Daily digest
      schedule: "30 8 * * 1-5"
      prompt: Summarise the day
      agent: support
      timezone: Europe/Berlin
      tags: [digest, billing]
      extraction_schema:
        type: object
        properties:
          summary: {type: string}
      min_cooldown_seconds: 3600
`);

const V1_FILES = {
  'svc.toml': TOML_V1,
  'agents/support/SOUL.md': SOUL_V1,
  'agents/support/USER.md': USER_V1,
  'models/core.yaml': BUNDLE_V1,
};

let server: TestServer;
const saved: Record<string, string | undefined> = {};
beforeAll(async () => {
  // Colour is off because stdout is not a TTY, not because of NO_COLOR or FORCE_COLOR=0: the
  // children inherit this environment, so both are unset for the duration of this file.
  for (const name of ['NO_COLOR', 'FORCE_COLOR']) {
    saved[name] = process.env[name];
    delete process.env[name];
  }
  server = await startTestServer();
});
afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value !== undefined) process.env[name] = value;
  }
});

/** A fresh org with a write token of its own, so that scenarios never see each other's state. */
async function freshOrg(slug: string): Promise<{ org: string; token: string }> {
  const res = await server.call('POST', '/api/orgs', { body: { slug } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { org: slug, token: (await createToken(server, slug, ['write'])).secret };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `svc apply ...` in `dir`, as the real process; stdout and stderr apart, each complete. */
async function apply(dir: string, session: { org: string; token: string }, args: string[]): Promise<Run> {
  const child = svc(['apply', '--dir', dir, ...args], {
    ...SECRETS,
    SVC_URL: server.url,
    SVC_API_TOKEN: session.token,
    SVC_ORG: session.org,
    XDG_CONFIG_HOME: join(dir, '.config'),
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const code = await exited(child);
  return { code, stdout, stderr };
}

/**
 * The only parts of the output that may differ between two runs: the test server's URL (its port
 * is chosen by the OS) and the temporary project folder. Today's plan prints neither; the mask is
 * here so that an error or a header that names them would not make the files flaky. Org slugs are
 * fixed by the tests, stable IDs are computed from the files, and the plan carries no timestamps
 * or generated ids, so nothing else is masked.
 */
function mask(text: string, dir: string): string {
  return text.replaceAll(server.url, '<server-url>').replaceAll(dir, '<project-dir>');
}

/** Compares `actual` with `golden/<name>`, or writes it there with UPDATE_GOLDEN=1. */
async function expectGolden(name: string, actual: string): Promise<void> {
  const path = join(GOLDEN_DIR, name);
  if (UPDATE) {
    await mkdir(GOLDEN_DIR, { recursive: true });
    await writeFile(path, actual);
    return;
  }
  const expected = await readFile(path, 'utf8').catch(() => {
    throw new Error(
      `no golden file ${path}: run UPDATE_GOLDEN=1 npx vitest run packages/cli/src/plan/golden.test.ts`,
    );
  });
  expect(actual, `golden/${name} (UPDATE_GOLDEN=1 rewrites it)`).toBe(expected);
}

/**
 * `channel` is a platform config key no protocol reads: kept as written, with a warning per
 * platform on stderr. Nothing else may be on stderr.
 */
function expectOnlyChannelWarnings(stderr: string): void {
  const lines = stderr.split('\n').filter((line) => line !== '');
  expect(lines.length).toBeGreaterThan(0);
  for (const line of lines) {
    expect(line).toMatch(/^svc\.toml:\d+:1: warning: .*"channel" is not read by a team_chat platform/);
  }
}

describe('svc apply plan, golden files (no colour)', () => {
  it('an empty org: every row is + create', async () => {
    const session = await freshOrg('golden-create');
    const dir = await writeProject(V1_FILES);
    const run = await apply(dir, session, ['--dry-run']);
    expectOnlyChannelWarnings(run.stderr);
    expect(run.code).toBe(0);
    await expectGolden('create.txt', mask(run.stdout, dir));
  });

  it('after edits: + create, ~ update with diffs and the restart warning, = noop, ? drift; and --json', async () => {
    const session = await freshOrg('golden-plan');
    const dir = await writeProject(V1_FILES);
    const first = await apply(dir, session, ['--yes']);
    expectOnlyChannelWarnings(first.stderr);
    expect(first.code, first.stdout).toBe(0);

    const converged = await apply(dir, session, ['--dry-run']);
    expectOnlyChannelWarnings(converged.stderr);
    expect(converged.code).toBe(0);
    await expectGolden('converged.txt', mask(converged.stdout, dir));

    await writeFile(join(dir, 'svc.toml'), TOML_V2);
    await writeFile(join(dir, 'agents/support/SOUL.md'), SOUL_V2);
    await rm(join(dir, 'agents/support/USER.md'));
    await mkdir(join(dir, 'agents/ops'), { recursive: true });
    // No newline at the end: the diff says so.
    await writeFile(join(dir, 'agents/ops/IDENTITY.md'), '# Ops\n\nYou keep the lights on.');
    await mkdir(join(dir, 'agents/billing'), { recursive: true });
    await writeFile(join(dir, 'agents/billing/SOUL.md'), 'Be exact about amounts.\n');
    await writeFile(join(dir, 'models/core.yaml'), BUNDLE_V2);

    const [text, json] = await Promise.all([
      apply(dir, session, ['--dry-run']),
      apply(dir, session, ['--dry-run', '--json']),
    ]);
    expectOnlyChannelWarnings(text.stderr);
    expect(text.code).toBe(0);
    await expectGolden('update.txt', mask(text.stdout, dir));
    expectOnlyChannelWarnings(json.stderr);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).format_version).toBe(1);
    await expectGolden('update.json', mask(json.stdout, dir));
  });

  it('without a TTY and without FORCE_COLOR, nothing is coloured: no ANSI escape anywhere', async () => {
    expect(process.env.NO_COLOR).toBeUndefined();
    expect(process.env.FORCE_COLOR).toBeUndefined();
    // Platform stable IDs are unique on the deployment, so this org's agents have ids of their own.
    const session = await freshOrg('golden-colour');
    const toml = (channel: string, agents: string) =>
      `[agents.helpdesk]\nname = "Helpdesk"\n\n[[agents.helpdesk.platforms]]\ntype = "team_chat"\n[agents.helpdesk.platforms.config]\nsigning_secret = "$SLACK_SIGNING_SECRET"\nbot_token = "$SLACK_TOKEN"\nchannel = "${channel}"\n${agents}`;
    const dir = await writeProject({
      'svc.toml': toml('C1', '\n[agents.retired]\nname = "Retired"\n'),
      'agents/helpdesk/SOUL.md': 'Be kind.\nBe brief.\n',
    });
    const applied = await apply(dir, session, ['--yes']);
    expect(applied.code, applied.stderr).toBe(0);
    await writeFile(join(dir, 'svc.toml'), toml('C2', '\n[agents.newcomer]\nname = "Newcomer"\n'));
    await writeFile(join(dir, 'agents/helpdesk/SOUL.md'), 'Be kind.\nBe very brief.\n');
    const planned = await apply(dir, session, ['--dry-run']);
    expect(planned.code).toBe(0);
    // Everything a terminal would colour is there: each verb, a diff, the warning, the drift note.
    expect(applied.stdout).toContain('+ create helpdesk');
    for (const part of ['+ create newcomer', '~ update helpdesk', '= noop   helpdesk', '? drift  retired']) {
      expect(planned.stdout).toContain(part);
    }
    expect(planned.stdout).toContain('        -Be brief.\n        +Be very brief.\n');
    expect(planned.stdout).toContain('! the live platform worker restarts');
    for (const output of [applied.stdout, applied.stderr, planned.stdout, planned.stderr]) {
      expect(output).not.toContain(ESC);
    }
  });

  it('the golden files hold no ANSI escape either', async () => {
    for (const name of ['create.txt', 'converged.txt', 'update.txt', 'update.json']) {
      expect(await readFile(join(GOLDEN_DIR, name), 'utf8')).not.toContain(ESC);
    }
  });
});
