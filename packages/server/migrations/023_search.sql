-- Full-text search over events (issue 19, DESIGN.md section 11): a stored tsvector of the title
-- (weight A) and the body (weight B), English stemming, and a GIN index on it.
--
-- Cost on an existing deployment: adding a STORED generated column rewrites `events` (every row's
-- vector is computed, under an ACCESS EXCLUSIVE lock) and the GIN index is then built over it. On a
-- million short events that is tens of seconds on two cores; syncs wait for it. Accepted: search
-- needs the vectors stored (computing them per query is far too slow), and the migration runs once,
-- at an upgrade's start.
--
-- Only the body's first 100,000 characters are indexed: PostgreSQL refuses a tsvector over 1 MB
-- ("string is too long for tsvector"), and without the bound one long event would make its whole
-- batch fail to store. 100,000 characters stay far below that limit whatever the text.
ALTER TABLE events ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A') ||
  setweight(to_tsvector('english'::regconfig, left(payload_text, 100000)), 'B')
) STORED;

-- The org and the filters by equality (connection, feed, kind) are in the index (btree_gin, a
-- trusted extension, so a database owner may install it): a search reads only the matches of its
-- org and filters from the heap, where with the vector alone it read every org's, each a page, to
-- throw most away. Each of these columns adds one entry a row: 135 MB became 143 MB at a million. Where btree_gin cannot be installed the index is
-- the vector's alone and the org is checked per row: the same answers, slower for a small org.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS btree_gin;
  CREATE INDEX events_search ON events USING gin (org_id, connection_id, feed_id, origin_type, semantic_type, search_vector);
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'btree_gin is not available (%): the search index holds the vector only', SQLERRM;
  CREATE INDEX events_search ON events USING gin (search_vector);
END
$$;

-- Entity names found by similarity (memory_entities): pg_trgm where this PostgreSQL has it and the
-- migrating role may install it (it is a trusted extension: a database owner may). Without it,
-- names are matched with ILIKE, which the tool looks up at run time: nothing else depends on it.
DO $$
BEGIN
  CREATE EXTENSION IF NOT EXISTS pg_trgm;
  CREATE INDEX entities_title_trgm ON entities USING gin (title gin_trgm_ops);
EXCEPTION WHEN OTHERS THEN
  RAISE NOTICE 'pg_trgm is not available (%): entity names are matched with ILIKE', SQLERRM;
END
$$;
