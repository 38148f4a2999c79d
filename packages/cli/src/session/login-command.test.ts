import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { exited, svc } from '../../test/run-svc.js';

let server: TestServer;
let config: string;
beforeAll(async () => {
  server = await startTestServer();
  config = await mkdtemp(join(tmpdir(), 'svc-login-cmd-'));
});
afterAll(() => rm(config, { recursive: true, force: true }));

describe('svc login, whoami, logout as commands', () => {
  it('works non-interactively in CI, and exits 1 with the reason on failure', async () => {
    const { secret } = await createToken(server, 'default', ['read']);
    const env = { XDG_CONFIG_HOME: config, CI: 'true' };
    const noToken = svc(['login'], env);
    expect(await exited(noToken)).toBe(1);
    expect(noToken.output()).toMatch(
      /svc login: no terminal to ask for a token: use "svc login --token <API_TOKEN>/,
    );

    const ok = svc(['login', '--token', secret, '--url', server.url], env);
    expect(await exited(ok)).toBe(0);
    const who = svc(['whoami'], env);
    expect(await exited(who)).toBe(0);
    expect(who.output()).toMatch(/org +default/);
    expect(who.output()).not.toContain(secret);

    const out = svc(['logout'], env);
    expect(await exited(out)).toBe(0);
    const after = svc(['whoami'], env);
    expect(await exited(after)).toBe(1);
    expect(after.output()).toMatch(/not logged in/);
  });
});
