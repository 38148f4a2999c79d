import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeOAuth, startFakeOAuth } from '../../../server/test/fakes/oauth.js';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { type RecordingProxy, startRecordingProxy } from '../../test/recording-proxy.js';
import type { RuntimeIo } from './api.js';
import { connectionCreate } from './connections.js';
import { connectionConnect, connectionRevoke } from './oauth-connect.js';

/**
 * `svc connection connect` as a person runs it: the command prints the provider's URL and waits; the
 * person opens it in a browser (here: the fake provider's consent, then the callback page, as a
 * browser follows them); the command reports how it went. The tokens never pass through the CLI.
 */

let server: TestServer;
let proxy: RecordingProxy;
let provider: FakeOAuth;
let admin: string;
let dir: string;

type TestIo = RuntimeIo & { lines: string[]; errors: string[] };

function io(): TestIo {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: { SVC_URL: proxy.url, SVC_API_TOKEN: admin, XDG_CONFIG_HOME: dir },
    out: (line) => lines.push(line),
    err: (line) => errors.push(line),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pollMs: 50,
    lines,
    errors,
  };
}

/** The person: waits for the URL the command prints, consents, and lands on the callback page. */
async function person(out: TestIo): Promise<string> {
  for (let i = 0; i < 200 && !out.lines.some((l) => l.startsWith('http')); i++) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const url = out.lines.find((l) => l.startsWith('http')) as string;
  const page = await fetch(await provider.consent(url));
  return page.text();
}

async function newConnection(): Promise<number> {
  const made = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'hub' } });
  expect(made.status).toBe(201);
  return made.body.connection.id;
}

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  proxy = await startRecordingProxy(server.url);
  provider = await startFakeOAuth({ requirePkce: true });
  admin = (await createToken(server, 'default', ['admin'])).secret;
  dir = await mkdtemp(join(tmpdir(), 'svc-connect-'));
  const source = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'hub', name: 'Hub', version: '1.0.0',
  authSchema: { methods: [{ type: 'oauth', provider: 'hub', requiredScopes: ['read'], optionalScopes: ['write'], usePkce: true,
    authorizationUrl: '${provider.url}/authorize', tokenUrl: '${provider.url}/token', userinfoUrl: '${provider.url}/userinfo' }] },
  feeds: { items: { key: 'items', name: 'Items', async sync() { return { events: [], checkpoint: null }; } } },
});`;
  expect((await server.call('POST', '/api/default/connectors', { body: { source } })).status).toBe(201);
  await server.call('PUT', '/api/default/secrets/HUB_CLIENT_ID', {
    body: { value: provider.settings.clientId },
  });
  await server.call('PUT', '/api/default/secrets/HUB_CLIENT_SECRET', {
    body: { value: provider.settings.clientSecret },
  });
}, 60_000);

afterAll(async () => {
  await proxy?.close();
  await provider?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('svc connection connect', () => {
  it('is what svc connection create says to run for a connector a person connects', async () => {
    const out = io();
    await connectionCreate('hub', {}, out);
    const id = Number(out.lines[0]?.match(/created connection (\d+)/)?.[1]);
    expect(out.lines[0]).toBe(`created connection ${id}: hub (error)`);
    expect(out.errors).toEqual([
      `not connected yet: connect it with svc connection connect ${id} (OAuth consent)`,
    ]);
  });

  it('prints the URL, waits for the person, and reports the connection; no token crosses the CLI', async () => {
    const id = await newConnection();
    const out = io();
    const [, page] = await Promise.all([
      connectionConnect(String(id), { scope: ['write'] }, out),
      person(out),
    ]);
    expect(page).toContain('Connected to Hub');
    expect(out.lines.at(-1)).toBe(`connection ${id} (hub): connected as Octo Person; it is active`);
    expect(out.errors.join('\n')).toContain('asking for: read write');
    const traffic = proxy.requests.map((r) => JSON.stringify(r)).join('\n');
    for (const secret of [...provider.issued(), provider.settings.clientSecret]) {
      expect(traffic.includes(secret)).toBe(false);
    }
  });

  it('fails with what happened and what to run when the person declines', async () => {
    const id = await newConnection();
    provider.settings.deny = true;
    const out = io();
    const [outcome] = await Promise.allSettled([connectionConnect(String(id), {}, out), person(out)]);
    provider.settings.deny = false;
    expect(outcome.status).toBe('rejected');
    expect((outcome as PromiseRejectedResult).reason.message).toBe(
      `connection ${id} was not connected: consent was declined: The user denied the request; run "svc connection connect ${id}" again`,
    );
  });

  it('says which secret to set when the OAuth app is not set up, and sends nobody anywhere', async () => {
    const id = await newConnection();
    await server.call('DELETE', '/api/default/secrets/HUB_CLIENT_SECRET');
    const out = io();
    const message = await connectionConnect(String(id), {}, out).then(
      () => '',
      (error: Error) => error.message,
    );
    await server.call('PUT', '/api/default/secrets/HUB_CLIENT_SECRET', {
      body: { value: provider.settings.clientSecret },
    });
    expect(message).toContain('svc secrets set HUB_CLIENT_SECRET');
    expect(message).toContain(`${proxy.url}/api/v1/oauth/callback`);
    expect(out.lines).toEqual([]);
  });

  it('revokes: the connection forgets its tokens and says how to connect again', async () => {
    const id = await newConnection();
    const out = io();
    await Promise.all([connectionConnect(String(id), {}, out), person(out)]);
    const revoked = io();
    await connectionRevoke(String(id), { reason: 'laptop lost' }, revoked);
    expect(revoked.lines).toEqual([`connection ${id} (hub) forgot its credentials: it is revoked`]);
    expect(revoked.errors[0]).toContain('revoked by');
    expect(revoked.errors[0]).toContain('(laptop lost)');
    expect(revoked.errors[0]).toContain(`svc connection connect ${id}`);
  });
});
