import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  createToken,
  startTestServer,
  type TestServer,
} from '../../../server/test/harness.js';
import { createClient } from './client.js';
import { checkLink, contextName, type Io, link, login, logout, whoami } from './commands.js';
import { credentialsPath, readCredentials } from './credentials.js';
import { resolveSession } from './resolve.js';

let server: TestServer;
let token: string;
const dirs: string[] = [];
beforeAll(async () => {
  server = await startTestServer();
  await server.call('POST', '/api/orgs', { body: { slug: 'acme' } });
  token = (await createToken(server, 'acme', ['write'])).secret;
});
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function temp(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-session-'));
  dirs.push(dir);
  return dir;
}

/** An Io over a fresh config dir; `answers` are what a person would type at the prompts. */
async function io(
  answers: string[] = [],
  interactive = answers.length > 0,
): Promise<Io & { lines: string[] }> {
  const lines: string[] = [];
  const queue = [...answers];
  return {
    env: { XDG_CONFIG_HOME: await temp() },
    out: (line) => lines.push(line),
    interactive,
    ask: async () => {
      const answer = queue.shift();
      if (answer === undefined) throw new Error('asked more than expected');
      return answer;
    },
    lines,
  };
}

describe('svc login', () => {
  it('checks the token with whoami and saves a context named after the server, mode 0600', async () => {
    const session = await io();
    await login({ token, url: server.url }, session);
    const path = credentialsPath(session.env);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    const saved = await readCredentials(path);
    const name = contextName(server.url);
    expect(saved.current).toBe(name);
    expect(saved.contexts[name]).toEqual({ url: server.url, token, org: 'acme' });
    expect(session.lines.join('\n')).toMatch(/org acme, scopes read, write/);
    expect(session.lines.join('\n')).not.toContain(token);
  });

  it('asks for the URL and the token on a terminal', async () => {
    const session = await io([server.url, token]);
    await login({}, session);
    expect((await resolveSession(session.env)).org).toBe('acme');
  });

  it('refuses a token the server refuses, and saves nothing', async () => {
    const session = await io();
    await expect(login({ token: `svc_${'x'.repeat(43)}`, url: server.url }, session)).rejects.toThrow(
      /unknown API token \(unauthorized\)/,
    );
    expect((await readCredentials(credentialsPath(session.env))).contexts).toEqual({});
  });

  it('says how to log in without a terminal, and what is wrong with a bad URL or an absent server', async () => {
    await expect(login({}, await io([], false))).rejects.toThrow(/svc login --token <API_TOKEN>/);
    await expect(login({ token, url: 'localhost:8787' }, await io())).rejects.toThrow(/must start with http/);
    const closed = await closedPort();
    await expect(login({ token, url: `http://127.0.0.1:${closed}` }, await io())).rejects.toThrow(
      new RegExp(`cannot reach http://127.0.0.1:${closed} \\(ECONNREFUSED\\)`),
    );
    // Port 6000 is one fetch refuses outright; saying "cannot reach" would send people looking for a server.
    await expect(login({ token, url: 'http://127.0.0.1:6000' }, await io())).rejects.toThrow(
      /fetch refuses that port as unsafe/,
    );
  });

  it('takes --org for the admin password, which belongs to no org', async () => {
    const session = await io();
    await login({ token: ADMIN_PASSWORD, url: server.url, org: 'acme' }, session);
    expect((await resolveSession(session.env)).org).toBe('acme');
  });

  it('never saves an org the credentials cannot act on', async () => {
    const session = await io();
    await expect(login({ token, url: server.url, org: 'default' }, session)).rejects.toThrow(
      'this token belongs to org "acme", not "default": use --org acme, or log in with a token of org "default" ' +
        '(svc login --token <token of default>); nothing was saved',
    );
    await expect(login({ token: ADMIN_PASSWORD, url: server.url, org: 'ghost' }, session)).rejects.toThrow(
      /^org "ghost" does not exist on http:\S+ \(its orgs: acme, default\)/,
    );
    expect((await readCredentials(credentialsPath(session.env))).contexts).toEqual({});
  });
});

describe('concurrent logins', () => {
  it('keep every context: six at once all land in the file', async () => {
    const session = await io();
    await Promise.all(
      ['c1', 'c2', 'c3', 'c4', 'c5', 'c6'].map((context) =>
        login({ token, url: server.url, context }, session),
      ),
    );
    const saved = await readCredentials(credentialsPath(session.env));
    expect(Object.keys(saved.contexts).sort()).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
    expect((await stat(credentialsPath(session.env))).mode & 0o777).toBe(0o600);
  });
});

describe('sessions', () => {
  it('lets SVC_API_TOKEN, SVC_URL and SVC_ORG override the saved context, and flags override both', async () => {
    const session = await io();
    await login({ token, url: server.url }, session);
    const env = { ...session.env, SVC_API_TOKEN: 'from-env', SVC_ORG: 'other' };
    expect(await resolveSession(env)).toMatchObject({
      token: 'from-env',
      org: 'other',
      url: server.url,
      context: null,
    });
    expect(await resolveSession(env, { org: 'flagged', url: 'http://x' })).toMatchObject({
      org: 'flagged',
      url: 'http://x',
    });
  });

  it('whoami prints the server, org and scopes; logout forgets the context', async () => {
    const session = await io();
    await login({ token, url: server.url }, session);
    await whoami({}, session);
    expect(session.lines.join('\n')).toMatch(/org +acme[\s\S]*scopes +read, write/);
    await logout({}, session);
    await expect(resolveSession(session.env)).rejects.toThrow(/not logged in: run "svc login"/);
  });

  it("whoami --org names the token's org, and fails for another", async () => {
    const session = await io();
    await login({ token, url: server.url }, session);
    session.lines.length = 0;
    await expect(whoami({ org: 'default' }, session)).rejects.toThrow(
      /^this token belongs to org "acme", not "default"/,
    );
    expect(session.lines.join('\n')).toMatch(/^org +acme$/m);
    expect(session.lines.join('\n')).not.toMatch(/default/);
  });
});

describe('svc link and the apply guard', () => {
  it('writes .svc/project.json and refuses another (context, org) unless forced, naming both pairs', async () => {
    const session = await io();
    await login({ token, url: server.url }, session);
    const project = await temp();
    await link(project, {}, session);
    const linked = JSON.parse(await readFile(join(project, '.svc', 'project.json'), 'utf8'));
    expect(linked).toEqual({ context: contextName(server.url), org: 'acme', url: server.url });

    await expect(
      checkLink(project, { context: linked.context, org: 'acme' }, false),
    ).resolves.toBeUndefined();
    const other = checkLink(project, { context: linked.context, org: 'default' }, false);
    await expect(other).rejects.toThrow(/linked to \(context "127\.0\.0\.1:\d+", org "acme"\)/);
    await expect(other).rejects.toThrow(/org "default"\); use --force/);
    await expect(checkLink(project, { context: 'elsewhere', org: 'default' }, true)).resolves.toBeUndefined();
    // An unlinked project has nothing to guard.
    await expect(checkLink(await temp(), { context: null, org: 'x' }, false)).resolves.toBeUndefined();
  });

  it('refuses a project.json that says nothing usable, rather than dropping the guard', async () => {
    const project = await temp();
    await mkdir(join(project, '.svc'));
    await writeFile(join(project, '.svc', 'project.json'), 'null\n');
    await expect(checkLink(project, { context: 'x', org: 'y' }, false)).rejects.toThrow(
      /has no "context" and "org"/,
    );
  });

  it('lets CI (SVC_API_TOKEN, no context) apply to the server and org the project is linked to', async () => {
    const session = await io();
    await login({ token, url: server.url }, session);
    const project = await temp();
    await link(project, {}, session);
    const ci = { context: null, org: 'acme', url: `${server.url}/` };
    await expect(checkLink(project, ci, false)).resolves.toBeUndefined();
    await expect(checkLink(project, { ...ci, org: 'default' }, false)).rejects.toThrow(/org "acme"/);
    await expect(checkLink(project, { ...ci, url: 'http://127.0.0.1:9' }, false)).rejects.toThrow(
      /linked to the server/,
    );
    await expect(
      link(project, {}, { ...session, env: { ...session.env, SVC_API_TOKEN: token } }),
    ).rejects.toThrow(/SVC_API_TOKEN overrides them/);
  });
});

describe('the API client', () => {
  it('gives up on a server that accepts the connection but never answers, and says so', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    try {
      await expect(createClient(url, 'x', 300).request('GET', '/api/whoami')).rejects.toThrow(
        /GET http:\/\/127\.0\.0\.1:\d+\/api\/whoami got no answer within 0\.3 s/,
      );
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

/** A port nothing listens on: one the OS just gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
