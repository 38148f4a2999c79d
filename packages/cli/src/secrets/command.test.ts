import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgRef } from '../../../server/src/http/types.js';
import {
  ADMIN_PASSWORD,
  createToken,
  startTestServer,
  type TestServer,
} from '../../../server/test/harness.js';
import { type RecordingProxy, startRecordingProxy } from '../../test/recording-proxy.js';
import { exited, svc } from '../../test/run-svc.js';
import { type SecretsIo, secretsList, secretsSet, secretsUnset } from './command.js';

const CANARY = 'canary-5e2b7d-secret-value';
/** The rule the server states in its 422 `secret_reserved` answer. */
const RULE =
  "names starting with SVC_, PG or NODE_, and DATABASE_URL, are the server's own settings and cannot be referenced";

let server: TestServer;
let proxy: RecordingProxy;
let admin: string;
let reader: string;
let configHome: string;
let org: OrgRef;
beforeAll(async () => {
  server = await startTestServer();
  proxy = await startRecordingProxy(server.url);
  admin = (await createToken(server, 'default', ['admin'])).secret;
  reader = (await createToken(server, 'default', ['read'])).secret;
  configHome = await mkdtemp(join(tmpdir(), 'svc-secrets-'));
  const { rows } = await server.pool.query<OrgRef>("SELECT id::text, slug FROM orgs WHERE slug = 'default'");
  org = rows[0] as OrgRef;
});
afterAll(async () => {
  await proxy.close();
  await rm(configHome, { recursive: true, force: true });
});

/** What a reference to `name` resolves to on the server now, through its own resolver. */
const stored = (name: string) => server.options.secrets.resolve(org, `$${name}`);

/** A session over the recording proxy. `stdin` null is a terminal; `answers` are typed at prompts. */
function io(
  options: { env?: Record<string, string>; stdin?: string | null; answers?: string[]; token?: string } = {},
) {
  const lines: string[] = [];
  const asked: { question: string; secret?: boolean }[] = [];
  const answers = [...(options.answers ?? [])];
  const value: SecretsIo & { lines: string[]; asked: typeof asked } = {
    env: {
      SVC_URL: proxy.url,
      SVC_API_TOKEN: options.token ?? admin,
      XDG_CONFIG_HOME: configHome,
      ...options.env,
    },
    out: (line) => lines.push(line),
    interactive: answers.length > 0,
    ask: async (question, { secret }) => {
      asked.push({ question, secret });
      const answer = answers.shift();
      if (answer === undefined) throw new Error('asked more than expected');
      return answer;
    },
    stdin:
      options.stdin === undefined || options.stdin === null
        ? null
        : async (limit) => (options.stdin as string).slice(0, limit + 1),
    lines,
    asked,
  };
  return value;
}

/** Runs `fn` and answers its error message, or fails when it did not throw. */
async function failure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the command to fail');
}

describe('svc secrets set', () => {
  it('takes the value from stdin, one trailing newline removed, and says created, unchanged, updated', async () => {
    const first = io({ stdin: `${CANARY}\n` });
    await secretsSet('STDIN_KEY', {}, first);
    expect(first.lines).toEqual(['created secret STDIN_KEY in org default']);
    expect(await stored('STDIN_KEY')).toBe(CANARY);

    const again = io({ stdin: `${CANARY}\r\n` });
    await secretsSet('STDIN_KEY', {}, again);
    expect(again.lines).toEqual(['unchanged secret STDIN_KEY in org default']);

    // Only one newline goes: a value may end with one of its own.
    const changed = io({ stdin: `${CANARY}-2\n\n` });
    await secretsSet('STDIN_KEY', {}, changed);
    expect(changed.lines).toEqual(['updated secret STDIN_KEY in org default']);
    expect(await stored('STDIN_KEY')).toBe(`${CANARY}-2\n`);
  });

  it('takes the value from the environment variable of the same name when stdin is a terminal', async () => {
    const session = io({ env: { ENV_KEY: CANARY }, stdin: null });
    await secretsSet('ENV_KEY', {}, session);
    expect(session.lines).toEqual(['created secret ENV_KEY in org default']);
    expect(await stored('ENV_KEY')).toBe(CANARY);
  });

  it('takes the environment variable when stdin is empty but not a terminal, as in CI', async () => {
    const session = io({ env: { CI_KEY: CANARY }, stdin: '' });
    await secretsSet('CI_KEY', {}, session);
    expect(session.lines).toEqual(['created secret CI_KEY in org default']);
  });

  it('prefers stdin to the environment variable when both are there', async () => {
    await secretsSet('BOTH_KEY', {}, io({ env: { BOTH_KEY: 'from-env' }, stdin: CANARY }));
    expect(await stored('BOTH_KEY')).toBe(CANARY);
  });

  it('asks with a hidden prompt on a terminal when the variable is not set', async () => {
    const session = io({ stdin: null, answers: [CANARY] });
    await secretsSet('PROMPT_KEY', {}, session);
    expect(session.asked).toEqual([{ question: 'Value of PROMPT_KEY', secret: true }]);
    expect(await stored('PROMPT_KEY')).toBe(CANARY);
  });

  it('refuses an empty stdin, an empty variable and no source at all, sending nothing', async () => {
    const before = proxy.requests.length;
    expect(await failure(() => secretsSet('EMPTY_KEY', {}, io({ stdin: '\n' })))).toMatch(
      /^stdin is empty and the environment variable EMPTY_KEY is not set: nothing to store/,
    );
    expect(
      await failure(() => secretsSet('EMPTY_KEY', {}, io({ env: { EMPTY_KEY: '' }, stdin: null }))),
    ).toBe('the environment variable EMPTY_KEY is empty: nothing to store');
    expect(await failure(() => secretsSet('EMPTY_KEY', {}, io({ stdin: null })))).toBe(
      `no value for EMPTY_KEY: pipe it on stdin (printf '%s' "$VALUE" | svc secrets set EMPTY_KEY), or set the environment variable EMPTY_KEY`,
    );
    expect(await failure(() => secretsSet('LONG_KEY', {}, io({ stdin: 'x'.repeat(65_537) })))).toBe(
      'the value from stdin is longer than 65536 characters',
    );
    expect(proxy.requests.length).toBe(before);
  });

  it('refuses a reserved name in the server’s words, and a malformed one, before any request', async () => {
    const before = proxy.requests.length;
    for (const name of ['SVC_ADMIN_PASSWORD', 'DATABASE_URL', 'PGPASSWORD', 'NODE_OPTIONS']) {
      expect(await failure(() => secretsSet(name, {}, io({ stdin: CANARY })))).toBe(
        `"${name}" cannot be an org secret: ${RULE}`,
      );
    }
    expect(await failure(() => secretsSet('openai_key', {}, io({ stdin: CANARY })))).toBe(
      '"openai_key" is not a secret name: must be a variable name such as OPENAI_API_KEY (A-Z, 0-9, _)',
    );
    expect(await failure(() => secretsUnset('SVC_X', {}, io()))).toBe(
      `"SVC_X" cannot be an org secret: ${RULE}`,
    );
    expect(proxy.requests.length).toBe(before);
    // The server, asked directly, says the same.
    const direct = await server.call('PUT', '/api/default/secrets/SVC_ADMIN_PASSWORD', {
      body: { value: 'x' },
    });
    expect(direct.body.detail).toBe(`"SVC_ADMIN_PASSWORD" cannot be an org secret: ${RULE}`);
  });

  it('reports a token without the admin scope as the server’s refusal, and stores nothing', async () => {
    const message = await failure(() => secretsSet('READER_KEY', {}, io({ stdin: CANARY, token: reader })));
    expect(message).toMatch(/^PUT \/api\/default\/secrets\/READER_KEY: .*\(forbidden\)$/);
    expect(message).not.toContain(CANARY);
    await expect(stored('READER_KEY')).rejects.toThrow(/not set/);
  });
});

describe('svc secrets list and unset', () => {
  it('lists names and update times, never values, as a table and as JSON', async () => {
    await secretsSet('LIST_A', {}, io({ stdin: CANARY }));
    await secretsSet('LIST_B', {}, io({ stdin: CANARY }));
    const table = io({ token: reader });
    await secretsList({}, table);
    expect(table.lines[0]).toMatch(/^NAME\s+UPDATED$/);
    expect(table.lines).toContainEqual(
      expect.stringMatching(/^LIST_A\s+\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-][\d:]+)$/),
    );
    expect(table.lines).toContainEqual(expect.stringMatching(/^LIST_B\s+/));
    expect(table.lines.join('\n')).not.toContain(CANARY);

    const json = io({ token: reader });
    await secretsList({ json: true }, json);
    const parsed = JSON.parse(json.lines.join('\n'));
    expect(parsed.org).toBe('default');
    expect(parsed.secrets).toContainEqual({
      name: 'LIST_A',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(JSON.stringify(parsed)).not.toContain(CANARY);
  });

  it('unsets a secret, which then no longer resolves; unsetting it again is an error', async () => {
    await secretsSet('GONE_KEY', {}, io({ stdin: CANARY }));
    const session = io();
    await secretsUnset('GONE_KEY', {}, session);
    expect(session.lines).toEqual(['deleted secret GONE_KEY from org default']);
    await expect(stored('GONE_KEY')).rejects.toThrow(/GONE_KEY is not set/);
    expect(await failure(() => secretsUnset('GONE_KEY', {}, io()))).toBe(
      'org default has no secret GONE_KEY: nothing to unset ("svc secrets list" shows them)',
    );
  });

  it('says when the org has no secrets', async () => {
    expect((await server.call('POST', '/api/orgs', { body: { slug: 'empty' } })).status).toBe(201);
    const session = io({ token: ADMIN_PASSWORD });
    await secretsList({ org: 'empty' }, session);
    expect(session.lines).toEqual(['No secrets in org empty: add one with "svc secrets set NAME".']);
  });
});

describe('svc secrets, as a process', () => {
  const env = () => ({ SVC_URL: proxy.url, SVC_API_TOKEN: admin, XDG_CONFIG_HOME: configHome });

  it('the value is in the PUT body and nowhere else: no other request, no header, no output', async () => {
    const from = proxy.requests.length;
    const set = svc(['secrets', 'set', 'PROCESS_KEY'], env(), undefined, `${CANARY}\n`);
    expect(await exited(set), set.output()).toBe(0);
    expect(set.output()).toBe('created secret PROCESS_KEY in org default\n');
    // Piped in, stdin is the source even with the variable set: the same value again is unchanged.
    const again = svc(
      ['secrets', 'set', 'PROCESS_KEY'],
      { ...env(), PROCESS_KEY: 'other' },
      undefined,
      CANARY,
    );
    expect(await exited(again), again.output()).toBe(0);
    expect(again.output()).toBe('unchanged secret PROCESS_KEY in org default\n');
    const list = svc(['secrets', 'list'], env());
    expect(await exited(list), list.output()).toBe(0);
    expect(list.output()).toMatch(/^PROCESS_KEY\s+\S+$/m);
    const unset = svc(['secrets', 'unset', 'PROCESS_KEY'], env());
    expect(await exited(unset), unset.output()).toBe(0);
    expect(unset.output()).toBe('deleted secret PROCESS_KEY from org default\n');

    const requests = proxy.requests.slice(from);
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'PUT /api/default/secrets/PROCESS_KEY',
      'PUT /api/default/secrets/PROCESS_KEY',
      'GET /api/default/secrets',
      'DELETE /api/default/secrets/PROCESS_KEY',
    ]);
    for (const request of requests) {
      const { body, ...rest } = request;
      expect(JSON.stringify(rest)).not.toContain(CANARY);
      if (request.method === 'PUT') expect(JSON.parse(body)).toEqual({ value: CANARY });
      else expect(body).not.toContain(CANARY);
    }
    for (const run of [set, again, list, unset]) expect(run.output()).not.toContain(CANARY);
  });

  it('exits 1 with the reason on stderr: reserved name, empty stdin', async () => {
    const from = proxy.requests.length;
    const reserved = svc(['secrets', 'set', 'SVC_ADMIN_PASSWORD'], env(), undefined, CANARY);
    expect(await exited(reserved)).toBe(1);
    expect(reserved.output()).toBe(
      `svc secrets set: "SVC_ADMIN_PASSWORD" cannot be an org secret: ${RULE}\n`,
    );
    const empty = svc(['secrets', 'set', 'EMPTY_PROCESS_KEY'], env(), undefined, '');
    expect(await exited(empty)).toBe(1);
    expect(empty.output()).toMatch(
      /^svc secrets set: stdin is empty and the environment variable EMPTY_PROCESS_KEY is not set/,
    );
    expect(proxy.requests.length).toBe(from);
  });

  it('--help states where the value comes from, and the exit codes', async () => {
    const help = svc(['secrets', 'set', '--help'], {});
    expect(await exited(help)).toBe(0);
    const text = help.output().replace(/\s+/g, ' ');
    expect(text).toContain('The value comes from stdin when something is piped in');
    expect(text).toContain('never taken from a flag or an argument');
    expect(text).toContain('Exit codes: 0 stored, 1 any error');
  });
});
