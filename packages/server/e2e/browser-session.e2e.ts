import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunWorkers } from '../src/runs/worker.js';
import { createToken, startTestServer, type TestServer } from '../test/harness.js';
import { startTestRunWorkers } from '../test/runtime.js';

/**
 * `browser` auth with Debian's Chromium (DESIGN.md section 10, "Auth flows"): a person logs in to
 * a site (here a local page that sets cookies for the required domain and for another one, the
 * test domains mapped to 127.0.0.1 by Chromium's --host-resolver-rules), the server captures the
 * cookies over CDP (SVC_EGRESS_ALLOW=127.0.0.1, as the test server sets it), or `svc memory
 * browser-auth` captures them on the person's machine and uploads them; the next sync's
 * `ctx.sessionState` has the required domain's cookies and not the other's.
 */

const CHROMIUM = process.env.SVC_CHROMIUM_PATH || '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../../', import.meta.url));
const svcBin = join(root, 'packages/cli/bin/svc.js');

/** Every page sets a host-only session cookie with a fresh value and a domain-wide one. */
let site: Server;
let sitePort: number;
const hits: string[] = [];
const values: string[] = [];
let served = 0;

let server: TestServer;
let workers: RunWorkers;

const connector = `
import { defineConnector, log } from '@svc/connector-sdk';
export default defineConnector({
  key: 'example-site', name: 'Example site', version: '1.0.0',
  authSchema: { methods: [{ type: 'browser', capture: 'cli', requiredDomains: ['example.test'] }] },
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    log.info('session', { cookies: ctx.sessionState?.cookies });
    return {
      events: [{ origin_id: 'seen-' + Date.now(), payload_text: 'session', occurred_at: '2026-01-01T00:00:00Z',
        metadata: { cookies: ctx.sessionState?.cookies ?? null } }],
      checkpoint: null,
    };
  } } },
});`;

const rules = () =>
  `--host-resolver-rules=MAP example.test 127.0.0.1:${sitePort}, MAP *.example.test 127.0.0.1:${sitePort}, MAP *.other.test 127.0.0.1:${sitePort}`;

async function until<T>(
  what: string,
  check: () => Promise<T | undefined> | T | undefined,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);
  site = createServer((request, response) => {
    const host = String(request.headers.host).split(':')[0] as string;
    hits.push(host);
    const value = `value-${host}-${++served}-${Math.random().toString(36).slice(2)}`;
    values.push(value);
    const parent = host.replace(/^www\./, '');
    response.setHeader('set-cookie', [
      `sid=${value}; Path=/; HttpOnly`,
      `pref=wide-${served}-${parent}; Domain=${parent}; Path=/`,
    ]);
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>logged in</title><p>logged in</p>');
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => site.once('listening', resolve));
  sitePort = (site.address() as { port: number }).port;
  server = await startTestServer({ connectorSourceInstalls: true });
  const installed = await server.call('POST', '/api/default/connectors', { body: { source: connector } });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  workers = await startTestRunWorkers(server, { limits: { timeoutMs: 30_000, memoryMb: 256 } });
}, 120_000);

afterAll(async () => {
  await workers?.close(1000);
  site?.close();
});

async function connect(): Promise<{ connectionId: string; feedId: string }> {
  const res = await server.call('POST', '/api/default/connections', {
    body: { connectorKey: 'example-site' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await server.pool.query(
    `UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE connection_id = $1`,
    [res.body.connection.id],
  );
  return { connectionId: String(res.body.connection.id), feedId: String(res.body.feeds[0].id) };
}

/** The cookies the next sync of the feed got on ctx.sessionState, and its run's log as text. */
async function nextSync(feedId: string) {
  const started = await server.call('POST', `/api/default/feeds/${feedId}/sync`);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const run = await until('the sync to end', async () => {
    const { body } = await server.call('GET', `/api/default/runs/${started.body.run.id}`);
    return ['pending', 'running'].includes(body.run.status) ? undefined : body.run;
  });
  expect(run.status, run.errorMessage).toBe('completed');
  const { rows } = await server.pool.query('SELECT metadata FROM events WHERE run_id = $1', [run.id]);
  const logs = await server.call('GET', `/api/default/runs/${run.id}/logs`);
  return {
    cookies: rows[0].metadata.cookies as { name: string; value: string; domain: string }[],
    log: JSON.stringify(logs.body),
  };
}

describe('a browser session captured over CDP by the server', () => {
  let browser: ChildProcess;
  let profile: string;

  afterAll(async () => {
    browser?.kill('SIGKILL');
    if (profile) await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it("reaches the next sync's ctx.sessionState: the required domain's cookies, not the other's", async () => {
    profile = await mkdtemp(join(tmpdir(), 'svc-e2e-chromium-'));
    browser = spawn(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--user-data-dir=${profile}`,
        '--remote-debugging-port=0',
        rules(),
        'http://www.example.test/',
      ],
      { stdio: 'ignore' },
    );
    const port = await until('DevToolsActivePort', async () => {
      const text = await readFile(join(profile, 'DevToolsActivePort'), 'utf8').catch(() => '');
      return Number(text.split('\n')[0]) || undefined;
    });
    // The person logs in to another site too, in the same browser.
    await fetch(`http://127.0.0.1:${port}/json/new?http://www.other.test/`, { method: 'PUT' });
    await until('both pages', () =>
      hits.includes('www.example.test') && hits.includes('www.other.test') ? true : undefined,
    );
    const { connectionId, feedId } = await connect();
    const captured = await until('cookies of both sites in the browser', async () => {
      const res = await server.call('POST', `/api/default/connections/${connectionId}/browser-session`, {
        body: { cdpUrl: `http://127.0.0.1:${port}` },
      });
      return res.status === 200 && res.body.session.cookies === 2 ? res : undefined;
    });
    expect(captured.body.session.domains).toEqual([{ domain: 'example.test', cookies: 2 }]);
    expect(captured.body.connection).toMatchObject({ status: 'active', errorMessage: null });
    const answer = JSON.stringify(captured.body);
    for (const value of values) expect(answer).not.toContain(value);

    const { cookies, log } = await nextSync(feedId);
    expect(cookies.map((c) => `${c.name}@${c.domain}`).sort()).toEqual([
      'pref@.example.test',
      'sid@www.example.test',
    ]);
    expect(cookies.find((c) => c.name === 'sid')).toMatchObject({
      value: expect.stringMatching(/^value-www\.example\.test-/),
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: false,
      sameSite: 'Lax',
    });
    expect(JSON.stringify(cookies)).not.toContain('other.test');
    expect(log).toContain('session');
    for (const cookie of cookies) expect(log).not.toContain(cookie.value);
  }, 90_000);
});

describe('svc memory browser-auth', () => {
  it("opens a fresh profile, waits for Enter, uploads the required domain's cookies, prints counts only and removes the profile", async () => {
    if (!existsSync(join(root, 'packages/cli/dist/bin.js')))
      throw new Error('no built CLI: run "npm run build" before "npm run test:e2e"');
    const { connectionId, feedId } = await connect();
    const token = await createToken(server, 'default', ['write']);
    const profilesBefore = (await readdir(tmpdir())).filter((name) => name.startsWith('svc-browser-auth-'));
    const before = hits.length;
    const cli = spawn(
      process.execPath,
      [
        svcBin,
        'memory',
        'browser-auth',
        '--connection',
        connectionId,
        '--headless',
        '--open',
        'http://www.example.test/',
        '--open',
        'http://www.other.test/',
        `--browser-arg=${rules()}`,
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          SVC_URL: server.url,
          SVC_API_TOKEN: token.secret,
          SVC_ORG: 'default',
          SVC_CHROMIUM_PATH: CHROMIUM,
        },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    cli.stdout.on('data', (chunk) => (stdout += chunk));
    cli.stderr.on('data', (chunk) => (stderr += chunk));
    const code = new Promise<number | null>((resolve) => cli.once('close', resolve));
    await until('the prompt', () =>
      /press Enter/.test(stderr) ? true : cli.exitCode !== null ? true : undefined,
    );
    expect(stderr, stderr).toMatch(/Log in there, then press Enter/);
    // While it waits, the temporary profile exists.
    const during = (await readdir(tmpdir())).filter((name) => name.startsWith('svc-browser-auth-'));
    expect(during.length).toBe(profilesBefore.length + 1);
    await until('both pages', () => {
      const seen = hits.slice(before);
      return seen.includes('www.example.test') && seen.includes('www.other.test') ? true : undefined;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    cli.stdin.end('\n');
    expect(await code, `${stdout}\n${stderr}`).toBe(0);
    expect(stdout).toBe('example.test\t2 cookies\n');
    expect(stderr).toMatch(new RegExp(`Captured 2 cookies for connection ${connectionId} \\(now active\\)`));
    for (const value of values) {
      expect(stdout).not.toContain(value);
      expect(stderr).not.toContain(value);
    }
    const after = (await readdir(tmpdir())).filter((name) => name.startsWith('svc-browser-auth-'));
    expect(after.sort()).toEqual(profilesBefore.sort());

    const { cookies } = await nextSync(feedId);
    expect(cookies.map((c) => `${c.name}@${c.domain}`).sort()).toEqual([
      'pref@.example.test',
      'sid@www.example.test',
    ]);
    expect(JSON.stringify(cookies)).not.toContain('other.test');
  }, 90_000);

  it('says where to get Chromium when there is none, and sends nothing', async () => {
    const cli = spawn(process.execPath, [svcBin, 'memory', 'browser-auth', '--connection', '1'], {
      cwd: root,
      env: {
        ...process.env,
        SVC_URL: 'http://127.0.0.1:1',
        SVC_API_TOKEN: 'svc_x',
        SVC_CHROMIUM_PATH: '/nonexistent/chromium',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    cli.stderr.on('data', (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => cli.once('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/SVC_CHROMIUM_PATH is \/nonexistent\/chromium.*apt-get install chromium/);
  }, 30_000);
});
