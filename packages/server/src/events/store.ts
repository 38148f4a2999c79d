import type { EventEnvelope } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';

/** Where a batch of envelopes lands: the run's org, connection and feed. */
export interface EventTarget {
  orgId: string;
  connectionId: string;
  feedId: string;
  runId: string;
}

/** Rows per statement: large enough to amortise a round trip, small enough for one parameter. */
const CHUNK = 2000;

// jsonb_to_recordset reads the envelopes by their own field names: the batch crosses as one
// parameter, so a thousand rows cost one statement and one parse.
const INSERT = `
  INSERT INTO events AS e (org_id, connection_id, feed_id, run_id, origin_id, origin_type, semantic_type,
    payload_type, payload_text, payload_data, payload_template, attachments, title, author_name, source_url,
    occurred_at, score, origin_parent_id, metadata, embedding)
  SELECT $1, $2, $3, $4, x.origin_id, x.origin_type, x.semantic_type, x.payload_type, x.payload_text,
         x.payload_data, x.payload_template, x.attachments, x.title, x.author_name, x.source_url, x.occurred_at,
         x.score, x.origin_parent_id, x.metadata, x.embedding
    FROM jsonb_to_recordset($5::jsonb) AS x(origin_id text, origin_type text, semantic_type text,
         payload_type text, payload_text text, payload_data jsonb, payload_template jsonb, attachments jsonb,
         title text, author_name text, source_url text, occurred_at timestamptz, score float8,
         origin_parent_id text, metadata jsonb, embedding float8[])
  ON CONFLICT (connection_id, feed_id, origin_id) DO UPDATE SET
    run_id = excluded.run_id, origin_type = excluded.origin_type, semantic_type = excluded.semantic_type,
    payload_type = excluded.payload_type, payload_text = excluded.payload_text,
    payload_data = excluded.payload_data, payload_template = excluded.payload_template,
    attachments = excluded.attachments, title = excluded.title, author_name = excluded.author_name,
    source_url = excluded.source_url, occurred_at = excluded.occurred_at, score = excluded.score,
    origin_parent_id = excluded.origin_parent_id, metadata = excluded.metadata, embedding = excluded.embedding,
    updated_at = now()
  RETURNING e.id, e.origin_id, (e.xmax = 0) AS inserted`;

/**
 * Writes envelopes as rows of `events`, in the caller's transaction: new items inserted, items
 * seen before (same connection, feed and origin_id) updated in place, so a batch sent twice (a
 * retry after a crash) leaves the same rows. Within one batch the last envelope of an origin_id
 * wins, as it would have over two batches. Answers each row's id by origin_id, and how many rows
 * are new.
 */
export async function storeEvents(
  client: PoolClient,
  target: EventTarget,
  envelopes: EventEnvelope[],
): Promise<{ ids: Map<string, string>; inserted: number }> {
  const latest = new Map<string, EventEnvelope>();
  for (const envelope of envelopes) {
    latest.delete(envelope.origin_id);
    latest.set(envelope.origin_id, envelope);
  }
  const unique = [...latest.values()];
  const ids = new Map<string, string>();
  let inserted = 0;
  for (let at = 0; at < unique.length; at += CHUNK) {
    const { rows } = await client.query<{ id: string; origin_id: string; inserted: boolean }>(INSERT, [
      target.orgId,
      target.connectionId,
      target.feedId,
      target.runId,
      JSON.stringify(unique.slice(at, at + CHUNK)),
    ]);
    for (const row of rows) {
      ids.set(row.origin_id, row.id);
      if (row.inserted) inserted++;
    }
  }
  return { ids, inserted };
}
