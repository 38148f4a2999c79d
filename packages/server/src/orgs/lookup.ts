import { ID_PATTERN } from '@svc/core';
import type { Pool } from 'pg';
import { notFound } from '../http/problem.js';
import type { OrgRef } from '../http/types.js';

/**
 * The org a slug names, or 404 `not_found`. A slug that breaks the identifier rule names no org,
 * so it is answered without asking the database.
 */
export async function orgBySlug(pool: Pool, slug: string): Promise<OrgRef> {
  if (!ID_PATTERN.test(slug)) throw notFound(`org "${slug}"`);
  const { rows } = await pool.query<{ id: string }>('SELECT id FROM orgs WHERE slug = $1', [slug]);
  if (!rows[0]) throw notFound(`org "${slug}"`);
  return { id: String(rows[0].id), slug };
}
