import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { EventEnvelope } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** Where a batch of envelopes lands: the run's org, connection and feed. */
export interface EventTarget {
  orgId: string;
  connectionId: string;
  feedId: string;
  runId: string;
}

/** Rows per statement: large enough to amortise a round trip, small enough for one parameter. */
const CHUNK = 2000;
/**
 * From this many new items in a batch, they go in with COPY: an INSERT writes row by row, COPY
 * in bulk, at about twice the rate into this table (bench/ingest). Below it, the three round trips
 * COPY needs cost more than they save.
 */
const COPY_FROM = 500;

/** The envelope's fields, as columns of `events`, with how COPY's text format spells each. */
const FIELDS = [
  ['origin_id', 'text'],
  ['origin_type', 'text'],
  ['semantic_type', 'text'],
  ['payload_type', 'text'],
  ['payload_text', 'text'],
  ['payload_data', 'json'],
  ['payload_template', 'json'],
  ['attachments', 'json'],
  ['title', 'text'],
  ['author_name', 'text'],
  ['source_url', 'text'],
  ['occurred_at', 'text'],
  ['score', 'text'],
  ['origin_parent_id', 'text'],
  ['metadata', 'json'],
  ['embedding', 'array'],
] as const;

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
 *
 * A large batch's new items are copied in (COPY), the items already stored updated by the upsert.
 * That is safe because a feed has one writer at a time: one open sync a feed, whose every write is
 * fenced by its lease. Were there a second, the unique index would fail the batch, never double it.
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
  let upserted = [...latest.values()];
  const ids = new Map<string, string>();
  let inserted = 0;
  if (upserted.length >= COPY_FROM) {
    // One probe of the unique index per item, whatever the planner's statistics: as `origin_id =
    // ANY(...)`, a feed's first sync (its rows estimated at one) filtered every row of the feed at
    // each batch, in quadratic time.
    const { rows } = await client.query<{ origin_id: string }>(
      `SELECT o.origin_id FROM unnest($3::text[]) AS o(origin_id)
         CROSS JOIN LATERAL (SELECT 1 FROM events e
                              WHERE e.connection_id = $1 AND e.feed_id = $2 AND e.origin_id = o.origin_id
                              LIMIT 1) AS stored`,
      [target.connectionId, target.feedId, upserted.map((envelope) => envelope.origin_id)],
    );
    const stored = new Set(rows.map((row) => row.origin_id));
    const fresh = upserted.filter((envelope) => !stored.has(envelope.origin_id));
    if (fresh.length >= COPY_FROM) {
      const freshIds = await copyEvents(client, target, fresh);
      for (const [i, envelope] of fresh.entries()) ids.set(envelope.origin_id, freshIds[i] as string);
      inserted += fresh.length;
      upserted = upserted.filter((envelope) => stored.has(envelope.origin_id));
    }
  }
  for (let at = 0; at < upserted.length; at += CHUNK) {
    const { rows } = await client.query<{ id: string; origin_id: string; inserted: boolean }>(INSERT, [
      target.orgId,
      target.connectionId,
      target.feedId,
      target.runId,
      JSON.stringify(upserted.slice(at, at + CHUNK)),
    ]);
    for (const row of rows) {
      ids.set(row.origin_id, row.id);
      if (row.inserted) inserted++;
    }
  }
  return { ids, inserted };
}

/** New rows, their ids taken first (COPY returns none), then copied in. Answers the ids, in order. */
async function copyEvents(
  client: PoolClient,
  target: EventTarget,
  fresh: EventEnvelope[],
): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    "SELECT nextval('events_id_seq')::text AS id FROM generate_series(1, $1)",
    [fresh.length],
  );
  const ids = rows.map((row) => row.id);
  const fixed = [target.orgId, target.connectionId, target.feedId, target.runId]
    .map((value) => copyValue(value, 'text'))
    .join('\t');
  function* lines() {
    for (let at = 0; at < fresh.length; at += CHUNK) {
      let chunk = '';
      for (let i = at; i < Math.min(fresh.length, at + CHUNK); i++) {
        const envelope = fresh[i] as unknown as Record<string, unknown>;
        chunk += `${ids[i]}\t${fixed}`;
        for (const [field, kind] of FIELDS) chunk += `\t${copyValue(envelope[field], kind)}`;
        chunk += '\n';
      }
      yield chunk;
    }
  }
  await pipeline(
    Readable.from(lines()),
    client.query(
      copyFrom(
        `COPY events (id, org_id, connection_id, feed_id, run_id, ${FIELDS.map(([field]) => field).join(', ')}) FROM STDIN`,
      ),
    ),
  );
  return ids;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A value in COPY's text format, read as `jsonb_to_recordset` reads it in the upsert, so that
 * both paths store the same row: null (or absent) is NULL, a JSON column takes the value as JSON,
 * a text column a string as is and anything else as JSON, an array PostgreSQL's `{...}`.
 */
function copyValue(value: unknown, kind: 'text' | 'json' | 'array'): string {
  if (value === null || value === undefined) return '\\N';
  let text: string;
  if (kind === 'array' && Array.isArray(value)) {
    text = `{${value.map((item) => (item === null ? 'NULL' : String(item))).join(',')}}`;
  } else if (kind === 'text' && typeof value === 'string') {
    text = value;
  } else {
    text = JSON.stringify(value);
  }
  return text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] as string);
}
