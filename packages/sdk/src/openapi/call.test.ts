import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../http/test/server.js';
import { actionsFromOpenApi } from './actions.js';
import { callOpenApiAction } from './call.js';
import type { OpenApiOperation } from './types.js';

const PETS = readFileSync(new URL('./test/pets-3.1.yaml', import.meta.url), 'utf8');
const KEY = 'sk-live-9f8e7d6c5b4a';
const TOKEN = 'tok-0123456789abcdef';

interface Answer {
  status: number;
  body: unknown;
  type?: string;
  location?: string;
}

/** The fake upstream's answer by path; some answers say what it received, as a careless API's would. */
function answer(req: IncomingMessage, url: URL): Answer {
  const path = url.pathname;
  if (path === '/v1/pets/rex') return { status: 404, body: { message: 'no pet called rex' } };
  if (path === '/v1/pets/boom') {
    const page = `<html><body>Bad   gateway\n${'x'.repeat(500)}</body></html>`;
    return { status: 502, body: page, type: 'text/html' };
  }
  if (path === '/v1/pets/echo')
    return { status: 401, body: { error: `invalid key ${req.headers['x-api-key']}` } };
  if (path === '/v1/pets/big') return { status: 200, body: { blob: 'y'.repeat(5000) } };
  if (path === '/v1/pets/moved') {
    return { status: 302, body: '', location: `http://elsewhere.example/steal?key=${KEY}` };
  }
  if (path === '/v1/pets' && req.method === 'GET')
    return { status: 200, body: [{ id: 'tom' }, { id: 'rex' }] };
  if (path === '/v1/pets' && req.method === 'POST') return { status: 201, body: { id: 'new' } };
  if (path.startsWith('/v1/pets/')) return { status: 200, body: { id: decodeURIComponent(path.slice(9)) } };
  if (path === '/v1/search')
    return { status: 401, body: { detail: `key ${url.searchParams.get('key')} revoked` } };
  if (path === '/v1/me') return { status: 200, body: { me: true } };
  return { status: 404, body: 'nothing here', type: 'text/plain' };
}

function upstream(req: IncomingMessage, res: ServerResponse): void {
  const { status, body, type, location } = answer(req, new URL(req.url ?? '/', 'http://upstream'));
  res.writeHead(status, { 'content-type': type ?? 'application/json', ...(location && { location }) });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

let server: TestServer;
let ops: Record<string, OpenApiOperation>;
const op = (key: string) => ops[key] as OpenApiOperation;

beforeAll(async () => {
  server = await startTestServer(upstream);
  // The description's relative server (/v1) resolves against where it came from: the fake.
  ops = actionsFromOpenApi(PETS, { specUrl: `${server.url}/specs/openapi.yaml` }).operations;
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const last = () => server.requests.at(-1);

describe('callOpenApiAction against a real HTTP upstream', () => {
  it('GET: path parameter encoded into the path, header parameter and API key in their headers', async () => {
    const result = await callOpenApiAction(
      op('showPetById'),
      { petId: 'tom & jerry/2', 'X-Request-Id': 'req-1' },
      { credentials: { api_key: KEY } },
    );
    expect(result).toEqual({ success: true, output: { id: 'tom & jerry/2' } });
    expect(last()?.method).toBe('GET');
    expect(last()?.url).toBe('/v1/pets/tom%20%26%20jerry%2F2');
    expect(last()?.headers['x-request-id']).toBe('req-1');
    expect(last()?.headers['x-api-key']).toBe(KEY);
  });

  it('GET: query parameters, and a JSON array answered under "data"', async () => {
    const result = await callOpenApiAction(
      op('listPets'),
      { limit: 5, species: 'cat' },
      {
        credentials: { API_KEY: KEY },
      },
    );
    expect(result).toEqual({ success: true, output: { data: [{ id: 'tom' }, { id: 'rex' }] } });
    expect(last()?.url).toBe('/v1/pets?limit=5&species=cat');
  });

  it('POST: the body sent as JSON', async () => {
    const result = await callOpenApiAction(
      op('createPet'),
      { body: { name: 'Kit', tag: null } },
      {
        credentials: { api_key: KEY },
      },
    );
    expect(result).toEqual({ success: true, output: { id: 'new' } });
    expect(last()?.method).toBe('POST');
    expect(last()?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(last()?.body ?? '')).toEqual({ name: 'Kit', tag: null });
  });

  it('an API key of a query scheme goes in the query', async () => {
    await callOpenApiAction(op('get_search'), { q: 'cats' }, { credentials: { query_key: KEY } });
    expect(last()?.url).toBe(`/v1/search?q=cats&key=${KEY}`);
    expect(last()?.headers['x-api-key']).toBeUndefined();
  });

  it('bearer from access_token, basic from username and password', async () => {
    await callOpenApiAction(op('whoAmI'), {}, { credentials: { access_token: TOKEN } });
    expect(last()?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const result = await callOpenApiAction(
      op('whoAmI'),
      {},
      {
        credentials: { username: 'ann', password: 'pa:ss' },
      },
    );
    expect(result).toEqual({ success: true, output: { me: true } });
    expect(last()?.headers.authorization).toBe(`Basic ${Buffer.from('ann:pa:ss').toString('base64')}`);
  });

  it('serverUrl in the call replaces the operation`s', async () => {
    const result = await callOpenApiAction(
      op('whoAmI'),
      {},
      {
        serverUrl: `${server.url}/v1/`,
        credentials: { token: TOKEN },
      },
    );
    expect(result.success).toBe(true);
    expect(last()?.url).toBe('/v1/me');
  });
});

describe('failures', () => {
  const pet = (petId: string) =>
    callOpenApiAction(op('showPetById'), { petId, 'X-Request-Id': 'r' }, { credentials: { api_key: KEY } });

  it('an upstream 4xx is a failure with its message', async () => {
    expect(await pet('rex')).toEqual({
      success: false,
      error: 'GET /pets/{petId} answered 404 Not Found: no pet called rex',
    });
  });

  it('an upstream 5xx without JSON is a failure with its text, trimmed', async () => {
    const result = await pet('boom');
    expect(result.success).toBe(false);
    expect(result.error).toMatch(
      /^GET \/pets\/\{petId\} answered 502 Bad Gateway: <html><body>Bad gateway x+$/,
    );
    expect(result.error?.length).toBeLessThan(400);
  });

  it('never carries the credential, even when the upstream echoes it', async () => {
    const echoed = await pet('echo');
    expect(echoed).toEqual({
      success: false,
      error: 'GET /pets/{petId} answered 401 Unauthorized: invalid key [redacted]',
    });
    const search = await callOpenApiAction(op('get_search'), { q: 'x' }, { credentials: { api_key: KEY } });
    expect(search).toEqual({
      success: false,
      error: 'GET /search answered 401 Unauthorized: key [redacted] revoked',
    });
    const moved = await pet('moved');
    expect(moved.error).toContain('redirected (302) to http://elsewhere.example/steal;');
    expect(JSON.stringify([echoed, search, moved])).not.toContain(KEY);
    // The redirect was not followed: the only request is the one to the upstream.
    expect(server.requests).toHaveLength(3);
  });

  it('refuses input without a path parameter, or one that climbs out of the path, before any request', async () => {
    expect(
      await callOpenApiAction(op('showPetById'), { 'X-Request-Id': 'r' }, { credentials: { api_key: KEY } }),
    ).toEqual({ success: false, error: 'GET /pets/{petId}: input is missing path parameter "petId"' });
    expect(await pet('..')).toEqual({
      success: false,
      error: 'GET /pets/{petId}: path parameter "petId" cannot be ".."',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('says which credential is missing, without sending anything', async () => {
    expect(await callOpenApiAction(op('whoAmI'), {}, { credentials: { username: 'ann' } })).toEqual({
      success: false,
      error:
        'the connection\'s credentials do not fit the operation\'s security: bearer (bearer) needs a credential "access_token" or "token"; or basic (basic) needs credentials "username" and "password"',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('says so for a cookie API key, and takes no field of Object for a credential', async () => {
    const withScheme = (scheme: OpenApiOperation['security'][number][number]) => ({
      ...op('whoAmI'),
      security: [[scheme]],
    });
    const cookie = withScheme({ name: 'session', type: 'apiKey', in: 'cookie', parameterName: 'sid' });
    expect(await callOpenApiAction(cookie, {}, { credentials: { session: 's' } })).toEqual({
      success: false,
      error:
        "the connection's credentials do not fit the operation's security: session: API keys in cookie is not supported",
    });
    const named = withScheme({ name: 'constructor', type: 'http', scheme: 'bearer' });
    expect((await callOpenApiAction(named, {}, { credentials: {} })).success).toBe(false);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a response beyond the size cap', async () => {
    const result = await callOpenApiAction(
      op('showPetById'),
      { petId: 'big', 'X-Request-Id': 'r' },
      {
        credentials: { api_key: KEY },
        maxResponseBytes: 1000,
      },
    );
    expect(result).toEqual({
      success: false,
      error: 'GET /pets/{petId}: the response is larger than 1000 bytes',
    });
  });

  it('needs a server URL when the description gives none', async () => {
    const bare = actionsFromOpenApi(PETS).operations.whoAmI as OpenApiOperation;
    expect(await callOpenApiAction(bare, {}, { credentials: { token: TOKEN } })).toEqual({
      success: false,
      error:
        'GET /me: no server URL: the description has no absolute servers entry, so openapiConfig needs serverUrl',
    });
  });

  it('an unreachable upstream is a failure naming the operation', async () => {
    const closed = await startTestServer(upstream);
    await closed.close();
    const result = await callOpenApiAction(
      op('whoAmI'),
      {},
      {
        serverUrl: closed.url,
        credentials: { token: TOKEN },
      },
    );
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/^GET \/me failed: fetch failed: .*ECONNREFUSED/);
  });
});
