import { beforeAll, describe, expect, it } from 'vitest';
import { createToken, startTestServer, type TestServer } from '../../test/harness.js';
import { everyPage, SPEC_RUN_FIELDS } from '../../test/runtime.js';

/**
 * Runs through the API: asked for, listed, followed and stopped. The rows a worker would write
 * (its claims, log lines, ends) are written here with SQL, as the worker would leave them.
 */

let server: TestServer;
let orgId: string;
const ids = { connection: '', feed: '', otherFeed: '', otherConnection: '' };

const source = `
import { defineConnector, z, configSchema } from '@svc/connector-sdk';
export default defineConnector({
  key: 'shop',
  name: 'Shop',
  version: '2.1.0',
  feeds: {
    orders: { key: 'orders', name: 'Orders', async sync() { return { events: [], checkpoint: null }; } },
    refunds: { key: 'refunds', name: 'Refunds', async sync() { return { events: [], checkpoint: null }; } },
  },
  actions: {
    refund: { key: 'refund', name: 'Refund', requiresApproval: true,
      inputSchema: configSchema(z.object({ order: z.string() })), async execute() { return { success: true }; } },
  },
});`;

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  expect((await server.call('POST', '/api/default/connectors', { body: { source } })).status).toBe(201);
  const connected = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'shop' } });
  expect(connected.status, JSON.stringify(connected.body)).toBe(201);
  ids.connection = String(connected.body.connection.id);
  ids.feed = String(connected.body.feeds.find((f: { feedKey: string }) => f.feedKey === 'orders').id);
  ids.otherFeed = String(connected.body.feeds.find((f: { feedKey: string }) => f.feedKey === 'refunds').id);
  const second = await server.call('POST', '/api/default/connections', { body: { connectorKey: 'shop' } });
  ids.otherConnection = String(second.body.connection.id);
  const { rows } = await server.pool.query<{ id: string }>(`SELECT id FROM orgs WHERE slug = 'default'`);
  orgId = rows[0]?.id as string;
  expect((await server.call('POST', '/api/orgs', { body: { slug: 'elsewhere' } })).status).toBe(201);
});

interface RunSeed {
  runType?: 'sync' | 'action';
  feedId?: string | null;
  connectionId?: string;
  status?: string;
  approvalStatus?: string;
  createdAt?: string;
  actionKey?: string | null;
  org?: string;
}

/** A run as the scheduler, the action route or a worker would have left it. */
async function insertRun(seed: RunSeed = {}): Promise<string> {
  const runType = seed.runType ?? 'sync';
  const { rows } = await server.pool.query<{ id: string }>(
    `INSERT INTO runs (org_id, run_type, feed_id, connection_id, action_key, action_input, status, approval_status,
                       connector_key, created_at, completed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'shop', coalesce($9::timestamptz, now()),
             CASE WHEN $7 IN ('completed', 'failed', 'cancelled', 'timeout') THEN now() END)
     RETURNING id`,
    [
      seed.org ?? orgId,
      runType,
      seed.feedId === undefined ? (runType === 'sync' ? ids.feed : null) : seed.feedId,
      seed.connectionId ?? ids.connection,
      seed.actionKey === undefined ? (runType === 'action' ? 'refund' : null) : seed.actionKey,
      runType === 'action' ? JSON.stringify({ order: 'A-1' }) : null,
      seed.status ?? 'completed',
      seed.approvalStatus ?? 'auto',
      seed.createdAt ?? null,
    ],
  );
  return rows[0]?.id as string;
}

const expectProblem = (
  res: { status: number; headers: Headers; body: any },
  status: number,
  code: string,
) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code });
};

describe('POST /api/:org/feeds/:feedId/sync', () => {
  it('queues one sync of the feed, and answers the open one when asked again', async () => {
    const first = await server.call('POST', `/api/default/feeds/${ids.otherFeed}/sync`);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(first.body.created).toBe(true);
    expect(first.body.run).toMatchObject({
      organizationId: 'default',
      runType: 'sync',
      feedId: Number(ids.otherFeed),
      connectionId: Number(ids.connection),
      connectorKey: 'shop',
      status: 'pending',
      approvalStatus: 'auto',
      itemsCollected: 0,
      itemsRejected: 0,
      logLines: 0,
      completedAt: null,
    });
    const again = await server.call('POST', `/api/default/feeds/${ids.otherFeed}/sync`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ created: false, run: { id: first.body.run.id } });

    // Once it ended, the next ask is a new run.
    await server.pool.query(`UPDATE runs SET status = 'completed', completed_at = now() WHERE id = $1`, [
      first.body.run.id,
    ]);
    const later = await server.call('POST', `/api/default/feeds/${ids.otherFeed}/sync`);
    expect(later.body.created).toBe(true);
    expect(later.body.run.id).not.toBe(first.body.run.id);
    await server.pool.query(`UPDATE runs SET status = 'cancelled' WHERE id = $1`, [later.body.run.id]);
  });

  it('answers 404 for a feed that is not there, not a number, or of another org', async () => {
    expectProblem(await server.call('POST', '/api/default/feeds/987654321/sync'), 404, 'not_found');
    expectProblem(await server.call('POST', '/api/default/feeds/abc/sync'), 404, 'not_found');
    expectProblem(
      await server.call('POST', '/api/default/feeds/99999999999999999999/sync'),
      404,
      'not_found',
    );
    expectProblem(await server.call('POST', `/api/elsewhere/feeds/${ids.feed}/sync`), 404, 'not_found');
    const { rows } = await server.pool.query(`SELECT 1 FROM runs WHERE org_id <> $1`, [orgId]);
    expect(rows).toEqual([]);
  });
});

describe('GET /api/:org/runs', () => {
  const listed: string[] = [];

  beforeAll(async () => {
    await server.pool.query('DELETE FROM runs');
    // Three share one created_at to the microsecond: the id must order them, page after page.
    const tie = '2030-01-01T00:00:00.123456Z';
    const seeds: RunSeed[] = [
      { createdAt: '2030-01-01T00:00:01Z' },
      { createdAt: tie, status: 'failed' },
      { createdAt: tie, runType: 'action', approvalStatus: 'pending', status: 'pending' },
      { createdAt: tie, feedId: ids.otherFeed },
      {
        createdAt: '2029-12-31T23:59:59.999999Z',
        connectionId: ids.otherConnection,
        feedId: null,
        runType: 'action',
      },
      { createdAt: '2029-12-31T00:00:00Z', status: 'timeout' },
      { createdAt: '2029-06-01T00:00:00Z', feedId: ids.otherFeed, status: 'failed' },
    ];
    const made: { id: string; at: string }[] = [];
    for (const seed of seeds) made.push({ id: await insertRun(seed), at: seed.createdAt as string });
    made.sort((a, b) => (a.at === b.at ? Number(b.id) - Number(a.id) : a.at < b.at ? 1 : -1));
    listed.push(...made.map((m) => m.id));
  });

  async function everyRun(query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
    const { items, pages } = await everyPage<{ id: number }>(
      server,
      '/api/default/runs',
      query,
      'runs',
      limit,
    );
    return { ids: items.map((r) => String(r.id)), pages };
  }

  it('pages through every run newest first, with no repeat and no gap, ties broken by id', async () => {
    for (const limit of [1, 2, 3, 7, 50]) {
      const { ids: seen, pages } = await everyRun('', limit);
      expect(seen, `limit ${limit}`).toEqual(listed);
      // The last page says there is no next one: no empty page at the end.
      expect(pages).toBe(Math.ceil(listed.length / limit));
    }
  });

  it('filters by feed, connection, status and type, and pages within the filter', async () => {
    const runs = async (query: string) => (await everyRun(query, 2)).ids;
    const rows = async (where: string, params: unknown[]) =>
      (
        await server.pool.query<{ id: string }>(
          `SELECT id FROM runs WHERE ${where} ORDER BY created_at DESC, id DESC`,
          params,
        )
      ).rows.map((r) => r.id);
    expect(await runs(`&feedId=${ids.otherFeed}`)).toEqual(await rows('feed_id = $1', [ids.otherFeed]));
    expect((await runs(`&feedId=${ids.otherFeed}`)).length).toBe(2);
    expect(await runs(`&connectionId=${ids.otherConnection}`)).toEqual(
      await rows('connection_id = $1', [ids.otherConnection]),
    );
    expect(await runs('&status=timeout')).toHaveLength(1);
    expect(await runs('&status=failed')).toHaveLength(2);
    expect(await runs('&runType=action')).toEqual(await rows(`run_type = 'action'`, []));
    expect(await runs(`&runType=sync&status=completed&connectionId=${ids.connection}`)).toEqual(
      await rows(`run_type = 'sync' AND status = 'completed' AND connection_id = $1`, [ids.connection]),
    );
    expect(await runs('&status=cancelled')).toEqual([]);
  });

  it('refuses filters and cursors that are not valid with a 400 problem', async () => {
    for (const query of [
      'status=done',
      'runType=cron',
      'feedId=abc',
      'limit=0',
      'limit=500',
      'cursor=nonsense',
    ]) {
      const res = await server.call('GET', `/api/default/runs?${query}`);
      expectProblem(res, 400, 'validation_failed');
    }
    const forge = (micros: string, id: string) =>
      Buffer.from(JSON.stringify([micros, id])).toString('base64url');
    // Past the year 9999, or an id beyond a bigint: refused, never a PostgreSQL error.
    for (const cursor of [
      forge('999999999999999999', '1'),
      forge('-253402300800000000', '1'),
      forge('0', '99999999999999999999'),
      forge('1', '1x'),
    ]) {
      expectProblem(await server.call('GET', `/api/default/runs?cursor=${cursor}`), 400, 'validation_failed');
    }
    // The farthest positions a cursor may hold still work.
    for (const micros of ['253402300800000000', '-210866803200000000']) {
      expect((await server.call('GET', `/api/default/runs?cursor=${forge(micros, '1')}`)).status).toBe(200);
    }
    const fields = await server.call('GET', '/api/default/runs?status=done');
    expect(fields.body.errors).toEqual([expect.objectContaining({ path: '/querystring/status' })]);
  });

  it('shows another org none of them', async () => {
    const res = await server.call('GET', '/api/elsewhere/runs');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ runs: [], nextCursor: null });
  });
});

describe('GET /api/:org/runs/:runId', () => {
  it("answers the spec's Run record, with items rejected and log lines", async () => {
    const id = await insertRun({ status: 'running' });
    await server.pool.query(
      `UPDATE runs SET claimed_by = 'worker-1', claimed_at = now(), last_heartbeat_at = now(), connector_version = '2.1.0',
              checkpoint = '{"page": 3}', items_collected = 12, items_rejected = 2, log_lines = 4
        WHERE id = $1`,
      [id],
    );
    const res = await server.call('GET', `/api/default/runs/${id}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Object.keys(res.body.run).sort()).toEqual(
      [...SPEC_RUN_FIELDS, 'itemsRejected', 'logLines'].sort(),
    );
    expect(res.body.run).toMatchObject({
      id: Number(id),
      organizationId: 'default',
      status: 'running',
      claimedBy: 'worker-1',
      connectorVersion: '2.1.0',
      checkpoint: { page: 3 },
      itemsCollected: 12,
      itemsRejected: 2,
      logLines: 4,
      actionKey: null,
      actionInput: null,
    });
    expect(Date.parse(res.body.run.claimedAt)).not.toBeNaN();
  });

  it('answers 404 for a run that is not there, not a number, or of another org', async () => {
    const id = await insertRun();
    expectProblem(await server.call('GET', '/api/default/runs/987654321'), 404, 'not_found');
    expectProblem(await server.call('GET', '/api/default/runs/abc'), 404, 'not_found');
    expectProblem(await server.call('GET', `/api/elsewhere/runs/${id}`), 404, 'not_found');
  });
});

describe('GET /api/:org/runs/:runId/logs', () => {
  it('follows the log a page at a time with after and nextAfter', async () => {
    const id = await insertRun({ status: 'running', runType: 'action' });
    await server.pool.query(
      `INSERT INTO run_logs (run_id, seq, level, time, msg, fields)
       SELECT $1, n, CASE WHEN n = 3 THEN 'warn' ELSE 'info' END, now(), 'line ' || n,
              CASE WHEN n = 2 THEN '{"item": "A-2"}'::jsonb END
         FROM generate_series(1, 5) n`,
      [id],
    );
    const read = async (query: string) => {
      const res = await server.call('GET', `/api/default/runs/${id}/logs${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const first = await read('?limit=2');
    expect(first.lines.map((l: { msg: string }) => l.msg)).toEqual(['line 1', 'line 2']);
    expect(first.lines[1]).toMatchObject({ seq: 2, level: 'info', fields: { item: 'A-2' } });
    expect(Date.parse(first.lines[0].time)).not.toBeNaN();
    expect(first).toMatchObject({ nextAfter: 2, runStatus: 'running' });
    const second = await read(`?after=${first.nextAfter}&limit=2`);
    expect(second.lines.map((l: { seq: number }) => l.seq)).toEqual([3, 4]);
    expect(second.lines[0].level).toBe('warn');
    const third = await read(`?after=${second.nextAfter}&limit=2`);
    expect(third).toMatchObject({ lines: [{ seq: 5, fields: null }], nextAfter: 5 });
    // Nothing new yet: the same `after` comes back, to ask again with.
    expect(await read('?after=5')).toEqual({ lines: [], nextAfter: 5, runStatus: 'running' });

    // The worker writes more and ends the run; the follower gets the rest and sees it ended.
    await server.pool.query(
      `INSERT INTO run_logs (run_id, seq, level, time, msg) VALUES ($1, 6, 'error', now(), 'gave up')`,
      [id],
    );
    await server.pool.query(`UPDATE runs SET status = 'failed', completed_at = now() WHERE id = $1`, [id]);
    expect(await read('?after=5')).toMatchObject({
      lines: [{ seq: 6, level: 'error', msg: 'gave up' }],
      nextAfter: 6,
      runStatus: 'failed',
    });
  });

  it('answers 404 for an unknown run and 400 for a bad after', async () => {
    expectProblem(await server.call('GET', '/api/default/runs/987654321/logs'), 404, 'not_found');
    expectProblem(await server.call('GET', '/api/default/runs/x/logs'), 404, 'not_found');
    const id = await insertRun();
    for (const after of ['-1', 'two', '1.5', '9007199254740991']) {
      const res = await server.call('GET', `/api/default/runs/${id}/logs?after=${after}`);
      expectProblem(res, 400, 'validation_failed');
    }
    // The last seq there can be is still a place to follow from.
    expect((await server.call('GET', `/api/default/runs/${id}/logs?after=2147483647`)).status).toBe(200);
  });
});

describe('POST /api/:org/runs/:runId/cancel', () => {
  it('cancels a pending run, then refuses a second cancel with 409 naming its status', async () => {
    const id = await insertRun({ status: 'pending', feedId: ids.otherFeed });
    const res = await server.call('POST', `/api/default/runs/${id}/cancel`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.run).toMatchObject({ id: Number(id), status: 'cancelled' });
    expect(res.body.run.completedAt).not.toBeNull();
    expect(res.body.run.errorMessage).toMatch(/cancelled by/);
    const again = await server.call('POST', `/api/default/runs/${id}/cancel`);
    expectProblem(again, 409, 'conflict');
    expect(again.body.detail).toMatch(/its status is cancelled/);
    // A sync can be asked for again at once: the cancelled one is no longer open.
    const sync = await server.call('POST', `/api/default/feeds/${ids.otherFeed}/sync`);
    expect(sync.body.created).toBe(true);
    await server.call('POST', `/api/default/runs/${sync.body.run.id}/cancel`);
  });

  it('takes an empty JSON object as the body, and refuses fields', async () => {
    const id = await insertRun({ status: 'pending', runType: 'action' });
    expectProblem(
      await server.call('POST', `/api/default/runs/${id}/cancel`, { body: { force: true } }),
      400,
      'validation_failed',
    );
    const res = await server.call('POST', `/api/default/runs/${id}/cancel`, { body: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('cancels a running run', async () => {
    const id = await insertRun({ status: 'running', feedId: ids.otherFeed });
    const res = await server.call('POST', `/api/default/runs/${id}/cancel`);
    expect(res.body.run).toMatchObject({ status: 'cancelled' });
    expect((await server.call('GET', `/api/default/runs/${id}`)).body.run.status).toBe('cancelled');
  });

  it('refuses to cancel an ended run, saying how it ended', async () => {
    for (const status of ['completed', 'failed', 'timeout']) {
      const id = await insertRun({ status });
      const res = await server.call('POST', `/api/default/runs/${id}/cancel`);
      expectProblem(res, 409, 'conflict');
      expect(res.body.detail).toContain(`its status is ${status}`);
      expect((await server.call('GET', `/api/default/runs/${id}`)).body.run.status).toBe(status);
    }
  });

  it('answers 404 for a run that is not there or of another org', async () => {
    const id = await insertRun({ status: 'pending', feedId: null, runType: 'action' });
    expectProblem(await server.call('POST', '/api/default/runs/987654321/cancel'), 404, 'not_found');
    expectProblem(await server.call('POST', '/api/default/runs/abc/cancel'), 404, 'not_found');
    expectProblem(await server.call('POST', `/api/elsewhere/runs/${id}/cancel`), 404, 'not_found');
    expect((await server.call('GET', `/api/default/runs/${id}`)).body.run.status).toBe('pending');
  });

  it('needs the write scope: a read token lists runs but cannot cancel one', async () => {
    const id = await insertRun({ status: 'pending', runType: 'action' });
    const read = (await createToken(server, 'default', ['read'])).secret;
    expect((await server.call('GET', `/api/default/runs/${id}`, { token: read })).status).toBe(200);
    expectProblem(
      await server.call('POST', `/api/default/runs/${id}/cancel`, { token: read }),
      403,
      'forbidden',
    );
    const write = (await createToken(server, 'default', ['write'])).secret;
    const res = await server.call('POST', `/api/default/runs/${id}/cancel`, { token: write });
    expect(res.status).toBe(200);
    expect(res.body.run.errorMessage).toMatch(/cancelled by t-/);
  });
});

describe('POST /api/:org/runs/:runId/approve and /reject', () => {
  const awaiting = () => insertRun({ runType: 'action', status: 'pending', approvalStatus: 'pending' });

  it('approves an action waiting for approval: it stays pending for a worker to take', async () => {
    const id = await awaiting();
    const res = await server.call('POST', `/api/default/runs/${id}/approve`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.run).toMatchObject({
      approvalStatus: 'approved',
      status: 'pending',
      actionKey: 'refund',
    });
    const twice = await server.call('POST', `/api/default/runs/${id}/approve`);
    expectProblem(twice, 409, 'conflict');
    expect(twice.body.detail).toMatch(/approvalStatus is approved/);
    expectProblem(await server.call('POST', `/api/default/runs/${id}/reject`), 409, 'conflict');
    expect((await server.call('GET', `/api/default/runs/${id}`)).body.run.approvalStatus).toBe('approved');
  });

  it('rejects one: it never runs', async () => {
    const id = await awaiting();
    const res = await server.call('POST', `/api/default/runs/${id}/reject`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.run).toMatchObject({ approvalStatus: 'rejected', status: 'cancelled' });
    expect(res.body.run.completedAt).not.toBeNull();
    expectProblem(await server.call('POST', `/api/default/runs/${id}/approve`), 409, 'conflict');
    expectProblem(await server.call('POST', `/api/default/runs/${id}/reject`), 409, 'conflict');
  });

  it('refuses runs that do not wait for approval, with 409', async () => {
    const auto = await insertRun({ runType: 'action', status: 'pending' });
    const res = await server.call('POST', `/api/default/runs/${auto}/approve`);
    expectProblem(res, 409, 'conflict');
    expect(res.body.detail).toMatch(/not waiting for approval: its approvalStatus is auto/);
    // Cancelled while it waited: a reject now changes nothing and says so.
    const cancelled = await awaiting();
    expect((await server.call('POST', `/api/default/runs/${cancelled}/cancel`)).status).toBe(200);
    const rejected = await server.call('POST', `/api/default/runs/${cancelled}/reject`);
    expectProblem(rejected, 409, 'conflict');
    expect(rejected.body.detail).toMatch(/its approvalStatus is pending and its status cancelled/);
    expectProblem(await server.call('POST', `/api/default/runs/${cancelled}/approve`), 409, 'conflict');
  });

  it('decides once when two decisions race', async () => {
    const id = await awaiting();
    const answers = await Promise.all([
      server.call('POST', `/api/default/runs/${id}/approve`),
      server.call('POST', `/api/default/runs/${id}/reject`),
      server.call('POST', `/api/default/runs/${id}/approve`),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const winner = answers.find((a) => a.status === 200)?.body.run;
    expect((await server.call('GET', `/api/default/runs/${id}`)).body.run.approvalStatus).toBe(
      winner.approvalStatus,
    );
  });

  it('answers 404 for a run that is not there or of another org', async () => {
    const id = await awaiting();
    expectProblem(await server.call('POST', '/api/default/runs/987654321/approve'), 404, 'not_found');
    expectProblem(await server.call('POST', '/api/default/runs/abc/reject'), 404, 'not_found');
    expectProblem(await server.call('POST', `/api/elsewhere/runs/${id}/approve`), 404, 'not_found');
    expect((await server.call('GET', `/api/default/runs/${id}`)).body.run.approvalStatus).toBe('pending');
  });
});

describe('the OpenAPI document', () => {
  it('lists the run routes with their operations', async () => {
    const doc = (await server.call('GET', '/openapi.json', { token: null })).body;
    const operations = {
      '/api/{org}/feeds/{feedId}/sync': ['post', 'syncFeed'],
      '/api/{org}/runs': ['get', 'listRuns'],
      '/api/{org}/runs/{runId}': ['get', 'getRun'],
      '/api/{org}/runs/{runId}/logs': ['get', 'listRunLogs'],
      '/api/{org}/runs/{runId}/cancel': ['post', 'cancelRun'],
      '/api/{org}/runs/{runId}/approve': ['post', 'approveRun'],
      '/api/{org}/runs/{runId}/reject': ['post', 'rejectRun'],
    };
    for (const [path, [method, operationId]] of Object.entries(operations)) {
      expect(doc.paths[path]?.[method as string]?.operationId, path).toBe(operationId);
    }
    const list = doc.paths['/api/{org}/runs'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['feedId', 'connectionId', 'status', 'runType', 'limit', 'cursor']),
    );
    const run = list.responses['200'].content['application/json'].schema.properties.runs.items;
    expect(Object.keys(run.properties)).toEqual(
      expect.arrayContaining(['approvalStatus', 'itemsCollected', 'itemsRejected', 'logLines']),
    );
    expect(Object.keys(doc.paths['/api/{org}/runs/{runId}/cancel'].post.responses)).toContain('409');
  });
});
