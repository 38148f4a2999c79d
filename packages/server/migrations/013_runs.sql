-- The spec's Run record: a sync of a feed or an action of a connection, claimed by a worker under a
-- lease with a fencing token (as turns are), heartbeated, and timed out by a reaper when its
-- worker stops renewing it.
CREATE TABLE runs (
  id                bigserial PRIMARY KEY,
  org_id            bigint NOT NULL,
  run_type          text NOT NULL CHECK (run_type IN ('sync', 'action', 'code', 'watcher', 'auth')),
  feed_id           bigint REFERENCES feeds ON DELETE CASCADE,
  connection_id     bigint REFERENCES connections ON DELETE CASCADE,
  action_key        text,
  action_input      jsonb,
  action_output     jsonb,
  approval_status   text NOT NULL DEFAULT 'auto' CHECK (approval_status IN ('pending', 'approved', 'rejected', 'auto')),
  status            text NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'running', 'completed', 'failed', 'cancelled', 'timeout')),
  claimed_by        text,
  claimed_at        timestamptz,
  last_heartbeat_at timestamptz,
  -- Raised by every claim; a write that carries an older token is refused (fencing).
  lease_token       bigint NOT NULL DEFAULT 0,
  lease_expires_at  timestamptz,
  completed_at      timestamptz,
  connector_key     text,
  connector_version text,
  checkpoint        jsonb,
  items_collected   bigint NOT NULL DEFAULT 0,
  -- Envelopes refused (an unknown kind, metadata against its schema): counted, never collected.
  items_rejected    bigint NOT NULL DEFAULT 0,
  error_message     text,
  created_at        timestamptz NOT NULL DEFAULT now()
);
-- One open sync per feed, whoever schedules it.
CREATE UNIQUE INDEX runs_one_open_sync ON runs (feed_id) WHERE run_type = 'sync' AND status IN ('pending', 'running');
CREATE INDEX runs_claimable ON runs (created_at, id) WHERE status = 'pending';
CREATE INDEX runs_leases ON runs (lease_expires_at) WHERE status = 'running';
CREATE INDEX runs_org ON runs (org_id, created_at DESC);
