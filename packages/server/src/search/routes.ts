import { recordIdSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import {
  instantSchema,
  orgParams,
  problemResponse,
  problemResponses,
  recordIdFilter,
} from '../http/common.js';
import type { App } from '../http/types.js';
import {
  emptyQuery,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_QUERY_MAX_CHARS,
  searchEvents,
} from './queries.js';

const tags = ['search'];

export const searchHitSchema = z.object({
  eventId: recordIdSchema,
  title: z.string().nullable(),
  sourceUrl: z.string().nullable(),
  occurredAt: z.string(),
  snippet: z.string().describe('a short passage of the body around the words found, between « and »'),
  connectionId: recordIdSchema
    .nullable()
    .describe('null for events no connector wrote (saved by an agent, a watcher)'),
  rank: z.number().describe('ts_rank_cd: a title match weighs more than a body match'),
});

/** What the routes of this file need from the server that mounts them. */
export interface SearchRouteOptions {
  pool: Pool;
}

/** Memory search: the org's events by their words (DESIGN.md section 11). */
export function searchRoutes(options: SearchRouteOptions) {
  return async (app: App) => {
    app.get(
      '/api/:org/search',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'searchEvents',
          summary: "The org's events that match words, best first",
          description:
            '`q` takes web search syntax: words (all must match), `"a phrase"`, `-word`, `or`; English ' +
            'stemming. A title match ranks above a body match. `mode` says how it matched: `text` (full ' +
            'text only; `modeNote` says why no vectors were used). `since` is inclusive and `until` ' +
            'exclusive, both on `occurred_at`; `kind` matches the `origin_type` or the `semantic_type`; ' +
            '`entityId`: events linked to that entity. A `q` with no words to search for is 422 ' +
            '`search_query_empty`.',
          params: orgParams,
          querystring: z.object({
            q: z.string().max(SEARCH_QUERY_MAX_CHARS).default(''),
            limit: z.coerce.number().int().min(1).max(SEARCH_MAX_LIMIT).default(SEARCH_DEFAULT_LIMIT),
            since: instantSchema.optional(),
            until: instantSchema.optional(),
            arrivedSince: instantSchema.optional().describe('received by svc at or after (a watcher window)'),
            arrivedUntil: instantSchema.optional().describe('received by svc before'),
            connectionId: recordIdFilter.optional(),
            feedId: recordIdFilter.optional(),
            kind: z.string().min(1).max(200).optional(),
            entityId: recordIdFilter.optional(),
          }),
          response: {
            200: z.object({
              mode: z.enum(['text', 'hybrid']),
              modeNote: z.string(),
              coverage: z
                .enum(['all', 'newest'])
                .describe(
                  '`all`: every event of the org that passes the filters was searched; `newest`: only its newest ' +
                    '5,000, the words being too common among older events to search them quickly (add words, ' +
                    'a time range or an entity to reach those)',
                ),
              hits: z.array(searchHitSchema),
            }),
            ...problemResponses,
            422: problemResponse('`q` has no words to search for (`search_query_empty`)'),
          },
        },
      },
      async (request) => {
        const { q, limit, ...filters } = request.query;
        if (q.trim() === '') throw emptyQuery(q);
        return searchEvents(options.pool, orgOf(request).id, q, filters, limit);
      },
    );
  };
}
