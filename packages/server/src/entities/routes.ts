import {
  CUSTOM_IDENTITY_PREFIX,
  type CustomIdentityNamespace,
  type IdentityNamespace,
  normalizeIdentity,
} from '@svc/connector-sdk';
import { pageQuerySchema, recordIdSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { iso, orgParams, problemResponses, recordIdParam } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { ENTITY_RELATIONSHIPS, relationshipsOfEntity } from '../relationships/queries.js';
import { relationshipSchema, toRelationship } from '../relationships/schema.js';
import { type EntityRow, entityById, listEntities } from './queries.js';

const tags = ['entities'];

const entitySchema = z.object({
  id: recordIdSchema,
  entityType: z.string(),
  title: z.string().nullable(),
  traits: z.record(z.string(), z.unknown()).describe("set by the entity links' traits"),
  identities: z
    .array(z.object({ namespace: z.string(), value: z.string() }))
    .describe('what finds the entity: one entity per (type, namespace, value), values normalised'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

const toEntity = (row: EntityRow) => ({
  id: Number(row.id),
  entityType: row.entity_type,
  title: row.title,
  traits: row.traits,
  identities: row.identities,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const badQuery = (path: string, detail: string, message: string) =>
  new ProblemError(400, 'validation_failed', detail, [{ path, message }]);

/**
 * `namespace:value`, normalised as the links normalise it. A custom namespace has a colon of its
 * own (`custom:shop_customer_id:C-1001`); a value may have more.
 */
export function identityOf(raw: string): { namespace: string; value: string } {
  const from = raw.startsWith(CUSTOM_IDENTITY_PREFIX) ? CUSTOM_IDENTITY_PREFIX.length : 0;
  const colon = raw.indexOf(':', from);
  const path = '/querystring/identity';
  if (colon <= 0)
    throw badQuery(path, 'identity is written namespace:value', 'for example email:jane@example.com');
  const namespace = raw.slice(0, colon);
  let value: string | null;
  try {
    value = normalizeIdentity(namespace as IdentityNamespace | CustomIdentityNamespace, raw.slice(colon + 1));
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw badQuery(path, `"${namespace}" is not an identity namespace`, error.message);
  }
  if (value === null) {
    throw badQuery(
      path,
      `"${raw.slice(colon + 1)}" is not a value of namespace "${namespace}"`,
      'no entity can hold it',
    );
  }
  return { namespace, value };
}

const encodeCursor = (id: string) => Buffer.from(JSON.stringify(['entity', id])).toString('base64url');

function cursorOf(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  try {
    const [kind, id] = JSON.parse(Buffer.from(raw, 'base64url').toString()) as [unknown, unknown];
    if (kind === 'entity' && typeof id === 'string' && /^\d{1,18}$/.test(id)) return id;
  } catch {}
  throw badQuery(
    '/querystring/cursor',
    'the cursor is not one this API gave out',
    "use the previous page's nextCursor",
  );
}

/** What the routes of this file need from the server that mounts them. */
export interface EntityRouteOptions {
  pool: Pool;
}

/** The entities that events link to, as their links made them. */
export function entityRoutes(options: EntityRouteOptions) {
  return async (app: App) => {
    app.get(
      '/api/:org/entities',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'listEntities',
          summary: "The org's entities, oldest first, a page at a time",
          description:
            '`identity` (`namespace:value`, for example `email:Jane@Example.com`) is normalised as entity ' +
            'links normalise it, then matched exactly: at most one entity per type holds it.',
          params: orgParams,
          querystring: pageQuerySchema.extend({
            type: z.string().min(1).max(200).optional().describe('an entity type slug'),
            identity: z.string().min(3).max(1000).optional().describe('namespace:value'),
          }),
          response: {
            200: z.object({ entities: z.array(entitySchema), nextCursor: z.string().nullable() }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const { type, identity, cursor, limit } = request.query;
        const rows = await listEntities(options.pool, orgOf(request).id, {
          type: type ?? null,
          identity: identity === undefined ? null : identityOf(identity),
          after: cursorOf(cursor),
          limit,
        });
        const last = rows.at(-1);
        return {
          entities: rows.map(toEntity),
          nextCursor: rows.length === limit && last ? encodeCursor(last.id) : null,
        };
      },
    );

    app.get(
      '/api/:org/entities/:entityId',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getEntity',
          summary: 'One entity, with its identities, traits and newest relationships',
          description:
            `\`relationships\`: its ${ENTITY_RELATIONSHIPS} newest, whether it is their source or their target; ` +
            'GET /api/{org}/relationships?entityId= pages through all of them.',
          params: orgParams.extend({ entityId: recordIdParam }),
          response: {
            200: z.object({ entity: entitySchema.extend({ relationships: z.array(relationshipSchema) }) }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const orgId = orgOf(request).id;
        const row = await entityById(options.pool, orgId, request.params.entityId);
        if (!row) throw notFound(`entity ${request.params.entityId}`);
        const relationships = await relationshipsOfEntity(options.pool, orgId, row.id);
        return { entity: { ...toEntity(row), relationships: relationships.map(toRelationship) } };
      },
    );
  };
}
