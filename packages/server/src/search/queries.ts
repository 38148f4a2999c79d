import type { Pool } from 'pg';
import { ProblemError } from '../http/problem.js';

/** How a search matched: PostgreSQL full text, or full text blended with vector similarity. */
export type SearchMode = 'text' | 'hybrid';

export interface SearchFilters {
  /** Inclusive, on `occurred_at`. */
  since?: string;
  /** Exclusive, on `occurred_at`. */
  until?: string;
  /** Inclusive, on when svc received the event (`created_at`): a watcher window's span. */
  arrivedSince?: string;
  /** Exclusive, on `created_at`. */
  arrivedUntil?: string;
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
/**
 * The most rows the GIN index may hand over, as the planner estimates them (of the org and the
 * filters the index holds: migration 023), for the search to read them all. More, and the org's
 * newest events are looked through instead. Each is a heap page read (README.md, "Speed").
 */
export const INDEX_CANDIDATES_MAX = 5000;
/**
 * How many of the org's newest events (after the filters) are looked through when the words are
 * too common for the index. Their matches are the newest; when fewer than RANK_CANDIDATES are
 * there, only these were searched, and the answer says so (`coverage: "newest"`).
 */
export const RECENT_EVENTS = 5000;

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
function conditions(
  filters: SearchFilters,
  param: (value: unknown) => number,
  { walking = false }: { walking?: boolean } = {},
): string[] {
  const where: string[] = [];
  // Walking the (org, time) index, the conditions the GIN index holds are checked on each row
  // (IS TRUE, which no index takes): given to the GIN index, the planner read a connection's
  // 166,000 events through a lossy bitmap and sorted them (700 ms) rather than walk the org's
  // newest. The others stay as they are: a time range narrows the walk, an entity is a join.
  const onRow = (c: string) => (walking ? `(${c}) IS TRUE` : c);
  if (filters.since !== undefined) where.push(`e.occurred_at >= $${param(filters.since)}::timestamptz`);
  if (filters.until !== undefined) where.push(`e.occurred_at < $${param(filters.until)}::timestamptz`);
  if (filters.arrivedSince !== undefined)
    where.push(`e.created_at >= $${param(filters.arrivedSince)}::timestamptz`);
  if (filters.arrivedUntil !== undefined)
    where.push(`e.created_at < $${param(filters.arrivedUntil)}::timestamptz`);
  if (filters.connectionId !== undefined)
    where.push(onRow(`e.connection_id = $${param(filters.connectionId)}`));
  if (filters.connector !== undefined) {
    where.push(
      `e.connection_id IN (SELECT c.id FROM connections c WHERE c.org_id = $1 AND c.connector_key = $${param(filters.connector)})`,
    );
  }
  if (filters.feedId !== undefined) where.push(onRow(`e.feed_id = $${param(filters.feedId)}`));
  if (filters.feed !== undefined) {
    where.push(
      `e.feed_id IN (SELECT f.id FROM feeds f WHERE f.org_id = $1 AND f.feed_key = $${param(filters.feed)})`,
    );
  }
  if (filters.kind !== undefined) {
    const kind = param(filters.kind);
    where.push(onRow(`(e.origin_type = $${kind} OR e.semantic_type = $${kind})`));
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
 * The newest RANK_CANDIDATES matches are ranked, found one of two bounded ways (README.md,
 * "Speed"), chosen by the planner's estimate of the rows the GIN index would hand over: few, and
 * they are all read (every match found); many, and the org's newest RECENT_EVENTS events are looked
 * through in time order, where a common word has its newest matches. The org condition is kept
 * out of the index scan: ANDed with the (org, time) index, a big org's bitmap is most of the
 * table, turns lossy, and every row is checked again (400 ms, where the GIN index alone took 30).
 */
export async function searchEvents(
  pool: Pool,
  orgId: string,
  q: string,
  filters: SearchFilters,
  limit = SEARCH_DEFAULT_LIMIT,
): Promise<SearchResult> {
  const { mode, modeNote } = await searchMode(pool);
  const orgIndexed = await orgInIndex(pool);
  let fromIndex = (await indexEstimate(pool, orgIndexed ? orgId : null, q, filters)) <= INDEX_CANDIDATES_MAX;
  let rows = await rankedMatches(pool, orgId, q, filters, limit, fromIndex ? orgIndexed : null);
  // The estimate was short (words often found together): more than INDEX_CANDIDATES_MAX rows were
  // handed over, and reading them all would cost what the bound is there to avoid. The org's
  // newest events are looked through instead, as if the estimate had said so.
  if (fromIndex && Number(rows[0]?.handed ?? 0) > INDEX_CANDIDATES_MAX && !rows[0]?.empty) {
    fromIndex = false;
    rows = await rankedMatches(pool, orgId, q, filters, limit, null);
  }
  if (rows[0]?.empty) throw emptyQuery(q);
  const found = Number(rows[0]?.found ?? 0);
  const coverage =
    fromIndex || found >= RANK_CANDIDATES || !(await hasOlder(pool, orgId, filters)) ? 'all' : 'newest';
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
  return { mode, modeNote, coverage, hits };
}

interface RankedRow {
  empty: boolean;
  found: string;
  handed: string | null;
  id: string | null;
  title: string | null;
  source_url: string | null;
  occurred_at: Date | null;
  connection_id: string | null;
  snippet: string | null;
  rank: number | null;
}

/**
 * The page of the newest RANK_CANDIDATES matches ranked, found through the GIN index (`orgIndexed`
 * given: whether it holds the org) or by walking the org's newest events (`null`). Through the
 * index at most INDEX_CANDIDATES_MAX + 1 rows are read: `handed` says whether there were more, in
 * which case the page is not all the matches' and the caller walks instead.
 */
async function rankedMatches(
  pool: Pool,
  orgId: string,
  q: string,
  filters: SearchFilters,
  limit: number,
  orgIndexed: boolean | null,
): Promise<RankedRow[]> {
  const params: unknown[] = [orgId, q];
  const param = (value: unknown) => {
    params.push(value);
    return params.length;
  };
  const fromIndex = orgIndexed !== null;
  const filtered = conditions(filters, param, { walking: !fromIndex })
    .map((c) => ` AND ${c}`)
    .join('');
  const candidates = param(RANK_CANDIDATES);
  const limitParam = param(Math.min(Math.max(1, limit), SEARCH_MAX_LIMIT));
  const bound = fromIndex ? param(INDEX_CANDIDATES_MAX + 1) : param(RECENT_EVENTS);
  // Through the index: the rows it hands over, at most the bound and one more (a LIMIT of its own,
  // unordered, so that the planner cannot walk the (org, time) index instead, which would walk
  // all the org's events for a rare word); then their newest RANK_CANDIDATES. Walking: pulled
  // lazily, a common word stops the walk at its first RANK_CANDIDATES matches.
  const handed = fromIndex
    ? `handed AS MATERIALIZED (
         SELECT e.id, e.occurred_at
           FROM events e
          WHERE e.search_vector @@ websearch_to_tsquery('english', $2) AND ${orgIndexed ? 'e.org_id = $1' : '(e.org_id = $1) IS TRUE'}${filtered}
          LIMIT $${bound}),`
    : '';
  const matches = fromIndex
    ? `SELECT h.id, h.occurred_at FROM handed h
        ORDER BY h.occurred_at DESC, h.id DESC
        LIMIT $${candidates}`
    : `SELECT r.id, r.occurred_at
         FROM (SELECT e.id, e.occurred_at, e.search_vector
                 FROM events e
                WHERE e.org_id = $1${filtered}
                ORDER BY e.occurred_at DESC, e.id DESC
                LIMIT $${bound}) r
        WHERE r.search_vector @@ (SELECT query FROM q)
        LIMIT $${candidates}`;
  const { rows } = await pool.query<RankedRow>(
    // numnode = 0: only stop words or punctuation, which match nothing. Only the page's rows get
    // a headline: ts_headline parses the text again, the costliest step per row.
    `WITH q AS MATERIALIZED (SELECT websearch_to_tsquery('english', $2) AS query),
     ${handed}
     matches AS MATERIALIZED (${matches}),
     top AS (
       SELECT m.id, ts_rank_cd(e.search_vector, q.query) AS rank
         FROM matches m JOIN events e ON e.id = m.id, q
        ORDER BY rank DESC, m.occurred_at DESC, m.id DESC
        LIMIT $${limitParam}
     )
     SELECT numnode(q.query) = 0 AS empty, (SELECT count(*) FROM matches) AS found,
            ${fromIndex ? '(SELECT count(*) FROM handed)' : 'NULL::bigint'} AS handed,
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
  return rows;
}

/**
 * The rows the GIN index would hand over for `q` (of every org), as the planner estimates them
 * from the column's statistics (a phrase counts as its words ANDed). Planning only: nothing is read.
 */
async function indexEstimate(
  pool: Pool,
  orgId: string | null,
  q: string,
  filters: SearchFilters,
): Promise<number> {
  const params: unknown[] = [q];
  const where = [`e.search_vector @@ websearch_to_tsquery('english', $1)`];
  if (orgId !== null) {
    // The conditions the index holds, so the estimate is of the rows it hands over (the others,
    // a time range or an entity, are checked on those rows and would only lower the estimate).
    const param = (value: unknown) => {
      params.push(value);
      return params.length;
    };
    where.push(`e.org_id = $${param(orgId)}`);
    if (filters.connectionId !== undefined) where.push(`e.connection_id = $${param(filters.connectionId)}`);
    if (filters.feedId !== undefined) where.push(`e.feed_id = $${param(filters.feedId)}`);
    if (filters.kind !== undefined) {
      const kind = param(filters.kind);
      where.push(`(e.origin_type = $${kind} OR e.semantic_type = $${kind})`);
    }
  }
  const { rows } = await pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    `EXPLAIN (FORMAT JSON) SELECT 1 FROM events e WHERE ${where.join(' AND ')}`,
    params,
  );
  const plan = rows[0]?.['QUERY PLAN'][0].Plan;
  // A phrase: the index hands over every row holding all its words, each then read (its vector
  // from TOAST) to check their order, and words that are often together make many more such rows
  // than their frequencies multiplied by the org's and the filters' share: 41,000 where 5,500
  // were estimated, 1.3 s. A phrase is estimated as its words in every org, as before the org was
  // in the index (measured: its searches stay below 100 ms that way).
  if (orgId !== null && plan && /<\d*-?>/.test(JSON.stringify(plan)))
    return indexEstimate(pool, null, q, filters);
  return plan?.['Plan Rows'] ?? Number.POSITIVE_INFINITY;
}

/**
 * Whether the search index holds the org (migration 023, where btree_gin could be installed): then
 * the index hands over the org's matches only, and its estimate is of those. Looked up once per pool.
 */
const orgIndexes = new WeakMap<Pool, Promise<boolean>>();
function orgInIndex(pool: Pool): Promise<boolean> {
  let known = orgIndexes.get(pool);
  if (!known) {
    known = pool
      .query(
        `SELECT 1 FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
          WHERE i.indexrelid = 'events_search'::regclass AND a.attname = 'org_id'`,
      )
      .then(({ rowCount }) => (rowCount ?? 0) > 0);
    known.catch(() => orgIndexes.delete(pool));
    orgIndexes.set(pool, known);
  }
  return known;
}

/** Whether the org has more events (that pass the filters) than the newest RECENT_EVENTS looked through. */
async function hasOlder(pool: Pool, orgId: string, filters: SearchFilters): Promise<boolean> {
  const params: unknown[] = [orgId];
  const param = (value: unknown) => {
    params.push(value);
    return params.length;
  };
  const filtered = conditions(filters, param, { walking: true })
    .map((c) => ` AND ${c}`)
    .join('');
  const { rows } = await pool.query<{ more: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM events e WHERE e.org_id = $1${filtered}
                     ORDER BY e.occurred_at DESC, e.id DESC OFFSET $${param(RECENT_EVENTS)}) AS more`,
    params,
  );
  return rows[0]?.more ?? false;
}
