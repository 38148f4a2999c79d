-- Connectors installed per org: the definition read from the code (in a sandbox) and checked with
-- the SDK's validateDefinition, the version, where the code comes from, and the org's overrides of
-- its entity links. A reinstall updates the row in place: what refers to (org, key) stays.
CREATE TABLE connector_definitions (
  org_id                bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  connector_key         text NOT NULL,
  version               text NOT NULL,
  definition            jsonb NOT NULL,
  -- A bundled connector's name (`rss`), or the ES module source an admin posted.
  package               text,
  source                text,
  entity_link_overrides jsonb NOT NULL DEFAULT '{}',
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, connector_key),
  CHECK ((package IS NULL) <> (source IS NULL))
);
