import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { openChildEgress } from '../connectors/egress-proxy.js';
import { parseEgressAllow } from '../egress/policy.js';
import { keepRequiredCookies, normaliseDomain, requiredDomainOf } from './browser-cookies.js';
import { openSession } from './session-store.js';

/**
 * Attacks on the browser-session boundary (issue 18): which cookies a session keeps, where the
 * server's CDP read may connect (the `/json/version` answer included), what a hostile DevTools
 * endpoint can make svc store, and where a session-only child may tunnel to.
 */

describe('attack 6: cookie domain filtering', () => {
  const required = ['example.test'];

  it('keeps the domain and its subdomains in any spelling, never a look-alike or a parent', () => {
    for (const domain of [
      'example.test',
      '.example.test',
      'EXAMPLE.TEST',
      'example.test.',
      '..example.test',
      'a.b.Example.Test.',
    ])
      expect(requiredDomainOf(domain, required), domain).toBe('example.test');
    for (const domain of [
      '.example.test.evil.com',
      'example.test.evil.com',
      'evilexample.test',
      'test',
      '.test',
      'example',
      'xample.test',
      '',
      '.',
    ])
      expect(requiredDomainOf(domain, required), domain).toBeNull();
  });

  it('a cookie domain that is not a host name (a port, a path, a space, a NUL) is not kept', () => {
    for (const domain of [
      'evil.com/.example.test',
      'evil.com .example.test',
      'evil.com\u0000.example.test',
      'evil.com:443.example.test',
      'evil.com@x.example.test',
    ])
      expect(requiredDomainOf(domain, required), JSON.stringify(domain)).toBeNull();
  });

  it('an IDN required domain matches the punycode a browser stores, both ways', () => {
    expect(normaliseDomain('Bücher.Example')).toBe('xn--bcher-kva.example');
    expect(requiredDomainOf('.xn--bcher-kva.example', ['bücher.example'])).toBe('xn--bcher-kva.example');
    expect(requiredDomainOf('shop.bücher.example', ['xn--bcher-kva.example'])).toBe('xn--bcher-kva.example');
    // A look-alike in another script is another domain.
    expect(requiredDomainOf('xn--bcher-kva.example', ['bucher.example'])).toBeNull();
  });

  it('uploaded cookies of other domains are dropped, counted nowhere', () => {
    const { kept, counts } = keepRequiredCookies(
      [
        { domain: '.google.com', name: 'SID' },
        { domain: 'example.test.attacker.net', name: 'x' },
        { domain: 'www.example.test', name: 'ok' },
      ],
      required,
    );
    expect(kept.map((c) => c.name)).toEqual(['ok']);
    expect(counts).toEqual({ 'example.test': 1 });
  });

  // Proposed, not fixed: the SDK's schema refuses a single label (`com`) as a required domain, but
  // takes a public suffix of two (`co.uk`, `github.io`): such a connector is handed every cookie
  // under it from a CDP capture, and its child may tunnel to all of it. Needs a public-suffix check
  // at install (and here).
  it.fails('a required domain that is a public suffix (co.uk, github.io) takes no cookie of the sites under it', () => {
    expect(requiredDomainOf('.bbc.co.uk', ['co.uk'])).toBeNull();
    expect(requiredDomainOf('victim.github.io', ['github.io'])).toBeNull();
  });
});

describe('attack 6b: the egress proxy of a session-only child', () => {
  async function tunnel(path: string, host: string): Promise<string> {
    const { connect } = await import('node:net');
    return new Promise((resolve) => {
      const socket = connect(path);
      let answer = '';
      socket.on('data', (d) => {
        answer += d.toString();
      });
      socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
      socket.on('error', () => resolve(answer.split('\r\n')[0] ?? 'error'));
      socket.write(`CONNECT ${host} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      setTimeout(() => socket.destroy(), 3000);
    });
  }

  it('reaches only the required domains and the granted hosts', async () => {
    const dir = `/tmp/svc-atk-egress-${process.pid}`;
    const egress = await openChildEgress(dir, parseEgressAllow('127.0.0.1'));
    try {
      egress.grant({ hosts: new Set(['api.granted.test']), domains: ['example.test'] });
      for (const host of [
        'example.test.evil.com:443',
        'evilexample.test:443',
        'test:443',
        '127.0.0.1:443',
        '[::1]:443',
        'evil.com:443',
        'api.granted.test.evil.com:443',
      ]) {
        expect(await tunnel(egress.path, host), host).toMatch(/^HTTP\/1\.1 403/);
      }
      // Allowed by the grant (then nothing resolves here: a 502, never a 403).
      for (const host of ['example.test:443', 'A.EXAMPLE.TEST.:443', 'api.granted.test:443'])
        expect(await tunnel(egress.path, host), host).not.toMatch(/^HTTP\/1\.1 403/);
    } finally {
      await egress.close();
    }
  }, 30_000);
});

let server: TestServer;
let orgId: string;
/** 127.0.0.2 is not in the test server's SVC_EGRESS_ALLOW (127.0.0.1): any connection there is a break. */
let forbidden: Server;
let forbiddenPort: number;
const forbiddenSockets: Socket[] = [];

/** A fake DevTools endpoint on 127.0.0.1 (allowed): `/json/version` and a minimal WebSocket. */
interface FakeCdp {
  url: string;
  port: number;
  version: (res: import('node:http').ServerResponse) => void;
  cookies: () => unknown[];
  upgrades: string[];
  close(): Promise<void>;
}
const cdps: FakeCdp[] = [];

function wsFrame(payload: Buffer): Buffer {
  const len = payload.length;
  const head =
    len < 126
      ? Buffer.from([0x81, len])
      : len < 65536
        ? Buffer.from([0x81, 126, len >> 8, len & 0xff])
        : Buffer.concat([
            Buffer.from([0x81, 127]),
            (() => {
              const b = Buffer.alloc(8);
              b.writeBigUInt64BE(BigInt(len));
              return b;
            })(),
          ]);
  return Buffer.concat([head, payload]);
}

async function startCdp(): Promise<FakeCdp> {
  const cdp: FakeCdp = {
    url: '',
    port: 0,
    version: (res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ webSocketDebuggerUrl: `ws://127.0.0.1:${cdp.port}/devtools/browser/abc` }));
    },
    cookies: () => [],
    upgrades: [],
    close: async () => {},
  };
  const http = createServer((req, res) => {
    if (req.url === '/json/version') cdp.version(res);
    else res.writeHead(404).end();
  });
  const sockets = new Set<Socket>();
  http.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  http.on('upgrade', (req, socket: Socket) => {
    cdp.upgrades.push(req.url ?? '');
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    socket.once('data', (buf: Buffer) => {
      const len = (buf[1] ?? 0) & 0x7f;
      const mask = buf.subarray(2, 6);
      const payload = Buffer.from(buf.subarray(6, 6 + len).map((b, i) => b ^ (mask[i % 4] ?? 0)));
      const message = JSON.parse(payload.toString()) as { id: number };
      socket.write(
        wsFrame(Buffer.from(JSON.stringify({ id: message.id, result: { cookies: cdp.cookies() } }))),
      );
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cdp.port = (http.address() as AddressInfo).port;
  cdp.url = `http://127.0.0.1:${cdp.port}`;
  cdp.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      http.close(() => resolve());
    });
  cdps.push(cdp);
  return cdp;
}

const connector = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'atk-session', name: 'Session attack', version: '1.0.0',
  authSchema: { methods: [{ type: 'browser', capture: 'cli', requiredDomains: ['example.test'] }] },
  feeds: { items: { key: 'items', name: 'Items', sync: async () => ({ events: [], checkpoint: null }) } },
});`;

async function newConnection(): Promise<string> {
  const res = await server.call('POST', '/api/default/connections', {
    body: { connectorKey: 'atk-session' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return String(res.body.connection.id);
}

const capture = (connectionId: string, cdpUrl: string) =>
  server.call('POST', `/api/default/connections/${connectionId}/browser-session`, { body: { cdpUrl } });

const cdpCookie = (name: string, value: string, domain: string) => ({
  name,
  value,
  domain,
  path: '/',
  expires: 2_000_000_000,
  session: false,
  httpOnly: true,
  secure: true,
  sameSite: 'Lax',
});

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  orgId = String((await server.pool.query(`SELECT id FROM orgs WHERE slug = 'default'`)).rows[0].id);
  forbidden = createServer((_req, res) => res.end('{}'));
  forbidden.on('connection', (s) => forbiddenSockets.push(s));
  forbidden.on('upgrade', (_req, s: Socket) => s.destroy());
  await new Promise<void>((resolve) => forbidden.listen(0, '127.0.0.2', resolve));
  forbiddenPort = (forbidden.address() as AddressInfo).port;
  const installed = await server.call('POST', '/api/default/connectors', { body: { source: connector } });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
}, 60_000);

afterAll(async () => {
  await Promise.all(cdps.map((c) => c.close()));
  forbidden?.close();
});

describe('attack 3b: cdpUrl variants', () => {
  it('every spelling of a refused address is refused before connecting', async () => {
    const id = await newConnection();
    for (const cdpUrl of [
      `http://127.0.0.2:${forbiddenPort}`,
      `ws://127.0.0.2:${forbiddenPort}/devtools/browser/x`,
      `wss://127.0.0.2:${forbiddenPort}`,
      `http://2130706434:${forbiddenPort}`,
      `http://0x7f000002:${forbiddenPort}`,
      `http://127.2:${forbiddenPort}`,
      `http://[::ffff:127.0.0.2]:${forbiddenPort}`,
      `http://[::1]:${forbiddenPort}`,
      `ws://[::1]:9222`,
      'http://0.0.0.0:9222',
      'http://0:9222',
      'http://169.254.169.254/',
      'http://[fd00:ec2::254]/',
      'http://10.0.0.1:9222',
    ]) {
      const res = await capture(id, cdpUrl);
      expect(res.status, cdpUrl).toBe(422);
      expect(res.body.code, `${cdpUrl}: ${res.body.detail}`).toBe('egress_refused');
    }
    for (const cdpUrl of [
      `http://user:pw@127.0.0.1:1`,
      'file:///etc/passwd',
      'javascript:alert(1)',
      'gopher://127.0.0.1:70/',
    ]) {
      const res = await capture(id, cdpUrl);
      expect(res.status, cdpUrl).toBe(422);
      expect(res.body.code, cdpUrl).toBe('validation_failed');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(forbiddenSockets).toHaveLength(0);
  });

  it("a /json/version naming another host's WebSocket is opened on the cdpUrl's own host; a non-browser path or a redirect is refused", async () => {
    const cdp = await startCdp();
    const id = await newConnection();
    cdp.version = (res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({ webSocketDebuggerUrl: `ws://127.0.0.2:${forbiddenPort}/devtools/browser/abc` }),
      );
    };
    cdp.cookies = () => [cdpCookie('sid', 'sid-value-xyz', '.example.test')];
    const res = await capture(id, cdp.url);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(cdp.upgrades).toEqual(['/devtools/browser/abc']);
    for (const answer of [
      { webSocketDebuggerUrl: `ws://127.0.0.1:${cdp.port}/devtools/page/abc` },
      { webSocketDebuggerUrl: `ws://127.0.0.1:${cdp.port}/devtools/browser/../../json/new?http://evil` },
      { webSocketDebuggerUrl: 42 },
      {},
    ]) {
      cdp.version = (r) => {
        r.setHeader('content-type', 'application/json');
        r.end(JSON.stringify(answer));
      };
      const refused = await capture(id, cdp.url);
      expect(refused.status, JSON.stringify(answer)).toBe(422);
    }
    cdp.version = (r) => {
      r.writeHead(302, { location: `http://127.0.0.2:${forbiddenPort}/json/version` });
      r.end();
    };
    expect((await capture(id, cdp.url)).status).toBe(422);
    expect(forbiddenSockets).toHaveLength(0);
  });
});

describe('attack 5b: a hostile DevTools endpoint', () => {
  it('an endless /json/version is cut short, not buffered until the 10 s timeout', async () => {
    const cdp = await startCdp();
    const id = await newConnection();
    const chunk = Buffer.alloc(64 * 1024, 'a');
    cdp.version = (res) => {
      res.setHeader('content-type', 'application/json');
      res.write('{"webSocketDebuggerUrl":"');
      const timer = setInterval(() => res.write(chunk), 1);
      res.on('close', () => clearInterval(timer));
    };
    const started = Date.now();
    const res = await capture(id, cdp.url);
    expect(res.status).toBe(422);
    expect(Date.now() - started).toBeLessThan(5000);
  }, 30_000);

  it('a Storage.getCookies answer past 16 MiB is refused, not held in memory', async () => {
    const cdp = await startCdp();
    const id = await newConnection();
    const value = 'x'.repeat(4000);
    cdp.cookies = () =>
      Array.from({ length: 5000 }, (_, i) =>
        cdpCookie(`c${i}`, value, i === 0 ? '.example.test' : 'other.test'),
      );
    const res = await capture(id, cdp.url);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(422);
    expect(res.body.detail).toMatch(/could not read the browser's cookies/);
    const { rows } = await server.pool.query('SELECT session_state FROM connections WHERE id = $1', [id]);
    expect(rows[0].session_state).toBeNull();
  }, 30_000);

  it('a browser answering more cookies than a session holds, or oversized ones, stores none of the excess', async () => {
    const cdp = await startCdp();
    const id = await newConnection();
    const big = 'v'.repeat(40_000);
    cdp.cookies = () => [
      cdpCookie('huge', big, '.example.test'),
      cdpCookie('', 'nameless-value', '.example.test'),
      ...Array.from({ length: 2500 }, (_, i) => cdpCookie(`c${i}`, `value-${i}`, `s${i}.example.test`)),
    ];
    const res = await capture(id, cdp.url);
    const { rows } = await server.pool.query('SELECT session_state FROM connections WHERE id = $1', [id]);
    const stored = openSession(server.options.encryptionKey, orgId, id, rows[0].session_state);
    // Either refused (422, nothing stored) or kept within the session's own limits.
    if (res.status === 200) {
      expect(stored?.cookies.length ?? 0).toBeLessThanOrEqual(2000);
    } else {
      expect(res.status).toBe(422);
      expect(stored).toBeNull();
    }
    expect(JSON.stringify(stored ?? {})).not.toContain(big);
    expect((stored?.cookies ?? []).some((c) => c.name === '')).toBe(false);
  }, 30_000);
});

describe('attack 7: carrying a captured session elsewhere with credentials set after it', () => {
  let workers: import('../runs/worker.js').RunWorkers | undefined;
  let service: Server;
  let serviceUrl: string;
  let attacker: Server;
  let attackerUrl: string;
  const serviceSaw: string[] = [];
  const attackerSaw: string[] = [];
  const SESSION = 'person-session-cookie-5e1f0a9b';

  beforeAll(async () => {
    const { startTestRunWorkers } = await import('../../test/runtime.js');
    service = createServer((req, res) => {
      serviceSaw.push(req.headers.cookie ?? '');
      res.end('{}');
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    serviceUrl = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
    attacker = createServer((req, res) => {
      attackerSaw.push(req.headers.cookie ?? '');
      res.end('{}');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    // Another host name for the same allowed address: grants are by host name.
    attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}`;
    const source = `
import { createHttpClient, defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'atk-both', name: 'Session and key', version: '1.0.0',
  authSchema: { methods: [
    { type: 'browser', capture: 'cli', requiredDomains: ['example.test'] },
    { type: 'env_keys', required: false, fields: [{ key: 'apiKey', label: 'API key', secret: true }] },
  ] },
  optionsSchema: { type: 'object', properties: { serviceUrl: { type: 'string', default: '${serviceUrl}' } } },
  feeds: { items: { key: 'items', name: 'Items',
    configSchema: { type: 'object', properties: { serviceUrl: { type: 'string' } } },
    async sync(ctx) {
      const cookies = ctx.sessionState?.cookies ?? [];
      const http = createHttpClient({ baseUrl: ctx.config.serviceUrl });
      await http.request('GET', '/me', { headers: { cookie: cookies.map((c) => c.name + '=' + c.value).join('; ') } });
      return { events: [], checkpoint: null };
    } } },
});`;
    const installed = await server.call('POST', '/api/default/connectors', { body: { source } });
    expect(installed.status, JSON.stringify(installed.body)).toBe(201);
    const leaky = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'atk-leak', name: 'Careless', version: '1.0.0',
  authSchema: { methods: [{ type: 'browser', capture: 'cli', requiredDomains: ['example.test'] }] },
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) {
    const cookies = ctx.sessionState?.cookies ?? [];
    // A careless connector (or an HTTP client that echoes the request) fails with the header in its message.
    const error = new Error('the service answered 401 to cookie: ' + cookies.map((c) => c.name + '=' + c.value).join('; '));
    error.status = 401;
    throw error;
  } } },
});`;
    const leakyInstalled = await server.call('POST', '/api/default/connectors', { body: { source: leaky } });
    expect(leakyInstalled.status, JSON.stringify(leakyInstalled.body)).toBe(201);
    workers = await startTestRunWorkers(server, { limits: { timeoutMs: 20_000, memoryMb: 256 } });
  }, 60_000);

  afterAll(async () => {
    await workers?.close(1000);
    service?.close();
    attacker?.close();
  });

  async function sync(feedId: string) {
    const started = await server.call('POST', `/api/default/feeds/${feedId}/sync`);
    expect(started.status, JSON.stringify(started.body)).toBeLessThan(300);
    for (let i = 0; i < 300; i++) {
      const { body } = await server.call('GET', `/api/default/runs/${started.body.run.id}`);
      if (!['pending', 'running'].includes(body.run.status)) return body.run;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the run did not end');
  }

  it("a connector failing with the session's cookie in its message: the run's and the connection's errorMessage hold no cookie value", async () => {
    const made = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'atk-leak' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const connectionId = String(made.body.connection.id);
    const feedId = String(made.body.feeds[0].id);
    await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE id = $1`, [
      feedId,
    ]);
    const captured = await server.call('POST', `/api/default/connections/${connectionId}/browser-session`, {
      body: { cookies: [{ name: 'sid', value: SESSION, domain: '.example.test' }] },
    });
    expect(captured.status).toBe(200);
    const run = await sync(feedId);
    expect(run.status).toBe('failed');
    expect(run.errorMessage).toContain('401');
    const everything = JSON.stringify([
      run,
      (await server.call('GET', `/api/default/runs/${run.id}/logs`)).body,
      (await server.call('GET', `/api/default/connections/${connectionId}`)).body,
      (await server.call('GET', `/api/default/runs?feedId=${feedId}`)).body,
      (await server.pool.query('SELECT error_message FROM runs WHERE id = $1', [run.id])).rows,
    ]);
    for (const [i, part] of JSON.parse(everything).entries())
      expect(JSON.stringify(part), String(i)).not.toContain(SESSION);
  }, 60_000);

  // Proposed fix (not made: a policy choice): a run that gets a browser session applies the
  // session's own check (sessionGrant) whether or not the connection also holds credentials, so the
  // cookies reach only the required domains and the definition's hosts, never a host that was
  // granted to credentials set later by whoever can PATCH the feed's config.
  it.fails("a write token that points the feed elsewhere, then sets an env_keys value, does not get the person's cookies sent there", async () => {
    const made = await server.call('POST', '/api/default/connections', {
      body: { connectorKey: 'atk-both', config: { serviceUrl } },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const connectionId = String(made.body.connection.id);
    const feedId = String(made.body.feeds[0].id);
    await server.pool.query(`UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE id = $1`, [
      feedId,
    ]);
    // The person captures their session.
    const captured = await server.call('POST', `/api/default/connections/${connectionId}/browser-session`, {
      body: { cookies: [{ name: 'sid', value: SESSION, domain: '.example.test' }] },
    });
    expect(captured.status, JSON.stringify(captured.body)).toBe(200);
    const first = await sync(feedId);
    expect(first.status, first.errorMessage).toBe('completed');
    expect(serviceSaw.at(-1)).toBe(`sid=${SESSION}`);
    // Pointed elsewhere alone, the run fails: the session's check holds.
    expect(
      (
        await server.call('PATCH', `/api/default/feeds/${feedId}`, {
          body: { config: { serviceUrl: attackerUrl } },
        })
      ).status,
    ).toBe(200);
    expect((await sync(feedId)).status).toBe('failed');
    expect(attackerSaw).toEqual([]);
    // Then any env_keys value: the credentials are granted for the config of this moment.
    expect(
      (
        await server.call('PATCH', `/api/default/connections/${connectionId}`, {
          body: { credentials: { apiKey: 'anything' } },
        })
      ).status,
    ).toBe(200);
    await sync(feedId);
    expect(attackerSaw.join('\n')).not.toContain(SESSION);
  }, 60_000);
});
