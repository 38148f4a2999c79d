import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exited, svc } from '../../test/run-svc.js';
import { type ActionFlags, connectorAction, connectorSync, type SyncFlags } from './command.js';

const CONNECTOR = fileURLToPath(new URL('./test/counter-connector.ts', import.meta.url));
const TOKEN = 'canary-token-5e1b7';

/** The real `svc connector ...` process, stdout and stderr apart. */
async function run(args: string[], env: Record<string, string> = { SVC_CONNECTOR_ACCESS_TOKEN: TOKEN }) {
  const child = svc(['connector', ...args], env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c) => (stdout += c));
  child.stderr?.on('data', (c) => (stderr += c));
  const code = await exited(child);
  return { code, stdout, stderr };
}

/**
 * The same command in this process, for the many cases that only differ in flags: a process start
 * through tsx costs a second and a half. An error becomes exit 1 and one stderr line, as in bin.ts.
 */
async function runHere(args: string[], env: Record<string, string> = { SVC_CONNECTOR_ACCESS_TOKEN: TOKEN }) {
  const [command, file = '', ...rest] = args;
  const flags: Record<string, string | string[] | boolean> = {};
  for (let i = 0; i < rest.length; i++) {
    const name = (rest[i] ?? '').replace(/^--/, '').replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
    const value = rest[i + 1];
    if (value === undefined || value.startsWith('--')) flags[name] = true;
    else {
      // Repeatable, as bin.ts declares it.
      flags[name] = name === 'envKey' ? [...((flags[name] as string[] | undefined) ?? []), value] : value;
      i++;
    }
  }
  let stdout = '';
  let stderr = '';
  const io = { env, out: (l: string) => (stdout += `${l}\n`), err: (l: string) => (stderr += `${l}\n`) };
  try {
    const code =
      command === 'sync'
        ? await connectorSync(file, flags as unknown as SyncFlags, io)
        : await connectorAction(file, flags as unknown as ActionFlags, io);
    return { code, stdout, stderr };
  } catch (error) {
    return { code: 1, stdout, stderr: `${stderr}svc connector ${command}: ${(error as Error).message}\n` };
  }
}

describe('svc connector sync', () => {
  it('prints events as JSON lines on stdout, and the summary and checkpoint on stderr', async () => {
    const { code, stdout, stderr } = await run([
      'sync',
      CONNECTOR,
      '--feed',
      'items',
      '--config',
      '{"count":3}',
    ]);
    expect(code, stderr).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).origin_id),
    ).toEqual(['item-1', 'item-2', 'item-3']);
    expect(stderr).toContain('synced feed "items" of counter: 3 events');
    expect(stderr).toContain('checkpoint: {"next":4}');
    expect(stderr).toMatch(/\[info\] counting .*"token":"\[redacted\]"/);
    expect(stdout + stderr).not.toContain(TOKEN);
  });

  it('continues from --checkpoint', async () => {
    const { stdout } = await runHere([
      'sync',
      CONNECTOR,
      '--feed',
      'items',
      '--config',
      '{"count":2}',
      '--checkpoint',
      '{"next":10}',
    ]);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).origin_id),
    ).toEqual(['item-10', 'item-11']);
  });

  it.each([
    [['--feed', 'items', '--config', '{count:1}'], /--config is not JSON/],
    [['--feed', 'items', '--config', '[1]'], /--config must be a JSON object/],
    [['--feed', 'things', '--config', '{"count":1}'], /no feed "things"; its feeds: items/],
    [
      ['--feed', 'items', '--config', '{"count":-1}'],
      /config does not match feed "items"'s configSchema:\n\s+count: must be >= 0/,
    ],
    [['--feed', 'items', '--config', '{"count":2,"broken":true}'], /events\[2\]\.occurred_at: is required/],
  ])('fails with exit 1 and says why: %j', async (flags, message) => {
    const { code, stderr } = await runHere(['sync', CONNECTOR, ...flags]);
    expect(code).toBe(1);
    expect(stderr).toMatch(message);
  });

  it('names the variable when the OAuth token is missing, and reads another with --token-env', async () => {
    const missing = await runHere(['sync', CONNECTOR, '--feed', 'items', '--config', '{"count":1}'], {});
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /set SVC_CONNECTOR_ACCESS_TOKEN to an access token, or name another variable with --token-env/,
    );
    const other = await runHere(
      ['sync', CONNECTOR, '--feed', 'items', '--config', '{"count":1}', '--token-env', 'MY_TOKEN'],
      { MY_TOKEN: TOKEN },
    );
    expect(other.code, other.stderr).toBe(0);
  });

  it('says what is wrong with a file that is missing or exports no connector', async () => {
    expect((await runHere(['sync', 'nowhere.ts', '--feed', 'x'])).stderr).toMatch(
      /nowhere\.ts: no such file/,
    );
    const notConnector = fileURLToPath(new URL('../../test/run-svc.ts', import.meta.url));
    expect((await runHere(['sync', notConnector, '--feed', 'x'])).stderr).toMatch(/exports no connector/);
    const forgetful = fileURLToPath(new URL('./test/no-execute-connector.ts', import.meta.url));
    const incomplete = await runHere(['sync', forgetful, '--feed', 'x']);
    expect(incomplete.code).toBe(1);
    expect(incomplete.stderr).toMatch(
      /Forgetful is not a complete connector: it has no `execute\(ctx\)` method/,
    );
  });

  it("runs a connector written for Lobu's SDK: ConnectorRuntime, a dotted key, occurred_at as a Date", async () => {
    const lobu = fileURLToPath(new URL('./test/lobu-style-connector.ts', import.meta.url));
    const { code, stdout, stderr } = await runHere(['sync', lobu, '--feed', 'notes']);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout.trim())).toMatchObject({
      origin_id: 'n1',
      occurred_at: '2026-11-23T09:00:00.000Z',
    });
    expect(stderr).toMatch(/acme\.notes/);
  });
});

describe('svc connector sync: a connector that fails midway', () => {
  it('keeps what was emitted, and says where to resume', async () => {
    const { code, stdout, stderr } = await runHere([
      'sync',
      CONNECTOR,
      '--feed',
      'items',
      '--config',
      '{"count":3,"explode":true}',
    ]);
    expect(code).toBe(1);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).origin_id),
    ).toEqual(['item-1']);
    expect(stderr).toContain('before failing, the sync emitted 1 event(s) and committed 1 checkpoint(s)');
    expect(stderr).toContain(`resume with: --checkpoint '{"next":2}'`);
    expect(stderr).toContain('svc connector sync: the upstream went away');
  });
});

describe('svc connector: loading and edge cases', () => {
  const here = (name: string) => fileURLToPath(new URL(`./test/${name}`, import.meta.url));

  it('loads a plain .mjs object, asks no token when OAuth is optional, and accepts a null checkpoint', async () => {
    const { code, stdout, stderr } = await runHere(
      ['sync', here('plain-connector.mjs'), '--feed', 'once', '--checkpoint', 'null'],
      {},
    );
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout).payload_text).toBe("it's here");
    expect(stderr).toContain('checkpoint: null');
    expect(stderr).not.toContain('next:');
  });

  it('takes the exported instance rather than constructing the exported class, and quotes the hint for sh', async () => {
    const { code, stderr } = await runHere(['sync', here('class-and-instance.ts'), '--feed', 'f']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`next: --checkpoint '{"label":"ready","quote":"it'\\''s"}' to sync from here`);
  });

  it('reads env_keys values from the environment with --env-key, and keeps them out of the log', async () => {
    const key = 'shop-key-canary-77';
    const ok = await run(
      ['sync', here('keyed-connector.ts'), '--feed', 'f', '--env-key', 'api_key=MY_SHOP_KEY'],
      {
        MY_SHOP_KEY: key,
      },
    );
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).payload_text).toBe(`key of ${key.length} characters`);
    expect(ok.stderr).toContain('calling the shop with [redacted]');
    expect(ok.stdout + ok.stderr).not.toContain(key);

    const unset = await runHere(
      ['sync', here('keyed-connector.ts'), '--feed', 'f', '--env-key', 'api_key=NOPE'],
      {},
    );
    expect(unset.stderr).toMatch(/--env-key api_key=NOPE: NOPE is not set or is empty/);
    const malformed = await runHere(
      ['sync', here('keyed-connector.ts'), '--feed', 'f', '--env-key', 'api_key'],
      {},
    );
    expect(malformed.stderr).toMatch(/write it as field=VARIABLE/);
  });

  it('exits 1 from the real process on bad flags, saying what was wrong', async () => {
    const { code, stderr } = await run(['sync', CONNECTOR, '--feed', 'items', '--config', '{count:1}']);
    expect(code).toBe(1);
    expect(stderr).toMatch(/^svc connector sync: --config is not JSON/);
  });
});

describe('svc connector action', () => {
  it('refuses an action that requires approval unless --approve, and runs it with', async () => {
    const refused = await run(['action', CONNECTOR, '--action', 'reset', '--input', '{"to":5}']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/requires approval.*--approve.*nothing was done/);

    const approved = await runHere([
      'action',
      CONNECTOR,
      '--action',
      'reset',
      '--input',
      '{"to":5}',
      '--approve',
    ]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({ success: true, output: { reset_to: 5 } });
    expect(approved.stderr).toMatch(/action "reset" of counter succeeded/);
  });

  it('exits 1 on a failure result or an input against the schema', async () => {
    const failed = await runHere(['action', CONNECTOR, '--action', 'fail']);
    expect(failed.code).toBe(1);
    expect(JSON.parse(failed.stdout)).toEqual({ success: false, error: 'the counter is read-only today' });
    expect(failed.stderr).toMatch(/failed: the counter is read-only today/);
    const bad = await runHere([
      'action',
      CONNECTOR,
      '--action',
      'reset',
      '--input',
      '{"to":"five"}',
      '--approve',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/input does not match action "reset"'s inputSchema:\n\s+to: must be integer/);
  });
});
