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

CREATE INDEX events_search ON events USING gin (search_vector);

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
