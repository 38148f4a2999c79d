-- The memory model as bundles write it (issue 19): what an entity type looks like and what its
-- entities' metadata must be, which entity types a relationship type joins, and the relationships.

ALTER TABLE entity_types
  ADD COLUMN icon            text,
  ADD COLUMN color           text,
  ADD COLUMN metadata_schema jsonb;

ALTER TABLE relationship_types
  ADD COLUMN metadata_schema jsonb,
  -- [{source, target}], each a slug or a list of slugs; NULL: any two entities.
  ADD COLUMN rules           jsonb;

-- One relationship per (type, source, target): posting it again is idempotent. A relationship goes
-- with either of its entities; its type cannot be deleted while relationships use it. NO ACTION
-- rather than RESTRICT: the same refusal for a delete of the type, but checked at the statement's
-- end, so that deleting the org (which cascades to both tables) is not refused.
CREATE TABLE relationships (
  id                bigserial PRIMARY KEY,
  org_id            bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  relationship_type text NOT NULL,
  source_entity_id  bigint NOT NULL REFERENCES entities ON DELETE CASCADE,
  target_entity_id  bigint NOT NULL REFERENCES entities ON DELETE CASCADE,
  metadata          jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, relationship_type, source_entity_id, target_entity_id),
  FOREIGN KEY (org_id, relationship_type) REFERENCES relationship_types (org_id, slug) ON DELETE NO ACTION
);
-- Lists are newest first by (created_at, id): the org's, and an entity's in either direction.
CREATE INDEX relationships_org ON relationships (org_id, created_at, id);
CREATE INDEX relationships_source ON relationships (source_entity_id, created_at, id);
CREATE INDEX relationships_target ON relationships (target_entity_id, created_at, id);
