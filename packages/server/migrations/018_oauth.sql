-- Connector auth that a person completes (DESIGN.md section 10, "Auth flows").

-- An OAuth authorization in progress. `state` is a random single-use nonce: only its SHA-256 is
-- kept, so a database read does not hand out a live one. It is bound to the org, the connection and
-- the PKCE verifier (sealed), expires after 10 minutes, and is used once: the callback marks it used
-- in the statement that reads it. The row stays as the attempt's outcome, which the CLI waits on.
CREATE TABLE oauth_attempts (
  id              bigserial PRIMARY KEY,
  state_hash      bytea NOT NULL UNIQUE,
  org_id          bigint NOT NULL,
  connection_id   bigint NOT NULL REFERENCES connections ON DELETE CASCADE,
  code_verifier   bytea,
  redirect_uri    text NOT NULL,
  scopes          text[] NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz,
  -- pending until the callback: connected, denied or failed.
  outcome         text NOT NULL DEFAULT 'pending' CHECK (outcome IN ('pending', 'connected', 'denied', 'failed')),
  outcome_message text,
  created_by      text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_attempts_connection ON oauth_attempts (connection_id, id DESC);

-- Credentials of an auth method whose `scope` is `organization`: one grant that every connection of
-- that connector in the org uses (sealed like a connection's, bound to the org and connector).
CREATE TABLE org_credentials (
  org_id          bigint NOT NULL,
  connector_key   text NOT NULL,
  credentials     bytea NOT NULL,
  credential_keys text[] NOT NULL DEFAULT '{}',
  granted_scopes  text[],
  account_id      text,
  -- When its OAuth token is due for renewal (from the sealed expiresAt), for the renewal chore.
  token_renew_at timestamptz,
  -- The hosts the grant was given for when a person connected it (grants.ts): every connection of
  -- the grant gets these, not whatever its own config names.
  granted_hosts   text[],
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, connector_key),
  FOREIGN KEY (org_id, connector_key) REFERENCES connector_definitions ON DELETE CASCADE
);

-- The OAuth scopes the provider granted (NULL: not an OAuth grant). A feed whose `requiredScopes`
-- are not all granted is paused, saying which are missing.
ALTER TABLE connections ADD COLUMN granted_scopes text[];

-- When the connection's own OAuth token is due for renewal (from the sealed expiresAt): workers
-- renew tokens then whether or not a sync is due, so that a grant the provider withdrew shows on
-- the connection at once, not when a sync next breaks.
ALTER TABLE connections ADD COLUMN token_renew_at timestamptz;
CREATE INDEX connections_token_renewal ON connections (token_renew_at) WHERE token_renew_at IS NOT NULL;

-- A run whose token the service refused (401) is run once more after a refresh: this marks it.
ALTER TABLE runs ADD COLUMN auth_retried boolean NOT NULL DEFAULT false;
