import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';

/** `DELETE /api/:org/connections/:connectionId`: the connection and its feeds go, never events. */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  expect((await server.call('POST', '/api/default/connectors', { body: { package: 'rss' } })).status).toBe(
    201,
  );
});

async function connection(): Promise<{ id: number; feedId: number }> {
  const res = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'rss' } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.connection.id, feedId: res.body.feeds[0].id };
}

describe('DELETE /api/:org/connections/:connectionId', () => {
  it('deletes a connection without events, with its feeds and finished runs', async () => {
    const { id, feedId } = await connection();
    await server.pool.query(
      `INSERT INTO runs (org_id, run_type, feed_id, connection_id, status, completed_at)
       SELECT org_id, 'sync', $1, connection_id, 'failed', now() FROM feeds WHERE id = $1`,
      [feedId],
    );
    const res = await server.call('DELETE', `/api/default/connections/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ result: 'deleted', connectionId: id });
    expect((await server.call('GET', `/api/default/connections/${id}`)).status).toBe(404);
    const { rows } = await server.pool.query(
      'SELECT (SELECT count(*) FROM feeds WHERE id = $1)::int AS feeds, (SELECT count(*) FROM runs WHERE feed_id = $1)::int AS runs',
      [feedId],
    );
    expect(rows[0]).toEqual({ feeds: 0, runs: 0 });
    const again = await server.call('DELETE', `/api/default/connections/${id}`);
    expect(again.status).toBe(404);
  });

  it('refuses a connection that holds events, which stay, and says to revoke it instead', async () => {
    const { id, feedId } = await connection();
    await server.pool.query(
      `INSERT INTO events (org_id, connection_id, feed_id, origin_id, payload_text, occurred_at)
       SELECT org_id, connection_id, id, 'item-1', 'kept', now() FROM feeds WHERE id = $1`,
      [feedId],
    );
    const res = await server.call('DELETE', `/api/default/connections/${id}`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toBe(
      `connection ${id} holds 1 event; deleting it would delete them: revoke it instead (it stops and forgets its credentials, and its events stay)`,
    );
    const { rows } = await server.pool.query(
      'SELECT count(*)::int AS n FROM events WHERE connection_id = $1',
      [id],
    );
    expect(rows[0].n).toBe(1);
    expect((await server.call('GET', `/api/default/connections/${id}`)).status).toBe(200);
  });

  it('refuses a connection with a pending run', async () => {
    const { id, feedId } = await connection();
    await server.pool.query(
      `INSERT INTO runs (org_id, run_type, feed_id, connection_id) SELECT org_id, 'sync', $1, connection_id FROM feeds WHERE id = $1`,
      [feedId],
    );
    const res = await server.call('DELETE', `/api/default/connections/${id}`);
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain('has 1 pending or running run: cancel it or wait');
  });

  it('is admin only, and another org never sees it', async () => {
    const { id } = await connection();
    const { secret } = await createToken(server, 'default', ['write']);
    const res = await server.call('DELETE', `/api/default/connections/${id}`, { token: secret });
    expect(res.status).toBe(403);
    expect((await server.call('DELETE', '/api/default/connections/nope')).status).toBe(404);
  });
});
