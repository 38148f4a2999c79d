-- What the latest `svc apply` to an org declared (issue 20): the ids of every resource its project
-- declares, so that the server, and the console with it, can tell what apply manages from drift
-- (what the org has and the project declares nowhere). One row per org: projects that apply to
-- the same org overwrite each other's manifest; the last apply wins.
--
-- One text[] column per kind rather than one jsonb document: each is a flat list of ids of a
-- single kind, which PostgreSQL can test (`agent_id = ANY(agents)`) and compare whole (a repeat
-- of the same declaration writes nothing) with no shape of its own to check. The API stores each
-- list sorted and without duplicates, so that the order a project lists things in does not count.
CREATE TABLE apply_manifests (
  org_id             bigint PRIMARY KEY REFERENCES orgs (id) ON DELETE CASCADE,
  -- The project's name or folder name, for display; NULL when the client sent none.
  project            text,
  -- agentIds, stable platform IDs, entity type, relationship type and watcher slugs.
  agents             text[] NOT NULL DEFAULT '{}',
  platforms          text[] NOT NULL DEFAULT '{}',
  entity_types       text[] NOT NULL DEFAULT '{}',
  relationship_types text[] NOT NULL DEFAULT '{}',
  watchers           text[] NOT NULL DEFAULT '{}',
  -- When the apply that declared exactly this was made: a later apply declaring the same again
  -- answers `unchanged` and writes nothing, as every mutation of the API does.
  applied_at         timestamptz NOT NULL DEFAULT now()
);
