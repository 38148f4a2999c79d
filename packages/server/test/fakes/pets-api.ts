import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll } from 'vitest';

/**
 * A small pets API on 127.0.0.1 that serves its own OpenAPI 3.1 description (the SDK's test
 * description: `$ref`s, tags, API-key, bearer and basic schemes; servers `/v1`, relative) at
 * `/openapi.yaml`, and answers the operations as that description says.
 */
export interface FakePetsApi {
  url: string;
  specUrl: string;
  requests: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  /** What `/openapi.yaml` serves: a test may change it, as an upstream changes its API. */
  description: string;
}

const description = readFileSync(
  new URL('../../../sdk/src/openapi/test/pets-3.1.yaml', import.meta.url),
  'utf8',
);

export async function startFakePetsApi(apiKey: string): Promise<FakePetsApi> {
  const fake: FakePetsApi = { url: '', specUrl: '', requests: [], description };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString('utf8');
    });
    req.on('end', () => {
      const json = (status: number, value?: unknown) => {
        res.writeHead(status, value === undefined ? {} : { 'content-type': 'application/json' });
        res.end(value === undefined ? undefined : JSON.stringify(value));
      };
      if (req.url === '/openapi.yaml') {
        res.writeHead(200, { 'content-type': 'application/yaml' });
        res.end(fake.description);
        return;
      }
      fake.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (!req.url?.startsWith('/v1/')) return json(404, { message: 'not found' });
      if (req.headers['x-api-key'] !== apiKey) return json(401, { message: 'a valid X-API-Key is needed' });
      const url = new URL(req.url ?? '/', 'http://pets');
      if (req.method === 'GET' && url.pathname === '/v1/pets') {
        return json(200, {
          pets: [{ id: 'p1', name: 'Rex', species: url.searchParams.get('species') ?? 'dog' }],
          limit: Number(url.searchParams.get('limit') ?? 20),
        });
      }
      if (req.method === 'POST' && url.pathname === '/v1/pets') {
        const pet = JSON.parse(body || '{}') as { name?: string };
        if (!pet.name) return json(422, { message: 'a pet needs a name' });
        return json(201, { id: 'p2', name: pet.name });
      }
      return json(404, { message: `no ${req.method} ${url.pathname}` });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.specUrl = `${fake.url}/openapi.yaml`;
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return fake;
}
