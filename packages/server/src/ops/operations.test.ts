import { beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ basePath: '/svc' });
});

describe('operations endpoints', () => {
  it('answers liveness and readiness without credentials, under the mount prefix', async () => {
    expect((await server.call('GET', '/healthz', { token: null })).body).toEqual({ status: 'ok' });
    expect((await server.call('GET', '/readyz', { token: null })).body).toEqual({ status: 'ready' });
    const outside = await fetch(server.url.replace('/svc', '/healthz'));
    expect(outside.status).toBe(404);
  });

  it('counts requests by route pattern and status, and reports pool usage', async () => {
    await server.call('GET', '/api/default/agents');
    await server.call('GET', '/api/default/agents/missing');
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(
      /svc_http_requests_total\{method="GET",route="\/svc\/api\/:org\/agents",status="200"\} [1-9]/,
    );
    expect(text).toMatch(
      /svc_http_requests_total\{method="GET",route="\/svc\/api\/:org\/agents\/:id",status="404"\} 1/,
    );
    expect(text).toMatch(/svc_http_request_duration_seconds_bucket\{le="0.005",method="GET"/);
    expect(text).toMatch(/svc_db_pool_connections \d+/);
    expect(text).toMatch(/svc_db_pool_waiting 0/);
  });

  it('answers 503 database_unavailable on readyz when the database is gone', async () => {
    const other = await startTestServer();
    await other.pool.end();
    const res = await other.call('GET', '/readyz', { token: null });
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('database_unavailable');
    await other.app.close();
  });
});
