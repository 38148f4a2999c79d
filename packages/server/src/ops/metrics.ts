import type { Pool } from 'pg';
import client from 'prom-client';
import type { App } from '../http/types.js';

/** A registry per app, so that several servers in one process (tests, benchmarks) never collide. */
export function registerMetrics(app: App, pool: Pool): client.Registry {
  const registry = processRegistry(pool);
  const requests = new client.Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, never the raw URL: label values must stay bounded.
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });
  return registry;
}

/**
 * What every svc process reports, `svc server` and `svc worker` alike: the Node process, its
 * database pool, and the deployment's turn queue and outbox.
 */
export function processRegistry(pool: Pool): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const poolGauge = (name: string, help: string, read: () => number) =>
    new client.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  poolGauge('svc_db_pool_connections', 'Open connections in the PostgreSQL pool', () => pool.totalCount);
  poolGauge('svc_db_pool_idle', 'Idle connections in the PostgreSQL pool', () => pool.idleCount);
  poolGauge('svc_db_pool_waiting', 'Queries waiting for a pool connection', () => pool.waitingCount);

  // Read from the database at each scrape, so that every replica reports the whole deployment's queue.
  const statusGauge = (name: string, help: string, table: 'messages' | 'outbox', statuses: string[]) =>
    new client.Gauge({
      name,
      help,
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        // A scrape while the database is away still answers, with the other metrics.
        const { rows } = await pool
          .query<{ status: string; n: string }>(
            `SELECT s.status, count(t.status) AS n FROM unnest($1::text[]) AS s(status)
               LEFT JOIN ${table} t ON t.status = s.status GROUP BY s.status`,
            [statuses],
          )
          .catch(() => ({ rows: [] }));
        for (const row of rows) this.set({ status: row.status }, Number(row.n));
      },
    });
  statusGauge(
    'svc_turn_queue',
    'Messages waiting for a turn (queued), being answered (running), or paused for an approval',
    'messages',
    ['queued', 'running', 'awaiting_approval'],
  );
  statusGauge(
    'svc_outbox',
    'Replies to chat platforms waiting for delivery (pending), being sent (sending), or failed for good',
    'outbox',
    ['pending', 'sending', 'failed'],
  );
  return registry;
}
