import {
  entitySchemaOperationSchema,
  type MemoryKind,
  memoryKindSchema,
  mutationResultSchema,
  storedEntityTypeSchema,
  storedRelationshipTypeSchema,
  storedWatcherSchema,
} from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { upsert } from '../db/upsert.js';
import { iso, orgParams, problemResponse, problemResponses } from '../http/common.js';
import { ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { deleteWatcher } from '../watchers/queries.js';
import { checkSchema } from './json-schema.js';
import { columnsOf, LIST_KEYS, MEMORY_TABLES, UPSERT, valuesOf } from './queries.js';

const tags = ['memory'];

type Row = Record<string, unknown> & { created_at: Date; updated_at: Date };

function toItem(kind: MemoryKind, row: Row): Record<string, unknown> {
  const rename = MEMORY_TABLES[kind].rename ?? {};
  const item: Record<string, unknown> = {};
  for (const column of columnsOf(kind)) {
    if (column === 'created_at' || column === 'updated_at') continue;
    item[rename[column] ?? column] = row[column] ?? null;
  }
  return { ...item, createdAt: iso(row.created_at), updatedAt: iso(row.updated_at) };
}

const listAnswer = z.object({
  entityTypes: z.array(storedEntityTypeSchema).optional(),
  relationshipTypes: z.array(storedRelationshipTypeSchema).optional(),
  watchers: z.array(storedWatcherSchema).optional(),
});
const upsertAnswer = z.object({
  result: mutationResultSchema,
  kind: memoryKindSchema,
  // Each kind has fields the others lack, so the first schema that fits is the item's own.
  item: z.union([storedEntityTypeSchema, storedRelationshipTypeSchema, storedWatcherSchema]),
});
const deleteAnswer = z.object({
  result: z.enum(['deleted', 'unchanged']),
  kind: memoryKindSchema,
  slug: z.string(),
});

/** What the routes of this file need from the server that mounts them. */
export interface MemoryRouteOptions {
  pool: Pool;
}

/**
 * `manage_entity_schema`: list, upsert and delete entity types, relationship types and watchers.
 * One operation endpoint because agents call the same operation as a tool.
 */
export function memoryRoutes(options: MemoryRouteOptions) {
  return async (app: App) => {
    app.post(
      '/api/:org/operations/manage_entity_schema',
      {
        // `list` only reads, but one route has one scope: listing with a read token uses the same
        // operation through a write-less client, so reads are checked again below.
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'manageEntitySchema',
          summary: 'List, upsert or delete entity types, relationship types and watchers',
          description:
            '`list` needs the read scope; `upsert` and `delete` need write. A list without `kind` answers all three kinds at once.',
          params: orgParams,
          body: entitySchemaOperationSchema,
          response: {
            // Most specific first: the serializer answers with the first schema that fits.
            200: z.union([upsertAnswer, deleteAnswer, listAnswer]),
            201: upsertAnswer,
            409: problemResponse(
              '`relationship_type_in_use`: the relationship type to delete has relationships',
            ),
            422: problemResponse(
              '`unknown_agent`: a watcher names an agent that does not exist; `invalid_schema`: a ' +
                '`metadata_schema` or `extraction_schema` is not a JSON Schema that compiles',
            ),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const op = request.body;
        if (op.action !== 'list' && !request.caller?.scopes.has('write')) {
          throw new ProblemError(
            403,
            'forbidden',
            `this token lacks the "write" scope needed to ${op.action}`,
          );
        }
        if (op.action === 'list') {
          const kinds = op.kind ? [op.kind] : (Object.keys(MEMORY_TABLES) as MemoryKind[]);
          const answer: Record<string, unknown> = {};
          for (const kind of kinds) {
            const { rows } = await options.pool.query<Row>(
              `SELECT ${columnsOf(kind).join(', ')} FROM ${MEMORY_TABLES[kind].table} WHERE org_id = $1 ORDER BY slug`,
              [org.id],
            );
            answer[LIST_KEYS[kind]] = rows.map((row) => toItem(kind, row));
          }
          return answer;
        }
        if (op.action === 'delete' && op.kind === 'watcher') {
          const deleted = await deleteWatcher(options.pool, org.id, op.slug);
          return {
            result: deleted ? ('deleted' as const) : ('unchanged' as const),
            kind: op.kind,
            slug: op.slug,
          };
        }
        if (op.action === 'delete') {
          const { rowCount } = await options.pool
            .query(`DELETE FROM ${MEMORY_TABLES[op.kind].table} WHERE org_id = $1 AND slug = $2`, [
              org.id,
              op.slug,
            ])
            .catch((error: { code?: string }) => {
              // Only relationships refer to a memory type's row without cascading (watchers refer to agents).
              if (error.code === '23503' && op.kind === 'relationship_type') {
                throw new ProblemError(
                  409,
                  'relationship_type_in_use',
                  `relationship type "${op.slug}" has relationships: delete them first (GET /api/${org.slug}/relationships?type=${op.slug} lists them, DELETE /api/${org.slug}/relationships/:id deletes one)`,
                );
              }
              throw error;
            });
          return {
            result: rowCount ? ('deleted' as const) : ('unchanged' as const),
            kind: op.kind,
            slug: op.slug,
          };
        }
        const item = op.item as Record<string, unknown>;
        // An API client may skip the CLI's checks: a schema that does not compile is never stored.
        if (op.kind === 'watcher') {
          checkSchema(op.item.extraction_schema, '/body/item/extraction_schema', { objectRoot: true });
        } else checkSchema(op.item.metadata_schema, '/body/item/metadata_schema');
        const values = valuesOf(op.kind, item);
        const row = await upsert<Row>(options.pool, UPSERT[op.kind], [org.id, item.slug, ...values]).catch(
          (error: { code?: string }) => {
            if (error.code === '23503' && op.kind === 'watcher') {
              throw new ProblemError(
                422,
                'unknown_agent',
                `agent "${String(item.agent)}" does not exist in org "${org.slug}"`,
                [{ path: '/body/item/agent', message: 'no such agent' }],
              );
            }
            throw error;
          },
        );
        const answer = { result: row.result, kind: op.kind, item: toItem(op.kind, row) };
        if (row.result === 'created') return reply.code(201).send(answer as never);
        return answer as never;
      },
    );
  };
}
