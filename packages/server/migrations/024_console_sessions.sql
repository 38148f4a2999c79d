-- Console sessions (issue 20, DESIGN.md section 12): the admin password or an API token exchanged
-- for a cookie. Only the SHA-256 of the cookie's value is kept, as for tokens. A token's session
-- lives and dies with its token (ON DELETE CASCADE, and the lookup checks revocation and expiry);
-- an admin session keeps a digest of the password it was opened with, so that a changed password
-- ends every session opened with the old one.
CREATE TABLE console_sessions (
  id             text PRIMARY KEY,
  secret_hash    bytea NOT NULL UNIQUE,
  -- Sent back in X-CSRF-Token by the console's own script on every state-changing request.
  csrf_token     text NOT NULL,
  kind           text NOT NULL CHECK (kind IN ('token', 'admin_password')),
  api_token_id   text REFERENCES api_tokens ON DELETE CASCADE,
  password_check bytea,
  -- The org the org-less routes (/api/v1/agents/...) act in: the token's, or the one an admin picked.
  org_id         bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL,
  revoked_at     timestamptz,
  CHECK ((kind = 'token') = (api_token_id IS NOT NULL)),
  CHECK ((kind = 'admin_password') = (password_check IS NOT NULL))
);

-- Ended sessions are removed by the sign-in that finds them (bounded work per sign-in).
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
