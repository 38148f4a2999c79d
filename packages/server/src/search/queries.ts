import type { Pool } from 'pg';
import { ProblemError } from '../http/problem.js';

/** How a search matched: PostgreSQL full text, or full text blended with vector similarity. */
export type SearchMode = 'text' | 'hybrid';

export interface SearchFilters {
  /** Inclusive, on `occurred_at`. */
  since?: string;
  /** Exclusive, on `occurred_at`. */
  until?: string;
  connectionId?: string;
  /** A connector's key: events of the org's connections of it. */
  connector?: string;
  feedId?: string;
  /** A feed's key: events of the org's feeds of that key. */
  feed?: string;
  /** The event's `origin_type` or its `semantic_type` (`fact` finds what agents saved). */
  kind?: string;
  entityId?: string;
}

/** One cited item: enough for a model or a person to quote it and go to its source. */
export interface SearchHit {
  eventId: number;
  title: string | null;
  sourceUrl: string | null;
  occurredAt: string;
  snippet: string;
  /** Null for events no connector wrote (a fact an agent saved, a watcher's summary). */
  connectionId: number | null;
  rank: number;
}

export interface SearchResult {
  mode: SearchMode;
  /** Why the mode is what it is, in a sentence a person or a model can act on. */
  modeNote: string;
  /**
   * `all`: every event of the org (that passes the filters) was searched. `newest`: only its newest
   * RECENT_EVENTS were, the words being too common among older ones to search them quickly.
   */
  coverage: 'all' | 'newest';
  hits: SearchHit[];
}

export const SEARCH_MAX_LIMIT = 100;
export const SEARCH_DEFAULT_LIMIT = 20;
export const SEARCH_QUERY_MAX_CHARS = 1000;

/**
 * How many matches are ranked: the newest this many. A common word matches a large share of a big
 * org's events, and ranking reads each match's vector (see README.md, "Speed").
 */
export const RANK_CANDIDATES = 200;
/** The org's newest events (after the filters) that are looked through first. */
export const RECENT_EVENTS = 5000;
/**
 * The most events (of every org) the full-text index may hand the search to look through when the
 * newest events do not hold enough matches. Above it, only the newest events are searched and the
 * answer says so (`coverage: "newest"`): the whole table would be read for a phrase of common words.
 */
export const INDEX_CANDIDATES_MAX = 10_000;
/** The newest events whose share of matches estimates what the GIN index would hand over. */
const INDEX_SAMPLE = 1000;

/**
 * Vectors are not built: no embeddings provider exists in svc yet, and the PostgreSQL we ship has
 * no pgvector. The note says which is missing, looked up once per pool, so that neither the API
 * nor a model is led to believe a semantic search ran.
 */
const notes = new WeakMap<Pool, Promise<string>>();
export function searchMode(pool: Pool): Promise<{ mode: SearchMode; modeNote: string }> {
  let note = notes.get(pool);
  if (!note) {
    note = pool
      .query(`SELECT 1 FROM pg_available_extensions WHERE name = 'vector'`)
      .then(({ rowCount }) =>
        rowCount
          ? 'text search only: no embeddings provider is configured'
          : 'text search only: pgvector is not installed and no embeddings provider is configured',
      );
    // A failed look-up is tried again by the next search, not remembered.
    note.catch(() => notes.delete(pool));
    notes.set(pool, note);
  }
  return note.then((modeNote) => ({ mode: 'text' as const, modeNote }));
}

/** The 422 of a query with nothing to search for. */
export const emptyQuery = (q: string) =>
  new ProblemError(
    422,
    'search_query_empty',
    q.trim() === ''
      ? 'q is empty: give words to search for'
      : `q ("${q.slice(0, 100)}") has no words to search for once common words (the, of, ...) and punctuation are left out`,
  );

/** The filters as SQL conditions on `e`, their values pushed to `params` ($1 is the org). */
function conditions(filters: SearchFilters, param: (value: unknown) => number): string[] {
  const where: string[] = [];
  if (filters.since !== undefined) where.push(`e.occurred_at >= $${param(filters.since)}::timestamptz`);
  if (filters.until !== undefined) where.push(`e.occurred_at < $${param(filters.until)}::timestamptz`);
  if (filters.connectionId !== undefined) where.push(`e.connection_id = $${param(filters.connectionId)}`);
  if (filters.connector !== undefined) {
    where.push(
      `e.connection_id IN (SELECT c.id FROM connections c WHERE c.org_id = $1 AND c.connector_key = $${param(filters.connector)})`,
    );
  }
  if (filters.feedId !== undefined) where.push(`e.feed_id = $${param(filters.feedId)}`);
  if (filters.feed !== undefined) {
    where.push(
      `e.feed_id IN (SELECT f.id FROM feeds f WHERE f.org_id = $1 AND f.feed_key = $${param(filters.feed)})`,
    );
  }
  if (filters.kind !== undefined) {
    const kind = param(filters.kind);
    where.push(`(e.origin_type = $${kind} OR e.semantic_type = $${kind})`);
  }
  if (filters.entityId !== undefined) {
    where.push(
      `EXISTS (SELECT 1 FROM event_entities ee WHERE ee.event_id = e.id AND ee.entity_id = $${param(filters.entityId)})`,
    );
  }
  return where;
}

/**
 * The org's events that match `q` (web search syntax: words, "a phrase", -word, or), best first.
 * Always scoped to `orgId`: callers pass the org of the credential or of the agent, never one from
 * input. Throws the 422 when `q` leaves no words to search for, rather than answering nothing.
 *
 * The newest RANK_CANDIDATES matches are ranked, found by whichever of two bounded reads suffices
 * (README.md, "Speed"): the org's newest RECENT_EVENTS events, looked through in time order (a
 * common word has its matches there); else every match the GIN index gives, when they are few
 * enough to read. The org condition is kept out of the index scan there on purpose: ANDed with
 * the (org, time) index, a big org's bitmap is most of the table, turns lossy, and every row is
 * checked again (seen at 400 ms for a word the GIN index alone answers in 30 ms).
 */
export async function searchEvents(
  pool: Pool,
  orgId: string,
  q: string,
  filters: SearchFilters,
  limit = SEARCH_DEFAULT_LIMIT,
): Promise<SearchResult> {
  const { mode, modeNote } = await searchMode(pool);
  const params: unknown[] = [orgId, q];
  const param = (value: unknown) => {
    params.push(value);
    return params.length;
  };
  const filtered = conditions(filters, param)
    .map((c) => ` AND ${c}`)
    .join('');
  const candidates = param(RANK_CANDIDATES);
  const recent = param(RECENT_EVENTS);
  const indexMax = param(INDEX_CANDIDATES_MAX);
  const sample = param(INDEX_SAMPLE);
  const limitParam = param(Math.min(Math.max(1, limit), SEARCH_MAX_LIMIT));
  const { rows } = await pool.query<{
    empty: boolean;
    coverage: 'all' | 'newest';
    id: string | null;
    title: string | null;
    source_url: string | null;
    occurred_at: Date | null;
    connection_id: string | null;
    snippet: string | null;
    rank: number | null;
  }>(
    // numnode = 0: only stop words or punctuation, which match nothing. `loose` is the query with
    // its phrases as plain ANDs: what the GIN index finds for it, the rows it would hand over.
    `WITH q AS MATERIALIZED (
       SELECT query, regexp_replace(query::text, '<->|<[0-9]+>', '&', 'g')::tsquery AS loose
         FROM websearch_to_tsquery('english', $2) AS query
     ),
     -- Pulled lazily: a common word stops the walk at its first matches.
     recent_matches AS MATERIALIZED (
       SELECT r.id, r.occurred_at
         FROM (SELECT e.id, e.occurred_at, e.search_vector
                 FROM events e
                WHERE e.org_id = $1${filtered}
                ORDER BY e.occurred_at DESC, e.id DESC
                LIMIT $${recent}) r
        WHERE r.search_vector @@ (SELECT query FROM q)
        LIMIT $${candidates}
     ),
     -- Older matches are needed when the newest events hold too few and there are older events.
     needs_older AS MATERIALIZED (
       SELECT (SELECT count(*) FROM recent_matches) < $${candidates}
          AND (SELECT count(*) FROM (SELECT 1 FROM events e WHERE e.org_id = $1${filtered} LIMIT $${recent}) n) = $${recent}
          AS yes
     ),
     -- The rows the GIN index would hand over (every org's, phrases as plain ANDs), estimated from
     -- the newest events' share; asked only when older matches are needed.
     index_cheap AS MATERIALIZED (
       SELECT count(*) FILTER (WHERE s.search_vector @@ (SELECT loose FROM q))::float8 / greatest(count(*), 1)
                * (SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = 'events'::regclass) <= $${indexMax} AS yes
         FROM (SELECT e.search_vector FROM events e
                WHERE e.org_id = $1${filtered}
                ORDER BY e.occurred_at DESC, e.id DESC
                LIMIT $${sample}) s
     ),
     older AS (
       SELECT e.id, e.occurred_at
         FROM events e
        WHERE (SELECT yes FROM needs_older)
          AND (SELECT yes FROM index_cheap)
          AND e.search_vector @@ websearch_to_tsquery('english', $2)
          AND (e.org_id = $1) IS TRUE${filtered}
        ORDER BY e.occurred_at DESC, e.id DESC
        LIMIT $${candidates}
     ),
     matches AS (
       SELECT id, occurred_at FROM recent_matches
       UNION
       SELECT id, occurred_at FROM older
       ORDER BY occurred_at DESC, id DESC
       LIMIT $${candidates}
     ),
     top AS (
       SELECT m.id, ts_rank_cd(e.search_vector, q.query) AS rank
         FROM matches m JOIN events e ON e.id = m.id, q
        ORDER BY rank DESC, m.occurred_at DESC, m.id DESC
        LIMIT $${limitParam}
     )
     SELECT numnode(q.query) = 0 AS empty,
            CASE WHEN (SELECT yes FROM needs_older) AND NOT (SELECT yes FROM index_cheap) THEN 'newest' ELSE 'all' END
              AS coverage,
            e.id, e.title, e.source_url, e.occurred_at, e.connection_id,
            ts_headline('english', left(e.payload_text, 20000), q.query,
                        'MaxWords=24, MinWords=8, MaxFragments=1, StartSel=«, StopSel=»') AS snippet,
            top.rank
       FROM q
       LEFT JOIN top ON true
       LEFT JOIN events e ON e.id = top.id
      ORDER BY top.rank DESC NULLS LAST, e.occurred_at DESC, e.id DESC`,
    params,
  );
  if (rows[0]?.empty) throw emptyQuery(q);
  const hits = rows
    .filter((row) => row.id !== null)
    .map((row) => ({
      eventId: Number(row.id),
      title: row.title,
      sourceUrl: row.source_url,
      occurredAt: (row.occurred_at as Date).toISOString(),
      snippet: row.snippet ?? '',
      connectionId: row.connection_id === null ? null : Number(row.connection_id),
      rank: Number(row.rank),
    }));
  return { mode, modeNote, coverage: rows[0]?.coverage ?? 'all', hits };
}
