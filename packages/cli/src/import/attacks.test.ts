import { execFileSync, execSync } from 'node:child_process';
import { existsSync, constants as fsConstants } from 'node:fs';
import {
  chmod,
  link,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProject } from '../project/load.js';
import { dedent, writeProject } from '../project/test/fixture.js';
import { translateQuery } from './sql-sources.js';
import { readTree, runImport, tempDir } from './test/run-import.js';

/**
 * A hostile Lobu project (a folder or a git repo someone hands the user): `svc import lobu` must
 * read only inside it, write only inside --out, copy no literal secret, print no command that runs
 * the project's payload, and fail clearly (exit 1, nothing written) rather than crash or hang.
 * Each test asserts the correct behaviour; those that were `it.fails` (attacks that worked) pass
 * since the fixes, so a regression fails them.
 */

const AGENT = '[agents.bot]\nname = "bot"\n';

/** A Lobu project at `<tmp>/lobu` (so `<tmp>/lobu-svc` is the default --out), plus its parent. */
async function lobu(files: Record<string, string>): Promise<{ dir: string; parent: string }> {
  const parent = await tempDir();
  const dir = join(parent, 'lobu');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return { dir, parent };
}

/** Everything the user sees or keeps: the written files, the text report and the --json report. */
async function everything(dir: string, out = `${dir}-svc`): Promise<string> {
  const json = await runImport({ dir, out, json: true });
  const text = await runImport({ dir, out, force: true });
  const tree = existsSync(out) ? await readTree(out) : {};
  return [json.out, json.err, text.out, text.err, ...Object.values(tree)].join('\n');
}

describe('svc import lobu: writes outside --out, reads outside the Lobu project', () => {
  // User loses: any file the symlink names (~/.bashrc, ~/.ssh/authorized_keys) is overwritten with svc.toml.
  it('--force never writes through a symlink placed in --out (svc.toml -> a file outside)', async () => {
    const { dir, parent } = await lobu({ 'lobu.toml': AGENT });
    const victim = join(parent, 'victim.txt');
    await writeFile(victim, 'precious');
    await mkdir(`${dir}-svc`);
    await symlink(victim, join(`${dir}-svc`, 'svc.toml'));
    await runImport({ dir, force: true }).catch(() => undefined);
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });

  // User loses: the file a hard link in --out shares its content with (a link git cannot ship, a tarball can).
  it('--force never writes a file of --out that has other hard links', async () => {
    const { dir, parent } = await lobu({ 'lobu.toml': AGENT });
    const victim = join(parent, 'victim.txt');
    await writeFile(victim, 'precious');
    await mkdir(`${dir}-svc`);
    await link(victim, join(`${dir}-svc`, 'svc.toml'));
    const run = await runImport({ dir, force: true });
    expect(run.code).toBe(1);
    expect(run.err).toContain('svc.toml has other hard links');
    expect(await readFile(victim, 'utf8')).toBe('precious');
  });

  // User loses: files written into whatever folder a symlinked agents/ (or models/) in --out points at.
  it('--force never writes through a symlinked folder in --out (agents -> elsewhere)', async () => {
    const { dir, parent } = await lobu({ 'lobu.toml': AGENT, 'agents/bot/IDENTITY.md': 'hi' });
    const elsewhere = join(parent, 'elsewhere');
    await mkdir(elsewhere);
    await mkdir(`${dir}-svc`);
    await symlink(elsewhere, join(`${dir}-svc`, 'agents'));
    await runImport({ dir, force: true }).catch(() => undefined);
    expect(await readdir(elsewhere)).toEqual([]);
  });

  // User loses: the Lobu project itself (its models rewritten, svc.toml added), which README says is never written.
  it('an --out that is a symlink to the Lobu project is refused like --out = --dir', async () => {
    const model = 'entities:\n  - slug: a\n    name: A\n    metadata: {x: 1}\n';
    const { dir } = await lobu({ 'lobu.toml': AGENT, 'models/a.yaml': model });
    await symlink(dir, `${dir}-link`);
    const run = await runImport({ dir, out: `${dir}-link`, force: true });
    expect(run.code).toBe(1);
    expect(await readFile(join(dir, 'models/a.yaml'), 'utf8')).toBe(model);
    expect(existsSync(join(dir, 'svc.toml'))).toBe(false);
  });

  // User loses: the Lobu project gets svc files mixed into it (and a later import reads them back).
  it('an --out inside the Lobu project is refused', async () => {
    const { dir } = await lobu({ 'lobu.toml': AGENT });
    const run = await runImport({ dir, out: join(dir, 'svc') });
    expect(run.code).toBe(1);
    expect(existsSync(join(dir, 'svc'))).toBe(false);
  });

  // User loses: the Lobu model files, overwritten by their conversion (dropped fields gone for good).
  it('a Lobu project inside --out (--force) is never overwritten', async () => {
    const parent = await tempDir();
    const dir = join(parent, 'models');
    const model = 'entities:\n  - slug: a\n    name: A\n    metadata: {x: 1}\n';
    await mkdir(dir);
    await writeFile(join(dir, 'lobu.toml'), `${AGENT}[memory]\nmodels = "."\n`);
    await writeFile(join(dir, 'a.yaml'), model);
    await runImport({ dir, out: parent, force: true }).catch(() => undefined);
    expect(await readFile(join(dir, 'a.yaml'), 'utf8')).toBe(model);
  });

  // User loses: a TOML file outside the project (a credentials file) read and its values written into svc.toml.
  it('a lobu.toml that is a symlink to a file outside the project is not read', async () => {
    const { dir, parent } = await lobu({});
    await mkdir(dir);
    const outside = join(parent, 'credentials.toml');
    await writeFile(outside, `${AGENT}description = "OUTSIDE-CONTENT"\n`);
    await symlink(outside, join(dir, 'lobu.toml'));
    const run = await runImport({ dir });
    expect(run.code).toBe(1);
    expect(existsSync(`${dir}-svc`)).toBe(false);
  });

  // User loses: files of any folder outside the project (../../.config/...) read, their values printed.
  it('memory.connectors outside the project is not read', async () => {
    const { dir, parent } = await lobu({
      'lobu.toml': `${AGENT}[memory]\nconnectors = "../outside"\n`,
    });
    await mkdir(join(parent, 'outside'));
    await writeFile(
      join(parent, 'outside', 'c.yaml'),
      'type: connection\nconnector: pg\nslug: s\nconfig:\n  host: OUTSIDE-HOST\n',
    );
    const run = await runImport({ dir, json: true });
    expect(run.out).not.toContain('OUTSIDE-HOST');
    expect(run.out).not.toContain('../outside/c.yaml');
  });

  // User loses: the names in a private folder outside the project (a symlinked skills/) printed in the report.
  it('a skills/ folder that links outside the project is not listed', async () => {
    const { dir, parent } = await lobu({ 'lobu.toml': AGENT, 'agents/bot/IDENTITY.md': 'hi' });
    await mkdir(join(parent, 'private', 'acme-merger-plan'), { recursive: true });
    await symlink(join(parent, 'private'), join(dir, 'agents/bot/skills'));
    const run = await runImport({ dir });
    expect(run.out).not.toContain('acme-merger-plan');
  });

  it('IDENTITY.md linking to /etc/passwd, agent dir "../x" or absolute, models "../x": nothing read', async () => {
    const { dir, parent } = await lobu({
      'lobu.toml': dedent(`
        [agents.bot]
        name = "bot"
        [agents.up]
        dir = "../up"
        [agents.abs]
        dir = "/etc"
        [memory]
        models = "../models"
      `),
    });
    await mkdir(join(dir, 'agents/bot'), { recursive: true });
    await symlink('/etc/passwd', join(dir, 'agents/bot/IDENTITY.md'));
    await mkdir(join(parent, 'up'));
    await writeFile(join(parent, 'up', 'SOUL.md'), 'OUTSIDE-SOUL');
    await mkdir(join(parent, 'models'));
    await writeFile(join(parent, 'models', 'x.yaml'), 'entities:\n  - slug: outside\n    name: OUTSIDE\n');
    await mkdir(join(dir, 'models'));
    await symlink(join(parent, 'models', 'x.yaml'), join(dir, 'models', 'link.yaml'));
    const all = await everything(dir);
    expect(all).not.toContain('root:');
    expect(all).not.toContain('OUTSIDE');
  });

  it('a models folder holding a symlink loop, and NUL bytes in dir / models / connectors: finishes, nothing outside', async () => {
    const { dir } = await lobu({
      'lobu.toml': `[agents.bot]\ndir = "agents/b\\u0000ot"\n[memory]\nconnectors = "c\\u0000"\n`,
      'models/a.yaml': 'entities: []\n',
    });
    await symlink('..', join(dir, 'models', 'loop'));
    const run = await runImport({ dir });
    expect(run.code).toBe(0);
  });

  it('--out naming the Lobu project itself is refused', async () => {
    const { dir } = await lobu({ 'lobu.toml': AGENT });
    const run = await runImport({ dir, out: dir, force: true });
    expect(run.code).toBe(1);
    expect(existsSync(join(dir, 'svc.toml'))).toBe(false);
  });
});

describe('svc import lobu: injection into the written files', () => {
  it('quotes, """, newlines and [table] headers in names, descriptions, models round-trip through svc\'s loader', async () => {
    const evil =
      'x"\n[[agents.bot.providers]]\nkey = "evil"\n\'\'\' """ \\ #\n[agents.bot.network]\nallowed_domains = ["*"]\npre_approved_tools = ["gh.delete"]';
    const { dir } = await lobu({
      'lobu.toml': dedent(`
        [agents.bot]
        name = ${JSON.stringify(evil)}
        description = ${JSON.stringify(evil)}
        [[agents.bot.providers]]
        id = "openai"
        model = ${JSON.stringify(evil)}
        [[agents.bot.schedules]]
        id = "daily"
        cron = "0 9 * * *"
        task = ${JSON.stringify(evil)}
        [[agents.bot.schedules]]
        id = "yes"
        cron = "0 9 * * *"
        task = "yes"
        [[agents.bot.schedules]]
        id = "date"
        cron = "0 9 * * *"
        task = "2026-01-01"
      `),
      'models/m.yaml': 'entities:\n  - slug: e\n    name: "null"\n    description: "0x1F"\n',
    });
    const run = await runImport({ dir });
    expect(run.code).toBe(0);
    const project = await loadProject(`${dir}-svc`, {}, { requireSecrets: false });
    const agent = project.agents[0] as any;
    expect(project.agents).toHaveLength(1);
    expect(agent.name).toBe(evil);
    expect(agent.description).toBe(evil);
    expect(agent.providers.map((p: { key: string }) => p.key)).toEqual(['openai']);
    expect(agent.config.networkConfig).toBeNull();
    expect(agent.config.preApprovedTools).toBeNull();
    expect(agent.config.providerModelPreferences.openai.model).toBe(evil.trim());
    expect(project.watchers.map((w: any) => w.prompt)).toEqual([evil, 'yes', '2026-01-01']);
    expect(project.entityTypes).toEqual([{ slug: 'e', name: 'null', description: '0x1F' }]);
  });

  it('an MCP header name holding a newline and a table header adds no provider: the server is dropped', async () => {
    const { dir } = await lobu({
      'lobu.toml': `${AGENT}[agents.bot.skills.mcp.gh]\nurl = "https://example.com/mcp"\nheaders = { ${JSON.stringify('X"\n[[agents.bot.providers]]\nkey="evil"')} = "v" }\n`,
    });
    await runImport({ dir });
    const project = await loadProject(`${dir}-svc`, {}, { requireSecrets: false });
    expect((project.agents[0] as any).providers).toEqual([]);
  });

  // User loses: running the printed "To do" command runs the project author's shell payload.
  it('no printed step command runs a payload from lobu.toml or the connectors folder', async () => {
    const { dir, parent } = await lobu({
      'lobu.toml': `${AGENT}[agents.bot.skills.mcp.x]\ncommand = "npx;touch\${IFS}pwned-mcp"\n[memory]\norg = "acme; touch pwned-org"\nconnectors = "connectors"\n`,
      'connectors/c.yaml': dedent(`
        type: connection
        connector: "pg; touch pwned-connector"
        name: "$(touch pwned-name)"
        slug: s
        config:
          host: "\`touch pwned-config\`"
      `),
      'connectors/x;touch pwned-file;.ts': '',
    });
    const run = await runImport({ dir, json: true });
    const bin = join(parent, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'svc'), '#!/bin/sh\nexit 0\n');
    await chmod(join(bin, 'svc'), 0o755);
    const commands = (run.json?.steps ?? []).flatMap((s) => (s.command ? [s.command] : []));
    expect(commands.length).toBeGreaterThan(2);
    for (const command of commands) {
      try {
        execFileSync('/bin/sh', ['-c', command], {
          cwd: parent,
          env: { PATH: `${bin}:/usr/bin:/bin` },
          stdio: 'ignore',
        });
      } catch {}
    }
    expect((await readdir(parent)).filter((f) => f.startsWith('pwned'))).toEqual([]);
  });
});

describe('svc import lobu: secrets', () => {
  // User loses: two agents' bots silently share one token (and one webhook secret): the report asks for it once.
  it('variables the import names never collide across agents (a-b + "c" vs a + "b-c")', async () => {
    const { dir } = await lobu({
      'lobu.toml': dedent(`
        [agents.a-b]
        [[agents.a-b.platforms]]
        type = "telegram"
        name = "c"
        [agents.a]
        [[agents.a.platforms]]
        type = "telegram"
        name = "b-c"
      `),
    });
    await runImport({ dir });
    const project = await loadProject(`${dir}-svc`, {}, { requireSecrets: false });
    const refs = project.agents.map((a: any) => Object.values(a.platforms[0].config) as string[]);
    expect(refs[0]?.filter((r) => refs[1]?.includes(r))).toEqual([]);
  });

  // User loses: an API key / database password written as a literal under an env or header name the regex misses (OPENAI_KEY, DATABASE_URL, Cookie), copied into svc.toml.
  it('MCP env and header literals are never copied, whatever their names', async () => {
    const { dir } = await lobu({
      'lobu.toml': dedent(`
        [agents.bot]
        [agents.bot.skills.mcp.gh]
        command = "npx"
        env = { OPENAI_KEY = "sk-proj-LEAK1abcdef1234567890", DATABASE_URL = "postgres://u:LEAK2pass@h/db", GITHUB_PAT = "ghp_LEAK3abcdefabcdefabcdefabcdefabc" }
        [agents.bot.skills.mcp.web]
        url = "https://example.com/mcp"
        headers = { Cookie = "session=LEAK4", "X-Auth" = "LEAK5" }
      `),
    });
    expect(await everything(dir)).not.toMatch(/LEAK\d/);
  });

  // User loses: credentials embedded in an MCP url (user:pass@, ?api_key=) or args (--token=...) copied into svc.toml.
  it('credentials inside an MCP url or args are never copied', async () => {
    const { dir } = await lobu({
      'lobu.toml': dedent(`
        [agents.bot]
        [agents.bot.skills.mcp.web]
        url = "https://user:LEAK1pass@example.com/mcp?api_key=sk-LEAK2"
        [agents.bot.skills.mcp.cmd]
        command = "npx"
        args = ["-y", "server", "--token=ghp_LEAK3argsecretargsecret"]
      `),
    });
    expect(await everything(dir)).not.toMatch(/LEAK\d/);
  });

  // User loses: a connection's database password or access key printed in the report (terminal, CI logs, --json).
  it('connection config values that are credentials are never printed (connection_string, key)', async () => {
    const { dir } = await lobu({
      'lobu.toml': `${AGENT}[memory]\nconnectors = "connectors"\n`,
      'connectors/c.yaml': dedent(`
        type: connection
        connector: postgres
        slug: db
        config:
          connection_string: "postgres://admin:LEAK1pass@db/x"
          key: "AKIALEAK2EXAMPLE"
          dsn: "mysql://root:LEAK3@db"
      `),
    });
    expect(await everything(dir)).not.toMatch(/LEAK\d/);
  });

  // Found by review after the attack: a table of options was printed whole, whatever it held.
  it('connection config values holding a credential inside a table, or shaped like a key, are never printed', async () => {
    const { dir } = await lobu({
      'lobu.toml': `${AGENT}[memory]\nconnectors = "connectors"\n`,
      'connectors/c.yaml': dedent(`
        type: connection
        connector: rest
        slug: api
        config:
          options: { api_key: "LEAK1-nested", retries: 3 }
          headers: [{ Authorization: "Bearer LEAK2" }]
          gh: "ghp_LEAK3xxxxxxxxxxxxxxxx"
          region: eu-west-1
      `),
    });
    const all = await everything(dir);
    expect(all).not.toMatch(/LEAK\d/);
    expect(all).toContain('region=eu-west-1');
  });

  it('a connectors YAML that does not parse stops the import, naming the file, rather than being half read', async () => {
    const { dir } = await lobu({
      'lobu.toml': `${AGENT}[memory]\nconnectors = "connectors"\n`,
      'connectors/c.yaml':
        'type: connection\nconnector: rss\nconfig: { url: "https://a.example/feed"\n  bad: [\n',
    });
    const run = await runImport({ dir });
    expect(run.code).toBe(1);
    expect(run.err).toContain('connectors/c.yaml');
    expect(run.err).toContain('not valid YAML');
    expect(existsSync(`${dir}-svc`)).toBe(false);
  });

  it('names no variable svc keeps for the server (PG*, NODE_*, SVC_*) from an agent called pgbot', async () => {
    const { dir } = await lobu({
      'lobu.toml': dedent(`
        [agents.pgbot]
        [[agents.pgbot.platforms]]
        type = "telegram"
        config = { botToken = "123:LEAK" }
        [agents.other]
        [[agents.other.platforms]]
        type = "telegram"
        config = { botToken = "456:LEAK" }
      `),
    });
    const run = await runImport({ dir, json: true });
    expect(run.code, run.out + run.err).toBe(0);
    const toml = await readFile(join(`${dir}-svc`, 'svc.toml'), 'utf8');
    expect(toml).toContain('$LOBU_PGBOT_');
    expect(toml).not.toMatch(/\$PGBOT_/);
  });

  it('provider keys, bot tokens, Authorization headers, OAuth secrets, invalid TOML and refused schedules echo no value', async () => {
    const { dir } = await lobu({
      'lobu.toml': dedent(`
        [agents.bot]
        [[agents.bot.providers]]
        id = "openai"
        key = "sk-LEAK1"
        [[agents.bot.platforms]]
        type = "telegram"
        config = { botToken = "123:LEAK2" }
        [agents.bot.skills.mcp.gh]
        url = "https://example.com/mcp"
        headers = { Authorization = "Bearer LEAK3", "X-Api-Key" = "LEAK4" }
        oauth = { client_id = "id", client_secret = "LEAK5" }
        [[agents.bot.schedules]]
        id = "s"
        cron = "LEAK6"
        timezone = "LEAK7"
        task = "t"
      `),
    });
    expect(await everything(dir)).not.toMatch(/LEAK\d/);
    for (const bad of ['key = sk-LEAK8\n', 'key = "sk-LEAK9\n', '"sk-LEAK10" = 1\n"sk-LEAK10" = 2\n']) {
      const { dir: d } = await lobu({ 'lobu.toml': AGENT + bad });
      const run = await runImport({ dir: d });
      expect(run.code).toBe(1);
      expect(run.err).not.toMatch(/LEAK\d/);
    }
  });
});

describe('svc import lobu: denial of service and crashes', () => {
  // User loses: the import dies with a stack trace on a 9-line YAML file (billion laughs) in models/.
  it('a YAML alias bomb in models/ is a clear error, not a crash', async () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...'bcdefg'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`),
      'entities: *g',
    ].join('\n');
    const { dir } = await lobu({ 'lobu.toml': AGENT, 'models/bomb.yaml': bomb });
    const run = await runImport({ dir });
    expect([0, 1, 2]).toContain(run.code);
  });

  // User loses: the same crash from a YAML alias bomb in the connectors folder.
  it('a YAML alias bomb in the connectors folder is a clear error, not a crash', async () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...'bcdefg'.split('').map((c, i) => `${c}: &${c} [${Array(9).fill(`*${'abcdefg'[i]}`).join(',')}]`),
      'type: connection',
      'connector: *g',
    ].join('\n');
    const { dir } = await lobu({
      'lobu.toml': `${AGENT}[memory]\nconnectors = "connectors"\n`,
      'connectors/bomb.yaml': bomb,
    });
    const run = await runImport({ dir });
    expect([0, 1, 2]).toContain(run.code);
  });

  // User loses: a stack trace (ENOTDIR) instead of "memory.models is not a folder".
  it('memory.models naming a file is a clear error, not a crash', async () => {
    const { dir } = await lobu({ 'lobu.toml': `${AGENT}[memory]\nmodels = "lobu.toml"\n` });
    const run = await runImport({ dir });
    expect([0, 1, 2]).toContain(run.code);
  });

  // User loses: a stack trace (ENOTDIR) and a half-written --out instead of a clear refusal.
  it('an --out that is a file is refused with exit 1', async () => {
    const { dir } = await lobu({ 'lobu.toml': AGENT, 'agents/bot/IDENTITY.md': 'hi' });
    await writeFile(`${dir}-file`, 'x');
    const run = await runImport({ dir, out: `${dir}-file` });
    expect(run.code).toBe(1);
  });

  // User loses: a stack trace, and agents/*.md written before it, when --out holds a file named agents or models.
  it('--force into an --out holding a file where a folder goes: exit 1, nothing written', async () => {
    const { dir } = await lobu({
      'lobu.toml': AGENT,
      'agents/bot/IDENTITY.md': 'hi',
      'models/a.yaml': 'entities:\n  - slug: a\n    name: A\n',
    });
    await mkdir(`${dir}-svc`);
    await writeFile(join(`${dir}-svc`, 'models'), 'x');
    const run = await runImport({ dir, force: true });
    expect(run.code).toBe(1);
    expect(await readdir(`${dir}-svc`)).toEqual(['models']);
  });

  // User loses: a stack trace (ENOENT) when --out is a dangling symlink (and a write outside once its target exists).
  it('an --out that is a dangling symlink is refused with exit 1', async () => {
    const { dir, parent } = await lobu({ 'lobu.toml': AGENT });
    await symlink(join(parent, 'nowhere'), `${dir}-svc`);
    const run = await runImport({ dir });
    expect(run.code).toBe(1);
  });

  // User loses: the import hangs forever on a project (tarball, zip) whose IDENTITY.md is a FIFO.
  it('an IDENTITY.md that is a FIFO does not hang the import', async () => {
    const { dir } = await lobu({ 'lobu.toml': AGENT });
    await mkdir(join(dir, 'agents/bot'), { recursive: true });
    const fifo = join(dir, 'agents/bot/IDENTITY.md');
    execSync(`mkfifo '${fifo}'`);
    const running = runImport({ dir }).then((r) => r.code);
    const result = await Promise.race([
      running,
      new Promise((resolve) => setTimeout(() => resolve('hung'), 3000)),
    ]);
    // Unblock the reader, and let the import end before its folder is removed.
    const writer = await open(fifo, fsConstants.O_RDWR | fsConstants.O_NONBLOCK);
    await writer.close();
    await running.catch(() => undefined);
    expect(result).not.toBe('hung');
  });

  // User loses: minutes of CPU (quadratic: 100k keys took 79 s) on a lobu.toml of unknown keys.
  it('a lobu.toml with 40k keys converts in seconds', { timeout: 120_000 }, async () => {
    let source = AGENT;
    for (let i = 0; i < 40_000; i++) source += `k${i} = 1\n`;
    const { dir } = await lobu({ 'lobu.toml': source });
    const start = Date.now();
    await runImport({ dir });
    expect(Date.now() - start).toBeLessThan(5_000);
  });

  // User loses: minutes of CPU on one watcher query (ReDoS: 350 kB of "a order by" took 20 s, quadratic).
  it('translateQuery is linear: a 130 kB query of "order by" returns at once', {
    timeout: 60_000,
  }, () => {
    const query = `select * from events where ${'a order by '.repeat(12_000)}!`;
    const start = Date.now();
    expect(translateQuery(query)).toBeNull();
    expect(Date.now() - start).toBeLessThan(500);
  });

  // User loses: a stack trace (RangeError: Invalid string length) on a 600 MB (sparse) models/x.yaml.
  it('a model file too large to read is a clear error, not a crash', { timeout: 60_000 }, async () => {
    const { dir } = await lobu({ 'lobu.toml': AGENT, 'models/a.yaml': '' });
    await truncate(join(dir, 'models/a.yaml'), 600 * 1024 * 1024);
    const run = await runImport({ dir });
    expect([0, 1, 2]).toContain(run.code);
  });

  // User loses: an IDENTITY.md over the size cap left out of svc with no word in the report.
  it('an IDENTITY.md too large to read is a clear error naming it, and nothing is written', {
    timeout: 60_000,
  }, async () => {
    const { dir } = await lobu({ 'lobu.toml': AGENT, 'agents/bot/IDENTITY.md': '' });
    await truncate(join(dir, 'agents/bot/IDENTITY.md'), 600 * 1024 * 1024);
    const run = await runImport({ dir });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/agents\/bot\/IDENTITY\.md: 600 MB, more than the 10 MB/);
    expect(existsSync(`${dir}-svc`)).toBe(false);
  });

  it('deeply nested TOML is one invalid-TOML error; deeply nested YAML finishes', async () => {
    const { dir } = await lobu({ 'lobu.toml': `${AGENT}x = ${'['.repeat(5000)}${']'.repeat(5000)}\n` });
    const run = await runImport({ dir });
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/lobu\.toml:\d+:\d+: invalid TOML/);
    const { dir: d2 } = await lobu({
      'lobu.toml': AGENT,
      'models/deep.yaml': `entities: ${'['.repeat(20000)}${']'.repeat(20000)}\n`,
    });
    expect((await runImport({ dir: d2 })).code).toBe(0);
  });

  it('a models folder of 1000 files finishes', { timeout: 60_000 }, async () => {
    const files: Record<string, string> = { 'lobu.toml': AGENT };
    for (let i = 0; i < 1000; i++) files[`models/m${i}.yaml`] = `entities:\n  - slug: e${i}\n    name: E\n`;
    const dir = await writeProject(files);
    const run = await runImport({ dir });
    expect(run.code).toBe(0);
    expect((await lstat(`${dir}-svc/models`)).isDirectory()).toBe(true);
  });
});

describe('svc import lobu: what reaches the terminal', () => {
  it('shows control characters of the project escaped, never as terminal sequences, and keeps them in --json', async () => {
    // A user reading the report would see a cleared screen or a forged line instead of what the
    // project holds.
    const hostile = 'bot\u001b[2J\u001b[1;1Hall clear\u009b31m';
    const { dir } = await lobu({
      'lobu.toml': `[agents.bot]\nname = ${JSON.stringify(hostile)}\n[agents.bot."weird\\u001bkey"]\nx = 1\n`,
    });
    const text = await runImport({ dir });
    expect(text.code, text.err).not.toBe(1);
    const raw = (output: string) => output.includes('\u001b') || output.includes('\u009b');
    expect(raw(`${text.out}\n${text.err}`)).toBe(false);
    expect(text.out).toContain('\\u{1b}');
    const json = await runImport({ dir, json: true, force: true });
    expect(raw(json.out)).toBe(false);
    expect(JSON.stringify(json.json)).toContain('weird\\u001bkey');
  });
});
