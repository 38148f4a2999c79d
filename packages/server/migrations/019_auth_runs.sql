-- Interactive auth (DESIGN.md section 10, "Auth flows"): an `auth` run executes the connector's
-- `authenticate(ctx)`; what it shows the user (artifacts) and how the run's status moves are one
-- numbered stream per run, read by GET /auth-runs/:id and its SSE stream from any replica.

-- What the run has said, numbered from 1 per run: `artifact` (data = the checked AuthArtifact) and
-- `status` (data = {status, errorMessage}). Every row is written by a transaction that holds the
-- run's row (the worker's fenced writes, a cancel, a claim, the reaper), so max(seq) + 1 is free.
CREATE TABLE auth_run_events (
  run_id     bigint NOT NULL REFERENCES runs ON DELETE CASCADE,
  seq        int NOT NULL,
  type       text NOT NULL CHECK (type IN ('artifact', 'status')),
  data       jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, seq)
);

-- Signals the UI posted and the connector has not taken yet (`awaitSignal`): sealed (AES-256-GCM,
-- bound to the run and the name), deleted as they are delivered. A second post of one name
-- replaces the first.
CREATE TABLE auth_run_signals (
  run_id     bigint NOT NULL REFERENCES runs ON DELETE CASCADE,
  name       text NOT NULL,
  value      bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, name)
);

-- The method's timeoutSec as the run was asked for: the server ends the run `timeout` then.
ALTER TABLE runs ADD COLUMN auth_timeout_sec int;

-- One open auth run per connection, whoever starts it.
CREATE UNIQUE INDEX runs_one_open_auth ON runs (connection_id)
  WHERE run_type = 'auth' AND status IN ('pending', 'running');

-- Every status an auth run takes is an event of its stream, whatever wrote it (queue.ts, a cancel,
-- the reaper); readers are woken on `svc_auth_runs` (payload: the run's id). Its signals not taken
-- are deleted as it ends.
CREATE FUNCTION auth_run_status_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO auth_run_events (run_id, seq, type, data)
  SELECT NEW.id, coalesce(max(seq), 0) + 1, 'status',
         jsonb_build_object('status', NEW.status, 'errorMessage', NEW.error_message)
    FROM auth_run_events WHERE run_id = NEW.id;
  PERFORM pg_notify('svc_auth_runs', NEW.id::text);
  -- Ended (completed, failed, cancelled, timed out: by its worker, a cancel or the reaper), it
  -- takes no more signals (the route checks under the row's lock): those never taken go now.
  IF NEW.status IN ('completed', 'failed', 'cancelled', 'timeout') THEN
    DELETE FROM auth_run_signals WHERE run_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER auth_run_created AFTER INSERT ON runs
  FOR EACH ROW WHEN (NEW.run_type = 'auth') EXECUTE FUNCTION auth_run_status_event();
CREATE TRIGGER auth_run_status AFTER UPDATE OF status ON runs
  FOR EACH ROW WHEN (NEW.run_type = 'auth' AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION auth_run_status_event();
