-- What syncs collect. Each event envelope a connector emits is one row of `events`, unique on
-- (connection, feed, origin_id): a re-sync of the same item updates its row, a retried batch never
-- adds a second. Columns carry the envelope's own field names.
CREATE TABLE events (
  id               bigserial PRIMARY KEY,
  org_id           bigint NOT NULL,
  connection_id    bigint NOT NULL REFERENCES connections ON DELETE CASCADE,
  feed_id          bigint NOT NULL REFERENCES feeds ON DELETE CASCADE,
  -- The run that last wrote the row.
  run_id           bigint,
  origin_id        text NOT NULL,
  origin_type      text,
  semantic_type    text,
  payload_type     text,
  payload_text     text NOT NULL,
  payload_data     jsonb,
  payload_template jsonb,
  attachments      jsonb,
  title            text,
  author_name      text,
  source_url       text,
  occurred_at      timestamptz NOT NULL,
  score            double precision,
  origin_parent_id text,
  metadata         jsonb,
  embedding        double precision[],
  -- Entity links that could not be made as the rules say (an identity of two entities): kept here,
  -- never dropped silently.
  link_issues      jsonb,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (connection_id, feed_id, origin_id)
);
CREATE INDEX events_org_time ON events (org_id, occurred_at DESC, id DESC);
CREATE INDEX events_feed_time ON events (feed_id, occurred_at DESC, id DESC);

-- Entities that events link to (people, repositories, ...), by type; identities are what finds
-- them, one entity per (org, type, namespace, value): the unique index is what makes two runs
-- creating the same person at once end with one.
CREATE TABLE entities (
  id          bigserial PRIMARY KEY,
  org_id      bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  entity_type text NOT NULL,
  title       text,
  traits      jsonb NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX entities_org_type ON entities (org_id, entity_type, id);

CREATE TABLE entity_identities (
  org_id      bigint NOT NULL,
  entity_type text NOT NULL,
  namespace   text NOT NULL,
  -- Normalised with the SDK's normaliser of the namespace.
  value       text NOT NULL,
  entity_id   bigint NOT NULL REFERENCES entities ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, entity_type, namespace, value)
);
CREATE INDEX entity_identities_entity ON entity_identities (entity_id);

CREATE TABLE event_entities (
  event_id  bigint NOT NULL REFERENCES events ON DELETE CASCADE,
  entity_id bigint NOT NULL REFERENCES entities ON DELETE CASCADE,
  PRIMARY KEY (event_id, entity_id)
);
CREATE INDEX event_entities_entity ON event_entities (entity_id, event_id);

-- A run's log lines (the SDK's `log`), the latest ones kept: a chatty connector cannot fill the
-- database. `seq` orders them and lets a reader follow from where it stopped.
CREATE TABLE run_logs (
  run_id bigint NOT NULL REFERENCES runs ON DELETE CASCADE,
  seq    int NOT NULL,
  level  text NOT NULL,
  time   timestamptz NOT NULL,
  msg    text NOT NULL,
  fields jsonb,
  PRIMARY KEY (run_id, seq)
);
ALTER TABLE runs ADD COLUMN log_lines int NOT NULL DEFAULT 0;
-- Set when the run was stopped through the API (status `cancelled`), for its worker to see.
ALTER TABLE runs ADD COLUMN cancelled_by text;
