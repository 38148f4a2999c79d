import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../../server/test/harness.js';
import { applyInProcess } from '../test/apply-in-process.js';
import { type RecordingProxy, startRecordingProxy } from '../test/recording-proxy.js';
import { type ApplyFlags, type ApplyIo, applyCommand } from './apply/command.js';
import { dedent, writeProject } from './project/test/fixture.js';
import { type Io, link, login } from './session/commands.js';

const CANARY = 'canary-review-5d2b-do-not-leak';

let server: TestServer;
let proxy: RecordingProxy;
let orgCounter = 0;
const temps: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
  proxy = await startRecordingProxy(server.url);
});
afterAll(async () => {
  await proxy.close();
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

/** A fresh org per test, so that tests never see each other's state. */
async function freshOrg(): Promise<string> {
  const slug = `review-${++orgCounter}`;
  const res = await server.call('POST', '/api/orgs', { body: { slug } });
  expect(res.status).toBeLessThan(300);
  return slug;
}

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-review-'));
  temps.push(dir);
  return dir;
}

/** `svc apply` in-process, no terminal, through the recording proxy, as the admin password. */
async function apply(dir: string, flags: Partial<ApplyFlags>, env: Record<string, string> = {}) {
  const base = {
    SVC_API_TOKEN: ADMIN_PASSWORD,
    SVC_URL: proxy.url,
    XDG_CONFIG_HOME: await temp(),
    SLACK_TOKEN: CANARY,
  };
  return applyInProcess(dir, flags, { ...base, ...env });
}

const TOML = dedent(`
  [agents.support]
  name = "Support"

  [[agents.support.platforms]]
  type = "team_chat"
  [agents.support.platforms.config]
  signing_secret = "$SLACK_TOKEN"
  bot_token = "$SLACK_TOKEN"

  [memory]
  models = ["models/core.yaml"]
`);

describe('review: --json shape', () => {
  it('svc apply --json --yes prints one JSON document on stdout', async () => {
    const org = await freshOrg();
    const dir = await writeProject({
      'svc.toml': TOML,
      'models/core.yaml': 'version: 2\nentities:\n  - slug: person\n    name: Person\n',
    });
    const run = await apply(dir, { yes: true, json: true, org });
    expect(run.code, run.err).toBe(0);
    // Today the result lines ("  created agent support", "Applied 4 changes ...") follow the JSON.
    expect(() => JSON.parse(run.out)).not.toThrow();
  });
});

describe('review: exact plans for memory items', () => {
  it('an entity type whose description is "" on the server and absent in the bundle is a noop (README: absent description equals "")', async () => {
    const org = await freshOrg();
    const seeded = await server.call('POST', `/api/${org}/operations/manage_entity_schema`, {
      body: {
        action: 'upsert',
        kind: 'entity_type',
        item: { slug: 'person', name: 'Person', description: '' },
      },
    });
    expect(seeded.status).toBe(201);
    const dir = await writeProject({
      'svc.toml': '[memory]\nmodels = ["models/core.yaml"]\n',
      'models/core.yaml': 'version: 2\nentities:\n  - slug: person\n    name: Person\n',
    });
    const run = await apply(dir, { dryRun: true, json: true, detailedExitcode: true, org });
    const plan = JSON.parse(run.out);
    expect(plan.rows).toEqual([{ kind: 'entity_type', id: 'person', verb: 'noop', changes: [] }]);
    expect(run.code).toBe(0);
  });

  it('a watcher stored with timezone "UTC" and a bundle without timezone (default UTC) is a noop', async () => {
    const org = await freshOrg();
    await server.call('POST', `/api/${org}/agents`, { body: { agentId: 'support', name: 'Support' } });
    const seeded = await server.call('POST', `/api/${org}/operations/manage_entity_schema`, {
      body: {
        action: 'upsert',
        kind: 'watcher',
        item: {
          slug: 'daily',
          name: 'Daily',
          schedule: '0 9 * * *',
          prompt: 'Summarise',
          agent: 'support',
          timezone: 'UTC',
        },
      },
    });
    expect(seeded.status).toBe(201);
    const dir = await writeProject({
      'svc.toml': '[agents.support]\nname = "Support"\n\n[memory]\nmodels = ["models/core.yaml"]\n',
      'models/core.yaml': dedent(`
        version: 2
        watchers:
          - slug: daily
            name: Daily
            schedule: "0 9 * * *"
            prompt: Summarise
            agent: support
      `),
    });
    const run = await apply(dir, { dryRun: true, json: true, only: 'memory', org });
    expect(JSON.parse(run.out).rows).toEqual([{ kind: 'watcher', id: 'daily', verb: 'noop', changes: [] }]);
  });
});

describe('review: --only memory', () => {
  it('a watcher naming an agent that is not on the server is refused before any write, with file:line', async () => {
    const org = await freshOrg();
    const dir = await writeProject({
      'svc.toml': '[agents.support]\nname = "Support"\n\n[memory]\nmodels = ["models/core.yaml"]\n',
      'models/core.yaml': dedent(`
        version: 2
        entities:
          - slug: person
            name: Person
        watchers:
          - slug: daily
            name: Daily
            schedule: "0 9 * * *"
            prompt: Summarise
            agent: support
      `),
    });
    const writesBefore = proxy.writes().length;
    const run = await apply(dir, { yes: true, only: 'memory', org });
    expect(run.code).toBe(1);
    expect(proxy.writes().length - writesBefore).toBe(0);
    expect(run.err).toContain(
      'models/core.yaml:10:12: watcher "daily" names agent "support", which is not on the server yet',
    );
  });
});

describe('review: errors with file:line', () => {
  // A folder in memory.models stands for its bundles (issue 21); one named *.yaml inside is not read.
  it('a memory bundle path that is a folder is read as its bundles, never as a raw EISDIR', async () => {
    const dir = await writeProject({
      'svc.toml': '[memory]\nmodels = ["models"]\n',
      'models/core.yaml': 'version: 3\n',
      'models/nested.yaml/inner.yaml': 'version: 2\n',
    });
    const before = proxy.requests.length;
    const run = await apply(dir, { yes: true }).catch((error: Error) => ({
      code: -1,
      out: '',
      err: `threw: ${error.message}`,
    }));
    expect(run.err).toMatch(/^models\/core\.yaml:1:\d+: version must be 2 \(got 3\)/m);
    expect(run.err).not.toMatch(/EISDIR|nested/);
    expect(run.code).toBe(1);
    expect(proxy.requests.length).toBe(before);
  });

  it('an agent Markdown path that is a folder is reported with its file, not as a raw EISDIR', async () => {
    const dir = await writeProject({ 'svc.toml': '[agents.support]\nname = "Support"\n' });
    await mkdir(join(dir, 'agents/support/SOUL.md'), { recursive: true });
    const run = await apply(dir, { yes: true }).catch((error: Error) => ({
      code: -1,
      out: '',
      err: `threw: ${error.message}`,
    }));
    expect(run.err).toMatch(/^agents\/support\/SOUL\.md:1:1: /m);
    expect(run.code).toBe(1);
  });
});

describe('review: unreadable agent folders', () => {
  it('an agent folder that cannot be listed is an error, not three settings silently cleared', async () => {
    const org = await freshOrg();
    const dir = await writeProject({
      'svc.toml': '[agents.support]\nname = "Support"\n',
      'agents/support/SOUL.md': 'Be kind.\n',
    });
    expect((await apply(dir, { yes: true, org })).code).toBe(0);
    // The folder becomes unreadable (EACCES as a normal user; ENOTDIR here, since tests run as root).
    await rm(join(dir, 'agents/support'), { recursive: true });
    await writeFile(join(dir, 'agents/support'), 'not a folder');
    const run = await apply(dir, { dryRun: true, json: true, org }).catch((error: Error) => ({
      code: 1,
      out: '',
      err: error.message,
    }));
    // Today: readdir(...).catch(() => []) turns any error into "no files", and the plan clears SOUL.md.
    expect(run.out).not.toMatch(/"SOUL\.md"/);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/agents\/support/);
  });
});

describe('review: the link guard', () => {
  it('refuses an apply whose --url points the linked context at another server', async () => {
    const org = await freshOrg();
    const config = await temp();
    const lines: string[] = [];
    const sessionIo: Io = {
      env: { XDG_CONFIG_HOME: config },
      out: (l) => lines.push(l),
      interactive: false,
      ask: async () => {
        throw new Error('no prompts');
      },
    };
    await login({ token: ADMIN_PASSWORD, url: server.url, org }, sessionIo);
    const dir = await writeProject({ 'svc.toml': '[agents.support]\nname = "Support"\n' });
    await link(dir, {}, sessionIo);

    // Another server, as far as the CLI can tell (the recording proxy's address).
    const io: ApplyIo = {
      ...sessionIo,
      err: (l) => lines.push(l),
      color: false,
      confirm: async () => false,
    };
    const before = proxy.requests.length;
    await expect(applyCommand({ dir, dryRun: true, url: proxy.url }, io)).rejects.toThrow(
      /the saved context "[^"]+" is for http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:\d+; its token is only sent there/,
    );
    // The saved token never went to the other URL.
    expect(proxy.requests.length).toBe(before);
    // The same server spelt with a trailing slash is the same server.
    await expect(applyCommand({ dir, dryRun: true, url: `${server.url}/` }, io)).resolves.toBe(0);
  });
});

describe('review: three long Markdown files', () => {
  it("apply, though their sum passes the server's body limit, and converge; the plan counts the long diff", async () => {
    const org = await freshOrg();
    const long = '日本語のテキスト\n'.repeat(25_000); // 225,000 characters, 675,000 bytes of UTF-8
    const dir = await writeProject({
      'svc.toml': '[agents.big]\nname = "Big"\n',
      'agents/big/IDENTITY.md': long,
      'agents/big/SOUL.md': long,
      'agents/big/USER.md': long,
    });
    const first = await apply(dir, { yes: true, org });
    expect(first.code, first.err).toBe(0);
    expect(first.out).toMatch(/… 24921 more diff lines \(--json has the whole value\)/);
    expect(first.out.split('\n').length).toBeLessThan(400);
    const again = await apply(dir, { dryRun: true, detailedExitcode: true, org });
    expect(again.code, again.out).toBe(0);
  });
});
