-- A `browser` connection's captured session (DESIGN.md section 10, "Auth flows"): the cookies of
-- the connector's requiredDomains, as one JSON object sealed with AES-256-GCM under
-- SVC_ENCRYPTION_KEY and bound to this row (org and connection); never returned, never logged.
-- When it was captured and how many cookies of each domain it holds are not secret: answers say
-- them instead of the cookies.
ALTER TABLE connections
  ADD COLUMN session_state bytea,
  ADD COLUMN session_captured_at timestamptz,
  ADD COLUMN session_cookie_counts jsonb;
