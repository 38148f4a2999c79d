-- Watchers that run (issue 19): the bundle fields people write, each watcher's schedule state, and
-- one record per window. Events that no connector wrote (a watcher's summary, a fact an agent
-- saved) have no connection or feed.

ALTER TABLE watchers
  ADD COLUMN description          text,
  ADD COLUMN extraction_schema    jsonb,
  ADD COLUMN tags                 jsonb,
  ADD COLUMN sources              jsonb,
  ADD COLUMN notification_channel jsonb,
  ADD COLUMN min_cooldown_seconds int,
  -- `paused` by a person, or by the watcher itself after failures in a row (`last_error` says why).
  ADD COLUMN status               text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
  ADD COLUMN paused_reason        text,
  ADD COLUMN consecutive_failures int NOT NULL DEFAULT 0,
  ADD COLUMN last_error           text,
  -- The arrival mark: the next window starts here. Set when the first window is made, moved only
  -- when a window completes, so a failure never skips what arrived.
  ADD COLUMN next_window_start    timestamptz;

-- One row per window of a watcher: the unique key is what makes every replica's scheduler make
-- one window, and one run of it, however many race to.
CREATE TABLE watcher_windows (
  id              bigserial PRIMARY KEY,
  org_id          bigint NOT NULL,
  watcher_slug    text NOT NULL,
  -- Events that arrived (events.created_at) in [window_start, window_end).
  window_start    timestamptz NOT NULL,
  window_end      timestamptz NOT NULL,
  -- pending: waiting for its turn (or its retry); running: its turn is under way; completed; failed:
  -- its last attempt failed (it is retried at retry_at unless the watcher paused).
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
  attempts        int NOT NULL DEFAULT 0,
  retry_at        timestamptz,
  -- The current attempt: its run (runs.run_type = 'watcher') and the message its turn answers.
  run_id          bigint,
  message_id      uuid,
  event_count     int,
  -- Events given to the model (ids), and whether all of the window's fitted.
  event_ids       bigint[],
  truncated       boolean NOT NULL DEFAULT false,
  reply           text,
  extracted_data  jsonb,
  error           text,
  summary_event_id bigint,
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz,
  UNIQUE (org_id, watcher_slug, window_start),
  FOREIGN KEY (org_id, watcher_slug) REFERENCES watchers ON DELETE CASCADE
);
CREATE INDEX watcher_windows_open ON watcher_windows (retry_at) WHERE status IN ('pending', 'running', 'failed');
CREATE INDEX watcher_windows_message ON watcher_windows (message_id) WHERE message_id IS NOT NULL;

ALTER TABLE runs ADD COLUMN watcher_window_id bigint REFERENCES watcher_windows ON DELETE CASCADE;
ALTER TABLE runs ADD COLUMN watcher_slug text;

-- Events of no connector: connection and feed are absent, and (org, origin_type, origin_id) is
-- what makes writing one twice (a retried window, a retried tool call) keep one row.
ALTER TABLE events ALTER COLUMN connection_id DROP NOT NULL;
ALTER TABLE events ALTER COLUMN feed_id DROP NOT NULL;
CREATE UNIQUE INDEX events_own_origin ON events (org_id, origin_type, origin_id) WHERE connection_id IS NULL;
-- A window reads what arrived in it.
CREATE INDEX events_org_arrival ON events (org_id, created_at, id);
-- At most one open window per watcher: the next starts where this one ends, once it completed.
CREATE UNIQUE INDEX watcher_windows_one_open ON watcher_windows (org_id, watcher_slug)
  WHERE status IN ('pending', 'running', 'failed');
