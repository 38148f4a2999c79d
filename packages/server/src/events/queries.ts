import type { Pool } from 'pg';
import { isId, microsOf, timestampAt } from '../db/keyset.js';

export interface EventRow {
  id: string;
  connection_id: string | null;
  feed_id: string | null;
  origin_id: string;
  origin_type: string | null;
  semantic_type: string | null;
  payload_type: string | null;
  payload_text: string;
  payload_data: Record<string, unknown> | null;
  payload_template: Record<string, unknown> | null;
  attachments: unknown[] | null;
  title: string | null;
  author_name: string | null;
  source_url: string | null;
  occurred_at: Date;
  score: number | null;
  origin_parent_id: string | null;
  metadata: Record<string, unknown> | null;
  embedding: number[] | null;
  link_issues: Record<string, unknown>[] | null;
  entity_ids: string[];
  created_at: Date;
  updated_at: Date;
  cursor_micros: string;
}

/** Every column but the embedding, which is large and asked for only by `?embedding=true`. */
const columns = (withEmbedding: boolean) => `e.id, e.connection_id, e.feed_id, e.origin_id, e.origin_type,
  e.semantic_type, e.payload_type, e.payload_text, e.payload_data, e.payload_template, e.attachments, e.title,
  e.author_name, e.source_url, e.occurred_at, e.score, e.origin_parent_id, e.metadata,
  ${withEmbedding ? 'e.embedding' : 'NULL::float8[] AS embedding'}, e.link_issues,
  ARRAY(SELECT ee.entity_id FROM event_entities ee WHERE ee.event_id = e.id ORDER BY ee.entity_id) AS entity_ids,
  e.created_at, e.updated_at, ${microsOf('e.occurred_at')} AS cursor_micros`;

export interface EventFilters {
  connectionId?: string;
  feedId?: string;
  feedKey?: string;
  /** The envelope's kind: its `origin_type`, else its `semantic_type`. */
  kind?: string;
  entityId?: string;
  /** Inclusive, on `occurred_at`. */
  since?: string;
  /** Exclusive, on `occurred_at`. */
  until?: string;
}

/** The org's events that pass `filters`, newest first by (occurred_at, id), after `cursor`. */
export async function listEvents(
  pool: Pool,
  orgId: string,
  filters: EventFilters,
  cursor: { micros: string; id: string } | null,
  limit: number,
  withEmbedding: boolean,
): Promise<EventRow[]> {
  const params: unknown[] = [orgId];
  const where = ['e.org_id = $1'];
  const param = (value: unknown) => {
    params.push(value);
    return params.length;
  };
  if (filters.connectionId !== undefined) where.push(`e.connection_id = $${param(filters.connectionId)}`);
  if (filters.feedId !== undefined) where.push(`e.feed_id = $${param(filters.feedId)}`);
  if (filters.feedKey !== undefined) {
    where.push(
      `e.feed_id IN (SELECT f.id FROM feeds f WHERE f.org_id = $1 AND f.feed_key = $${param(filters.feedKey)})`,
    );
  }
  if (filters.kind !== undefined)
    where.push(`coalesce(e.origin_type, e.semantic_type) = $${param(filters.kind)}`);
  if (filters.entityId !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM event_entities ee WHERE ee.event_id = e.id AND ee.entity_id = $${param(filters.entityId)})`,
    );
  }
  if (filters.since !== undefined) where.push(`e.occurred_at >= $${param(filters.since)}::timestamptz`);
  if (filters.until !== undefined) where.push(`e.occurred_at < $${param(filters.until)}::timestamptz`);
  if (cursor) {
    const at = param(cursor.micros);
    where.push(`(e.occurred_at, e.id) < (${timestampAt(at)}, $${param(cursor.id)}::bigint)`);
  }
  const { rows } = await pool.query<EventRow>(
    `SELECT ${columns(withEmbedding)} FROM events e
      WHERE ${where.join(' AND ')}
      ORDER BY e.occurred_at DESC, e.id DESC
      LIMIT $${param(limit)}`,
    params,
  );
  return rows;
}

export async function eventById(
  pool: Pool,
  orgId: string,
  id: string,
  withEmbedding: boolean,
): Promise<EventRow | null> {
  if (!isId(id)) return null;
  const { rows } = await pool.query<EventRow>(
    `SELECT ${columns(withEmbedding)} FROM events e WHERE e.org_id = $1 AND e.id = $2`,
    [orgId, id],
  );
  return rows[0] ?? null;
}
