-- The spec's Connection and Feed records. A connection is an org's use of an installed connector
-- (its credentials and options); its feeds are what syncs, each with its own config, checkpoint
-- and schedule.
CREATE TABLE connections (
  id             bigserial PRIMARY KEY,
  org_id         bigint NOT NULL,
  connector_key  text NOT NULL,
  display_name   text,
  status         text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'error', 'revoked')),
  account_id     text,
  -- The env_keys values (and later tokens), as one JSON object sealed with AES-256-GCM under
  -- SVC_ENCRYPTION_KEY, bound to this row; never returned.
  credentials    bytea,
  entity_ids     bigint[],
  config         jsonb NOT NULL DEFAULT '{}',
  error_message  text,
  created_by     text,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  -- A reinstall updates the definition's row in place: connections stay.
  FOREIGN KEY (org_id, connector_key) REFERENCES connector_definitions ON DELETE CASCADE
);
CREATE INDEX connections_org ON connections (org_id, connector_key);

CREATE TABLE feeds (
  id                   bigserial PRIMARY KEY,
  org_id               bigint NOT NULL,
  connection_id        bigint NOT NULL REFERENCES connections ON DELETE CASCADE,
  feed_key             text NOT NULL,
  display_name         text,
  status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused', 'error')),
  entity_ids           bigint[],
  config               jsonb NOT NULL DEFAULT '{}',
  checkpoint           jsonb,
  sync_interval_ms     bigint NOT NULL DEFAULT 3600000 CHECK (sync_interval_ms >= 60000),
  next_sync_at         timestamptz,
  last_sync_at         timestamptz,
  last_sync_status     text,
  last_error           text,
  consecutive_failures int NOT NULL DEFAULT 0,
  items_collected      bigint NOT NULL DEFAULT 0,
  created_at           timestamptz NOT NULL DEFAULT now(),
  updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX feeds_connection ON feeds (connection_id);
-- What the scheduler asks: active feeds whose time has come.
CREATE INDEX feeds_due ON feeds (next_sync_at) WHERE status = 'active';

-- Which env_keys fields hold a value, so that an answer can say so without opening them.
ALTER TABLE connections ADD COLUMN credential_keys text[] NOT NULL DEFAULT '{}';
