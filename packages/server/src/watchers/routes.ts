import { countSchema, pageQuerySchema, recordIdSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { isId } from '../db/keyset.js';
import {
  iso,
  isoOrNull,
  orgParams,
  problemResponse,
  problemResponses,
  recordIdParam,
} from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import {
  listWatchers,
  listWindows,
  nextRunAt,
  runWatcherNow,
  setWatcherStatus,
  type WatcherRow,
  type WindowRow,
  windowById,
} from './queries.js';
import { DEFAULT_WATCHER_SETTLE_MS } from './scheduler.js';

const tags = ['watchers'];

const windowSchema = z.object({
  id: recordIdSchema,
  windowStart: z.string().describe('events that arrived (were received by svc) from here…'),
  windowEnd: z.string().describe('…up to here, not included'),
  status: z.enum(['pending', 'running', 'completed', 'failed']),
  attempts: countSchema,
  retryAt: z.string().nullable().describe('when a failed window is tried again'),
  runId: recordIdSchema.nullable().describe('the `watcher` run of the current attempt'),
  messageId: z.string().nullable().describe("the message its agent's turn answers"),
  eventCount: countSchema.nullable(),
  truncated: z
    .boolean()
    .describe('some events did not fit the turn; the model was told how many and given memory_search'),
  error: z.string().nullable(),
  summaryEventId: recordIdSchema.nullable().describe('the `summary` event written when it completed'),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
const windowDetailSchema = windowSchema.extend({
  reply: z.string().nullable(),
  extractedData: z.record(z.string(), z.unknown()).nullable(),
  eventIds: z.array(recordIdSchema).describe('the events given to the model'),
  conversationId: z.string().nullable(),
});
const watcherSchema = z.object({
  slug: z.string(),
  name: z.string(),
  agent: z.string(),
  schedule: z.string(),
  timezone: z.string(),
  tags: z.array(z.string()),
  status: z.enum(['active', 'paused']),
  pausedReason: z.string().nullable(),
  consecutiveFailures: countSchema,
  lastError: z.string().nullable(),
  nextWindowStart: z.string().nullable().describe('the arrival mark: the next window starts here'),
  nextRunAt: z.string().nullable(),
  lastWindow: windowSchema.nullable(),
});

/** The row's bigints arrive as text (`pg`, and `to_jsonb` of `::text`): answered as the integers they are. */
const toWindow = (row: WindowRow) => ({
  id: Number(row.id),
  windowStart: iso(row.window_start),
  windowEnd: iso(row.window_end),
  status: row.status,
  attempts: row.attempts,
  retryAt: isoOrNull(row.retry_at),
  runId: row.run_id === null ? null : Number(row.run_id),
  messageId: row.message_id,
  eventCount: row.event_count,
  truncated: row.truncated,
  error: row.error,
  summaryEventId: row.summary_event_id === null ? null : Number(row.summary_event_id),
  createdAt: iso(row.created_at),
  completedAt: isoOrNull(row.completed_at),
});

const toWatcher = (row: WatcherRow, now: Date, settleMs: number) => ({
  slug: row.slug,
  name: row.name,
  agent: row.agent_id,
  schedule: row.schedule,
  timezone: row.timezone ?? 'UTC',
  tags: row.tags ?? [],
  status: row.status,
  pausedReason: row.paused_reason,
  consecutiveFailures: row.consecutive_failures,
  lastError: row.last_error,
  nextWindowStart: isoOrNull(row.next_window_start),
  nextRunAt: isoOrNull(nextRunAt(row, now, settleMs)),
  lastWindow: row.last_window ? toWindow(row.last_window) : null,
});

const slugParams = orgParams.extend({ slug: z.string().max(63) });
const who = (request: { caller: { token: { name: string } | null } | null }) =>
  request.caller?.token?.name ?? 'admin';

export interface WatcherRouteOptions {
  pool: Pool;
  /** SVC_WATCHER_SETTLE_MS, for the next run each watcher shows. */
  watcherSettleMs?: number | undefined;
}

/** Watchers as they run: their windows, a run now, pause and resume (DESIGN.md section 11). */
export function watcherRoutes(options: WatcherRouteOptions) {
  const settleMs = options.watcherSettleMs ?? DEFAULT_WATCHER_SETTLE_MS;
  const one = async (orgId: string, slug: string) => {
    const [row] = await listWatchers(options.pool, orgId, slug);
    if (!row) throw notFound(`watcher "${slug}"`);
    return toWatcher(row, new Date(), settleMs);
  };
  return async (app: App) => {
    app.get(
      '/api/:org/watchers',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listWatchers',
          summary: 'Watchers with their status, last window and next run',
          description: "The org's watchers with their status, their last window and when they run next.",
          params: orgParams,
          response: { 200: z.object({ watchers: z.array(watcherSchema) }), ...problemResponses },
        },
      },
      async (request) => {
        const now = new Date();
        const rows = await listWatchers(options.pool, orgOf(request).id);
        return { watchers: rows.map((row) => toWatcher(row, now, settleMs)) };
      },
    );

    app.get(
      '/api/:org/watchers/:slug',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getWatcher',
          summary: 'One watcher with its status, last window and next run',
          description: 'The watcher with its status, its last window and when it runs next.',
          params: slugParams,
          response: { 200: z.object({ watcher: watcherSchema }), ...problemResponses },
        },
      },
      async (request) => ({ watcher: await one(orgOf(request).id, request.params.slug) }),
    );

    app.get(
      '/api/:org/watchers/:slug/windows',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listWatcherWindows',
          summary: "A watcher's windows, newest first",
          description:
            "The watcher's windows, newest first, a page at a time: each window is one run over the events of a period.",
          params: slugParams,
          querystring: pageQuerySchema,
          response: {
            200: z.object({ windows: z.array(windowSchema), nextCursor: z.string().nullable() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { cursor, limit } = request.query;
        if (cursor !== undefined && !isId(cursor)) {
          throw new ProblemError(400, 'validation_failed', 'the cursor is not one this API gave out', [
            { path: '/querystring/cursor', message: "use the previous page's nextCursor" },
          ]);
        }
        await one(org.id, request.params.slug);
        const rows = await listWindows(options.pool, org.id, request.params.slug, {
          before: cursor ?? null,
          limit,
        });
        const last = rows.at(-1);
        return {
          windows: rows.map(toWindow),
          nextCursor: rows.length === limit && last ? String(last.id) : null,
        };
      },
    );

    app.get(
      '/api/:org/watchers/:slug/windows/:windowId',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getWatcherWindow',
          summary: "One window's result: the reply, the structured result, the events it covered",
          description: 'The window with its reply, its structured result, and the events it covered.',
          params: slugParams.extend({ windowId: recordIdParam }),
          response: { 200: z.object({ window: windowDetailSchema }), ...problemResponses },
        },
      },
      async (request) => {
        const { slug, windowId } = request.params;
        const row = isId(windowId) ? await windowById(options.pool, orgOf(request).id, slug, windowId) : null;
        if (!row) throw notFound(`window ${windowId} of watcher "${slug}"`);
        return {
          window: {
            ...toWindow(row),
            reply: row.reply ?? null,
            extractedData: row.extracted_data ?? null,
            eventIds: (row.event_ids ?? []).map(Number),
            conversationId: row.conversation_id ?? null,
          },
        };
      },
    );

    app.post(
      '/api/:org/watchers/:slug/run',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'runWatcher',
          summary: 'Run a window now',
          description:
            'Starts the open window at once when one waits (its time or its retry), or makes a window from ' +
            'the arrival mark to now. 202 with a new window, 200 with the open one.',
          params: slugParams,
          body: z.strictObject({}).nullish(),
          response: {
            200: z.object({ window: windowSchema, created: z.literal(false) }),
            202: z.object({ window: windowSchema, created: z.literal(true) }),
            409: problemResponse('The watcher is paused: resume it first'),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { slug } = request.params;
        const outcome = await runWatcherNow(options.pool, orgOf(request).id, slug);
        if (!outcome) throw notFound(`watcher "${slug}"`);
        if (outcome === 'paused') {
          throw new ProblemError(
            409,
            'watcher_paused',
            `watcher "${slug}" is paused: resume it first (svc watchers resume ${slug})`,
          );
        }
        const answer = { window: toWindow(outcome.window), created: outcome.created };
        if (outcome.created) return reply.code(202).send(answer as never);
        return answer as never;
      },
    );

    app.patch(
      '/api/:org/watchers/:slug',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'updateWatcher',
          summary: 'Pause or resume a watcher',
          description:
            'Paused, it makes no window. Resumed, its failures in a row are forgotten and a failed window is ' +
            'retried at once. Its definition is changed by `svc apply`, not here.',
          params: slugParams,
          body: z.strictObject({ status: z.enum(['active', 'paused']) }),
          response: { 200: z.object({ watcher: watcherSchema }), ...problemResponses },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { slug } = request.params;
        if (!(await setWatcherStatus(options.pool, org.id, slug, request.body.status, who(request)))) {
          throw notFound(`watcher "${slug}"`);
        }
        return { watcher: await one(org.id, slug) };
      },
    );
  };
}
