import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunWorkers } from '../../../server/src/runs/worker.js';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { startTestRunWorkers } from '../../../server/test/runtime.js';
import { exited, svc, waitFor } from '../../test/run-svc.js';
import type { RuntimeIo } from './api.js';
import { connectionAuth, type PromptField } from './auth.js';

/**
 * `svc connection auth` against a real server and run worker: the connector's authenticate() runs
 * in its sandbox, the command draws its QR code, asks its prompt and posts the answer.
 */

const OTP = '918273';

const PHONE = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'phone', name: 'Phone', version: '1.0.0',
  authSchema: { methods: [{ type: 'interactive', expectedArtifact: 'qr', timeoutSec: 30 }] },
  feeds: { items: { key: 'items', name: 'Items', async sync() { return { events: [], checkpoint: null }; } } },
  async authenticate(ctx) {
    await ctx.emit({ type: 'qr', value: 'pair://device?code=abc', instructions: 'Scan it with the phone' });
    await ctx.emit({ type: 'prompt', fields: [
      { key: 'name', label: 'Device name', kind: 'text' },
      { key: 'otp', label: 'Code', kind: 'otp', required: true },
    ], submitSignal: 'login' });
    const answer = await ctx.awaitSignal('login', { timeoutMs: 20000 });
    if (answer.otp !== '${OTP}') throw new Error('the code was wrong');
    await ctx.emit({ type: 'status', message: 'linked ' + answer.name });
    return { credentials: { session: 'sess-' + answer.otp }, metadata: { account_id: 'acct-1' } };
  },
});`;

/**
 * Shows a code, then never finishes: the run times out. timeoutSec counts from the run's start,
 * the child's start included, so it must leave the child time to emit first: 2 s did not, once, on
 * a loaded CI machine under Node 24 (the code never shown).
 */
const SHORT = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'short', name: 'Short', version: '1.0.0',
  authSchema: { methods: [{ type: 'interactive', timeoutSec: 6 }] },
  feeds: { items: { key: 'items', name: 'Items', async sync() { return { events: [], checkpoint: null }; } } },
  async authenticate(ctx) {
    await ctx.emit({ type: 'code', value: 'WXYZ-1234', instructions: 'Type it on the TV' });
    await new Promise(() => {});
  },
});`;

/** Shows a code and waits (for a minute): long enough for any Ctrl-C. */
const TV = SHORT.replace("key: 'short', name: 'Short'", "key: 'tv', name: 'TV'").replace(
  'timeoutSec: 6',
  'timeoutSec: 60',
);

const LOGIN = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'login', name: 'Login', version: '1.0.0',
  authSchema: { methods: [{ type: 'interactive', timeoutSec: 60 }] },
  feeds: { items: { key: 'items', name: 'Items', async sync() { return { events: [], checkpoint: null }; } } },
  async authenticate(ctx) {
    await ctx.emit({ type: 'redirect', url: 'https://example.com/login', mode: 'same-tab', awaitSignal: 'back' });
    return { credentials: await ctx.awaitSignal('back') };
  },
});`;

let server: TestServer;
let workers: RunWorkers;
let admin: string;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  admin = (await createToken(server, 'default', ['admin'])).secret;
  dir = await mkdtemp(join(tmpdir(), 'svc-auth-'));
  for (const source of [PHONE, SHORT, TV, LOGIN]) {
    const res = await server.call('POST', '/api/default/connectors', { body: { source } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  workers = await startTestRunWorkers(server);
}, 60_000);

afterAll(async () => {
  await workers?.close(1000);
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ SVC_URL: server.url, SVC_API_TOKEN: admin, XDG_CONFIG_HOME: dir });

async function connect(connectorKey: string): Promise<string> {
  const res = await server.call('POST', '/api/default/connections', { body: { connectorKey } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return String(res.body.connection.id);
}

function io(): RuntimeIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: env(),
    out: (line) => lines.push(line),
    err: (line) => errors.push(line),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pollMs: 100,
    lines,
    errors,
  };
}

describe('svc connection auth', () => {
  it('answers a prompt through piped input and exits 0 once the connection is authenticated', async () => {
    const id = await connect('phone');
    const child = svc(['connection', 'auth', id], env(), undefined, `kitchen tablet\n${OTP}\n`);
    const code = await exited(child);
    const output = child.output();
    expect(code, output).toBe(0);
    expect(output).toContain('Scan it with the phone');
    // The QR code, drawn with half blocks.
    expect(output).toMatch(/[▀▄█]{10,}/);
    expect(output).toContain('status: completed');
    expect(output).toContain('linked kitchen tablet');
    expect(output).toContain(`connection ${id} is authenticated`);
    expect(output).not.toContain(OTP);
    const connection = (
      await server.pool.query('SELECT status, credential_keys FROM connections WHERE id = $1', [id])
    ).rows[0];
    expect(connection).toEqual({ status: 'active', credential_keys: ['session'] });
  }, 60_000);

  it('--json prints each event a line, asking the prompt through the given asker', async () => {
    const id = await connect('phone');
    const asked: PromptField[] = [];
    const out = io();
    const code = await connectionAuth(id, { json: true }, out, async (field) => {
      asked.push(field);
      return field.key === 'otp' ? OTP : 'laptop';
    });
    expect(code).toBe(0);
    expect(asked.map((f) => [f.key, f.kind])).toEqual([
      ['name', 'text'],
      ['otp', 'otp'],
    ]);
    const events = out.lines.map((line) => JSON.parse(line));
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.data.status ?? e.data.artifact.type)).toEqual([
      'pending',
      'running',
      'qr',
      'prompt',
      'status',
      'completed',
    ]);
    expect(JSON.stringify(out)).not.toContain(OTP);
  }, 60_000);

  it('joins a run under way at the artifact it shows now', async () => {
    const id = await connect('phone');
    const started = await server.call('POST', `/api/default/connections/${id}/auth-runs`);
    expect(started.status).toBe(201);
    const runId = started.body.run.id;
    for (let i = 0; i < 200; i++) {
      const shown = await server.call('GET', `/api/default/auth-runs/${runId}`);
      if (shown.body.artifact?.type === 'prompt') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const out = io();
    let asked = 0;
    const code = await connectionAuth(id, { json: true }, out, async (field) => {
      asked++;
      return field.key === 'otp' ? OTP : 'desk';
    });
    expect(code).toBe(0);
    expect(asked).toBe(2);
    expect(out.errors[0]).toBe(`following the auth run already open for connection ${id}: ${runId}`);
    const events = out.lines.map((line) => JSON.parse(line));
    expect(events.map((e) => [e.id, e.data.status ?? e.data.artifact.type])).toEqual([
      [4, 'prompt'],
      [5, 'status'],
      [6, 'completed'],
    ]);
  }, 60_000);

  it('prints a redirect, posts the address the person pastes, and the connection is authenticated', async () => {
    const id = await connect('login');
    const child = svc(['connection', 'auth', id], env(), undefined, 'https://example.com/back?code=42\n');
    expect(await exited(child), child.output()).toBe(0);
    expect(child.output()).toContain('  https://example.com/login');
    expect(child.output()).toContain(`connection ${id} is authenticated`);
    const { rows } = await server.pool.query('SELECT credential_keys FROM connections WHERE id = $1', [id]);
    expect(rows[0].credential_keys).toEqual(['url']);
  }, 60_000);

  it('Ctrl-C cancels the run and exits 2', async () => {
    const id = await connect('tv');
    const child = svc(['connection', 'auth', id], env());
    await waitFor(child, /WXYZ-1234/);
    child.kill('SIGINT');
    expect(await exited(child), child.output()).toBe(2);
    expect(child.output()).toMatch(/auth run (\d+) ended cancelled/);
    const runId = child.output().match(/auth run (\d+) ended/)?.[1];
    expect((await server.pool.query('SELECT status FROM runs WHERE id = $1', [runId])).rows[0].status).toBe(
      'cancelled',
    );
  }, 60_000);

  it('exits 2 with the run’s error when it times out, and 1 for a connection that is not there', async () => {
    const id = await connect('short');
    const out = io();
    const code = await connectionAuth(id, {}, out, async () => {
      throw new Error('no prompt expected');
    });
    expect(code).toBe(2);
    expect(out.lines).toContain('  WXYZ-1234');
    expect(out.errors.at(-1)).toMatch(
      /ended timeout: the connector did not finish authenticating within 6 s/,
    );
    const missing = svc(['connection', 'auth', '999999'], env());
    expect(await exited(missing)).toBe(1);
    expect(missing.output()).toMatch(/has no connection 999999/);
  }, 60_000);
});
