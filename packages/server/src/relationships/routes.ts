import { mutationResultSchema, pageQuerySchema, recordIdSchema, ruleSlugs } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { cursorOf, encodeCursor, isId } from '../db/keyset.js';
import {
  orgParams,
  problemResponse,
  problemResponses,
  recordIdFilter,
  recordIdParam,
} from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { metadataProblems } from '../memory/json-schema.js';
import {
  deleteRelationship,
  entityTypesOf,
  listRelationships,
  type RelationshipTypeRow,
  relationshipType,
  upsertRelationship,
} from './queries.js';
import { relationshipSchema, toRelationship } from './schema.js';

const tags = ['relationships'];

const entityId = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

const createBody = z.strictObject({
  type: z.string().min(1).max(63).describe('a relationship type slug (manage_entity_schema)'),
  sourceEntityId: entityId,
  targetEntityId: entityId,
  metadata: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("checked against the type's metadata_schema; absent is {}"),
});

const createAnswer = z.object({ result: mutationResultSchema, relationship: relationshipSchema });

/** `person → company, company → company`: what a type's rules allow, for the refusal's message. */
const describeRules = (rules: NonNullable<RelationshipTypeRow['rules']>) =>
  rules.map((r) => `${ruleSlugs(r.source).join('|')} → ${ruleSlugs(r.target).join('|')}`).join(', ');

/** No rules: any two entities. Otherwise one rule must allow both the source's and the target's type. */
function checkRules(type: RelationshipTypeRow, sourceType: string, targetType: string): void {
  const rules = type.rules ?? [];
  if (rules.length === 0) return;
  const allowed = rules.some(
    (r) => ruleSlugs(r.source).includes(sourceType) && ruleSlugs(r.target).includes(targetType),
  );
  if (allowed) return;
  throw new ProblemError(
    422,
    'relationship_not_allowed',
    `relationship type "${type.slug}" does not join a "${sourceType}" to a "${targetType}"; it allows ${describeRules(rules)}`,
    [{ path: '/body/type', message: `allowed: ${describeRules(rules)}` }],
  );
}

/** What the routes of this file need from the server that mounts them. */
export interface RelationshipRouteOptions {
  pool: Pool;
}

/** Typed links between two entities of the org, of a relationship type of its memory model. */
export function relationshipRoutes(options: RelationshipRouteOptions) {
  const { pool } = options;
  return async (app: App) => {
    app.post(
      '/api/:org/relationships',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'createRelationship',
          summary: 'Relate two entities (idempotent)',
          description:
            'One relationship per (type, source, target): posting it again answers 200 `unchanged`, or ' +
            "`updated` when its metadata differs. The entities must be allowed by the type's `rules`, " +
            'and `metadata` valid against its `metadata_schema`.',
          params: orgParams,
          body: createBody,
          response: {
            200: createAnswer,
            201: createAnswer,
            422: problemResponse(
              '`unknown_relationship_type`, `relationship_not_allowed` (the entity types are not ' +
                "allowed by the type's rules) or `invalid_metadata`",
            ),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const body = request.body;
        const type = await relationshipType(pool, org.id, body.type);
        if (!type) {
          throw new ProblemError(
            422,
            'unknown_relationship_type',
            `relationship type "${body.type}" does not exist in org "${org.slug}": declare it in a memory bundle and run svc apply`,
            [{ path: '/body/type', message: 'no such relationship type' }],
          );
        }
        const [source, target] = [String(body.sourceEntityId), String(body.targetEntityId)];
        const types = await entityTypesOf(pool, org.id, [source, target]);
        for (const id of [source, target]) if (!types.has(id)) throw notFound(`entity ${id}`);
        checkRules(type, types.get(source) as string, types.get(target) as string);
        const metadata = body.metadata ?? {};
        const problems = type.metadata_schema ? metadataProblems(type.metadata_schema, metadata) : [];
        if (problems.length > 0) {
          throw new ProblemError(
            422,
            'invalid_metadata',
            `metadata does not match the metadata_schema of relationship type "${type.slug}": ${problems.join('; ')}`,
            problems.map((message) => ({ path: '/body/metadata', message })),
          );
        }
        const row = await upsertRelationship(pool, org.id, {
          type: type.slug,
          source,
          target,
          metadata,
        }).catch((error: { code?: string }) => {
          // An entity or the type deleted since it was read.
          if (error.code === '23503') throw notFound('entity or relationship type');
          throw error;
        });
        const answer = { result: row.result, relationship: toRelationship(row) };
        if (row.result === 'created') return reply.code(201).send(answer);
        return answer;
      },
    );

    app.get(
      '/api/:org/relationships',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listRelationships',
          summary: "The org's relationships, newest first, a page at a time",
          description:
            "The org's relationships between entities, newest first; filtered by an entity or a relationship type.",
          params: orgParams,
          querystring: pageQuerySchema.extend({
            entityId: recordIdFilter
              .optional()
              .describe("an entity's relationships, whether it is their source or their target"),
            type: z.string().min(1).max(63).optional().describe('a relationship type slug'),
          }),
          response: {
            200: z.object({ relationships: z.array(relationshipSchema), nextCursor: z.string().nullable() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { entityId, type, cursor, limit } = request.query;
        // One row past the page says whether another page exists, so the last page has no cursor.
        const rows = await listRelationships(pool, orgOf(request).id, {
          entityId: entityId ?? null,
          type: type ?? null,
          cursor: cursorOf(cursor),
          limit: limit + 1,
        });
        const page = rows.slice(0, limit);
        const last = page.at(-1);
        return {
          relationships: page.map(toRelationship),
          nextCursor: rows.length > limit && last ? encodeCursor(last.cursor_micros, last.id) : null,
        };
      },
    );

    app.delete(
      '/api/:org/relationships/:relationshipId',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'deleteRelationship',
          summary: 'Delete a relationship',
          description: 'Removes the relationship; the entities it joined stay.',
          params: orgParams.extend({ relationshipId: recordIdParam }),
          response: {
            200: z.object({ result: z.literal('deleted'), id: recordIdSchema }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const id = request.params.relationshipId;
        if (!isId(id) || !(await deleteRelationship(pool, orgOf(request).id, id))) {
          throw notFound(`relationship ${id}`);
        }
        return { result: 'deleted' as const, id: Number(id) };
      },
    );
  };
}
