import type { Pool } from 'pg';
import type { Registry } from 'prom-client';
import { z } from 'zod';
import { problemResponse } from '../http/common.js';
import { ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';

const tags = ['operations'];

/** What the routes of this file need from the server that mounts them. */
export interface OperationsRouteOptions {
  pool: Pool;
}

export function operationsRoutes(options: OperationsRouteOptions, registry: Registry) {
  return async (app: App) => {
    app.get(
      '/healthz',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'healthz',
          summary: 'The process is alive',
          description:
            'Answers 200 while the process runs, without touching the database: for a liveness probe.',
          response: { 200: z.object({ status: z.literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'readyz',
          summary: 'The database is reachable',
          description:
            'Answers 200 once the database answers a query, 503 while it does not or while the server shuts down: for a readiness probe or a load balancer.',
          response: {
            200: z.object({ status: z.literal('ready') }),
            503: problemResponse('The database is unreachable'),
          },
        },
      },
      async (request) => {
        try {
          await options.pool.query('SELECT 1');
        } catch (error) {
          // The cause goes to the log only: this route is public, and errors name hosts and users.
          request.log.error({ err: error }, 'readiness check failed');
          throw new ProblemError(503, 'database_unavailable', 'the database is unreachable');
        }
        return { status: 'ready' as const };
      },
    );

    app.get(
      '/metrics',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'metrics',
          summary: 'Prometheus metrics',
          description:
            "The server's counters and histograms in the Prometheus text format, for a scraper on the operator's network.",
          response: {
            200: {
              description: 'The Prometheus text exposition format',
              content: { 'text/plain': { schema: z.string() } },
            },
          },
        },
      },
      async (_request, reply) => {
        reply.type(registry.contentType).serializer((s) => s as string);
        return registry.metrics();
      },
    );
  };
}
