import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testAppOptions } from '../../test/harness.js';
import { buildApp } from '../app.js';
import { createEgressClient, guardedLookup, type Resolve } from './client.js';
import { EgressRefusedError, parseEgressAllow } from './policy.js';

/** A fake upstream on `host`, counting the connections it accepts. */
async function startFake(host: string, handler: RequestListener, port = 0) {
  const server = createServer({ keepAliveTimeout: 100 }, handler);
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
  };
}

const hello: RequestListener = (_req, res) =>
  res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');

/** Tests set SVC_EGRESS_ALLOW=127.0.0.1 for their fakes (DESIGN.md section 6). */
const testPolicy = parseEgressAllow('127.0.0.1');
const clients: { close(): Promise<void> }[] = [];
function client(options: { allow?: string; resolve?: Resolve } = {}) {
  const created = createEgressClient({
    policy: options.allow === undefined ? testPolicy : parseEgressAllow(options.allow),
    resolve: options.resolve,
  });
  clients.push(created);
  return created;
}
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

async function refusal(promise: Promise<unknown>): Promise<EgressRefusedError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(EgressRefusedError);
  return error as EgressRefusedError;
}

describe('the guarded outbound client', () => {
  // The same fake on two loopback addresses (Linux routes all of 127/8 to lo): one the policy
  // allows, one it does not.
  let allowed: Awaited<ReturnType<typeof startFake>>;
  let other: Awaited<ReturnType<typeof startFake>>;
  beforeAll(async () => {
    allowed = await startFake('127.0.0.1', (req, res) => {
      const to = new URL(req.url ?? '/', 'http://x').searchParams.get('to');
      if (to) res.writeHead(302, { location: to }).end();
      else hello(req, res);
    });
    other = await startFake('127.0.0.2', hello, allowed.port);
  });

  it('lets an allowed fake through', async () => {
    const response = await client().fetch(`http://127.0.0.1:${allowed.port}/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hello');
  });

  it('refuses the same fake on a loopback address outside the allow list, without connecting', async () => {
    const error = await refusal(client().fetch(`http://127.0.0.2:${other.port}/`));
    expect(error.address).toBe('127.0.0.2');
    expect(error.message).toBe(
      '127.0.0.2 is a loopback address, which this server does not connect to; add 127.0.0.2 to SVC_EGRESS_ALLOW on the server to allow it',
    );
    expect(other.connections()).toBe(0);
  });

  it('refuses a name that resolves to loopback (localhost, from /etc/hosts) unless allowed', async () => {
    const error = await refusal(client({ allow: '' }).fetch(`http://localhost:${allowed.port}/`));
    expect(error.host).toBe('localhost');
    expect(error.message).toContain('is a loopback address, which this server does not connect to; add');
    expect(error.message).toContain('(or the host localhost) to SVC_EGRESS_ALLOW');
    const response = await client({ allow: 'localhost' }).fetch(`http://localhost:${allowed.port}/`);
    expect(await response.text()).toBe('hello');
  });

  it('checks the address actually connected to, so a name rebound to a refused address is refused', async () => {
    // The name first resolves to the allowed fake, then (TTL 0) to the other address.
    const answers = [['127.0.0.1'], ['127.0.0.2']];
    const rebinding = client({ resolve: async () => answers.shift() ?? [] });
    const first = await rebinding.fetch(`http://rebind.test:${allowed.port}/`, {
      headers: { connection: 'close' },
    });
    expect(await first.text()).toBe('hello');
    const error = await refusal(
      rebinding.fetch(`http://rebind.test:${allowed.port}/`, { headers: { connection: 'close' } }),
    );
    expect(error).toMatchObject({ host: 'rebind.test', address: '127.0.0.2' });
    expect(other.connections()).toBe(0);
  });

  it('refuses a name whose answer mixes a public and a loopback address, before any connection', async () => {
    const lookup = guardedLookup(testPolicy, async () => ['93.184.216.34', '127.0.0.2']);
    const error = await new Promise((resolve) => lookup('mixed.test', { all: true }, (e) => resolve(e)));
    expect(error).toBeInstanceOf(EgressRefusedError);
    expect(error).toMatchObject({ host: 'mixed.test', address: '127.0.0.2' });
  });

  it.each([
    ['the metadata address as proxyUrl', 'http://169.254.169.254/latest/meta-data/'],
    ['the IPv6 metadata address', 'http://[fd00:ec2::254]/'],
    ['PostgreSQL on loopback as an MCP url', 'http://127.0.0.1:5432/'],
    ['IPv6 loopback', 'http://[::1]:8080/'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]:8080/'],
    ['IPv4-mapped private address', 'http://[::ffff:10.0.0.5]/'],
    ['0.0.0.0, which reaches this host', 'http://0.0.0.0:8080/'],
    ['a private address', 'http://10.1.2.3/'],
    ['a CGNAT address', 'http://100.64.0.1/'],
    ['an IPv6 unique local address', 'http://[fc00::1]/'],
    ['an IPv6 link-local address', 'http://[fe80::1]/'],
    ['loopback written as a decimal number', 'http://2130706433:8080/'],
  ])('refuses %s with nothing allowed, without connecting', async (_name, url) => {
    const started = Date.now();
    const error = await refusal(client({ allow: '' }).fetch(url));
    expect(error.message).toMatch(
      /^.* is .*, which this server does not connect to; add .* to SVC_EGRESS_ALLOW on the server to allow it$/,
    );
    // Refused before any connection attempt: no connect timeout, no network error.
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('refuses a name that resolves to the metadata address', async () => {
    const named = client({ resolve: async () => ['169.254.169.254'] });
    const error = await refusal(named.fetch('http://metadata.google.internal/computeMetadata/v1/'));
    expect(error.message).toBe(
      'metadata.google.internal (169.254.169.254) is a cloud metadata address, which this server does not connect to; add 169.254.169.254 (or the host metadata.google.internal) to SVC_EGRESS_ALLOW on the server to allow it',
    );
  });

  it('checks every redirect hop: a redirect to a refused address is refused', async () => {
    const to = encodeURIComponent(`http://127.0.0.2:${other.port}/`);
    const error = await refusal(client().fetch(`http://127.0.0.1:${allowed.port}/?to=${to}`));
    expect(error.address).toBe('127.0.0.2');
    expect(other.connections()).toBe(0);
    // ...while a redirect between allowed addresses is followed.
    const back = encodeURIComponent(`http://127.0.0.1:${allowed.port}/`);
    const followed = await client().fetch(`http://127.0.0.1:${allowed.port}/?to=${back}`);
    expect(await followed.text()).toBe('hello');
  });

  it('lets a CIDR in the allow list through', async () => {
    const response = await client({ allow: '127.0.0.0/30' }).fetch(`http://127.0.0.2:${other.port}/`);
    expect(await response.text()).toBe('hello');
  });

  it('takes a Request made by the global fetch implementation, body and all', async () => {
    const echo = await startFake('127.0.0.1', async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      res.end(`${req.method} ${req.headers['x-test']} ${body}`);
    });
    const request = new Request(`http://127.0.0.1:${echo.port}/`, {
      method: 'POST',
      headers: { 'x-test': 'yes' },
      body: 'payload',
    });
    expect(await (await client().fetch(request)).text()).toBe('POST yes payload');
  });
});

describe('a route whose outbound call is refused', () => {
  it('answers 422 egress_refused, saying what to allow, having connected nowhere', async () => {
    const metadata = client();
    const pool = new pg.Pool({ connectionString: await createTestDatabase() });
    const { app } = await buildApp(testAppOptions(pool));
    app.get('/probe', { config: { auth: 'public' }, schema: { hide: true } }, async () => {
      await metadata.fetch('http://169.254.169.254/latest/meta-data/');
      return { reached: true };
    });
    try {
      const res = await app.inject({ method: 'GET', url: '/probe' });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'egress_refused', status: 422 });
      expect(res.json().detail).toContain('SVC_EGRESS_ALLOW');
    } finally {
      await app.close();
      await pool.end();
    }
  });
});
