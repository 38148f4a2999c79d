import { pageQuerySchema, recordIdSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { cursorOf, encodeCursor } from '../db/keyset.js';
import {
  instantSchema,
  iso,
  orgParams,
  problemResponses,
  recordIdFilter,
  recordIdParam,
} from '../http/common.js';
import { notFound } from '../http/problem.js';
import type { App } from '../http/types.js';
import { type EventRow, eventById, listEvents } from './queries.js';

const tags = ['events'];
const object = z.record(z.string(), z.unknown());
const embeddingQuery = z
  .enum(['true', 'false'])
  .default('false')
  .describe('`true` includes each event’s `embedding` (large; left out otherwise)');

/** An event as its connector emitted it (the envelope's own field names), and where it landed. */
const eventSchema = z.object({
  id: recordIdSchema,
  connectionId: recordIdSchema
    .nullable()
    .describe("null for an event no connector wrote: a watcher's summary, a fact an agent saved"),
  feedId: recordIdSchema.nullable(),
  origin_id: z.string(),
  origin_type: z.string().nullable(),
  payload_type: z.string().nullable().describe('text, markdown, json_template, media or empty'),
  payload_text: z.string(),
  payload_data: object.nullable(),
  payload_template: object.nullable(),
  attachments: z.array(z.unknown()).nullable(),
  title: z.string().nullable(),
  author_name: z.string().nullable(),
  source_url: z.string().nullable(),
  occurred_at: z.string(),
  semantic_type: z.string().nullable(),
  score: z.number().nullable(),
  origin_parent_id: z.string().nullable(),
  metadata: object.nullable(),
  embedding: z.array(z.number()).nullable().optional().describe('only with `?embedding=true`'),
  entityIds: z.array(recordIdSchema).describe('the entities the connector’s entity links tied it to'),
  linkIssues: z
    .array(object)
    .describe(
      'links its rules asked for that could not be made (`ambiguous`: an identity of two entities, ...), ' +
        "and traits not written because they fail the entity type's metadata_schema (`invalid_metadata`)",
    ),
  createdAt: z.string(),
  updatedAt: z.string(),
});

function toEvent(row: EventRow, withEmbedding: boolean) {
  return {
    id: Number(row.id),
    connectionId: row.connection_id === null ? null : Number(row.connection_id),
    feedId: row.feed_id === null ? null : Number(row.feed_id),
    origin_id: row.origin_id,
    origin_type: row.origin_type,
    payload_type: row.payload_type,
    payload_text: row.payload_text,
    payload_data: row.payload_data,
    payload_template: row.payload_template,
    attachments: row.attachments,
    title: row.title,
    author_name: row.author_name,
    source_url: row.source_url,
    occurred_at: iso(row.occurred_at),
    semantic_type: row.semantic_type,
    score: row.score,
    origin_parent_id: row.origin_parent_id,
    metadata: row.metadata,
    ...(withEmbedding ? { embedding: row.embedding } : {}),
    entityIds: row.entity_ids.map(Number),
    linkIssues: row.link_issues ?? [],
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** What the routes of this file need from the server that mounts them. */
export interface EventRouteOptions {
  pool: Pool;
}

/** What syncs collected, read through the API. */
export function eventRoutes(options: EventRouteOptions) {
  return async (app: App) => {
    app.get(
      '/api/:org/events',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listEvents',
          summary: "The org's events, newest first by occurred_at, a page at a time",
          description:
            '`kind` matches the `origin_type`, or the `semantic_type` of an event without one. `since` is ' +
            'inclusive and `until` exclusive, both on `occurred_at`. `entityId`: events linked to that entity.',
          params: orgParams,
          querystring: pageQuerySchema.extend({
            connectionId: recordIdFilter.optional(),
            feedId: recordIdFilter.optional(),
            feedKey: z.string().min(1).max(200).optional(),
            kind: z.string().min(1).max(200).optional(),
            entityId: recordIdFilter.optional(),
            since: instantSchema.optional(),
            until: instantSchema.optional(),
            embedding: embeddingQuery,
          }),
          response: {
            200: z.object({ events: z.array(eventSchema), nextCursor: z.string().nullable() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { limit, cursor, embedding, ...filters } = request.query;
        const withEmbedding = embedding === 'true';
        // One row past the page says whether another page exists, so the last page has no cursor.
        const rows = await listEvents(
          options.pool,
          orgOf(request).id,
          filters,
          cursorOf(cursor),
          limit + 1,
          withEmbedding,
        );
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return {
          events: page.map((row) => toEvent(row, withEmbedding)),
          nextCursor: rows.length > limit && last ? encodeCursor(last.cursor_micros, last.id) : null,
        };
      },
    );

    app.get(
      '/api/:org/events/:eventId',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getEvent',
          summary: 'One event',
          description:
            'The event with its content, the entities it links, and its embedding with `embedding=true`.',
          params: orgParams.extend({ eventId: recordIdParam }),
          querystring: z.object({ embedding: embeddingQuery }),
          response: { 200: z.object({ event: eventSchema }), ...problemResponses },
        },
      },
      async (request) => {
        const withEmbedding = request.query.embedding === 'true';
        const row = await eventById(options.pool, orgOf(request).id, request.params.eventId, withEmbedding);
        if (!row) throw notFound(`event ${request.params.eventId}`);
        return { event: toEvent(row, withEmbedding) };
      },
    );
  };
}
