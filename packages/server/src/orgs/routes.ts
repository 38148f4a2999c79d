import { orgCreateSchema, orgSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { upsert, upsertStatements } from '../db/upsert.js';
import { iso, problemResponses } from '../http/common.js';
import type { App } from '../http/types.js';

const tags = ['orgs'];
const admin = { auth: { scope: 'deployment_admin' as const, org: false } };

interface OrgRow {
  slug: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}
const toOrg = (row: OrgRow) => ({
  slug: row.slug,
  name: row.name,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const UPSERT_ORG = upsertStatements({
  table: 'orgs',
  keys: ['slug'],
  values: ['name'],
  returning: ['slug', 'name', 'created_at', 'updated_at'],
});

/** What the routes of this file need from the server that mounts them. */
export interface OrgRouteOptions {
  pool: Pool;
}

/** Creates the org at boot unless it exists; never renames one an operator renamed. */
export async function ensureOrg(options: OrgRouteOptions, slug: string, name: string): Promise<void> {
  await options.pool.query('INSERT INTO orgs (slug, name) VALUES ($1, $2) ON CONFLICT (slug) DO NOTHING', [
    slug,
    name,
  ]);
}

export function orgRoutes(options: OrgRouteOptions) {
  return async (app: App) => {
    app.get(
      '/api/orgs',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'listOrgs',
          summary: 'List orgs (deployment admin)',
          description:
            'Every org of the deployment, with its slug and name. Only the deployment admin (the admin password) may list them.',
          response: { 200: z.object({ orgs: z.array(orgSchema) }), ...problemResponses },
        },
      },
      async () => {
        const { rows } = await options.pool.query<OrgRow>(
          'SELECT slug, name, created_at, updated_at FROM orgs ORDER BY slug',
        );
        return { orgs: rows.map(toOrg) };
      },
    );

    app.post(
      '/api/orgs',
      {
        config: admin,
        schema: {
          tags,
          operationId: 'upsertOrg',
          summary: 'Create an org, or rename it (deployment admin)',
          description:
            'Creates the org with this slug (201), or renames it (200). Only the deployment admin (the admin password) may.',
          body: orgCreateSchema,
          response: {
            200: z.object({ result: z.enum(['updated', 'unchanged']), org: orgSchema }),
            201: z.object({ result: z.literal('created'), org: orgSchema }),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const { slug, name } = request.body;
        const row = await upsert<OrgRow>(options.pool, UPSERT_ORG, [slug, name ?? slug]);
        const org = toOrg(row);
        if (row.result === 'created') return reply.code(201).send({ result: 'created' as const, org });
        return { result: row.result, org };
      },
    );
  };
}
