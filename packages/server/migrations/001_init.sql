-- Orgs, API tokens, agents with their settings, chat platforms, and the memory schema.
CREATE TABLE orgs (
  id         bigserial PRIMARY KEY,
  slug       text NOT NULL UNIQUE,
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Only the SHA-256 of a token is kept; the secret is shown once at creation.
CREATE TABLE api_tokens (
  id           text PRIMARY KEY,
  org_id       bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  name         text NOT NULL,
  token_hash   bytea NOT NULL UNIQUE,
  scopes       text[] NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  last_used_at timestamptz,
  revoked_at   timestamptz
);
CREATE UNIQUE INDEX api_tokens_active_name ON api_tokens (org_id, name) WHERE revoked_at IS NULL;

-- `config` holds the 13 settings by name; an absent key is an unset setting.
CREATE TABLE agents (
  org_id            bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  agent_id          text NOT NULL,
  name              text NOT NULL,
  description       text NOT NULL DEFAULT '',
  -- [{key, secret_ref}]: LLM providers; the secret stays a reference, resolved where it is used.
  providers         jsonb NOT NULL DEFAULT '[]',
  config            jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now(),
  config_updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, agent_id)
);

-- Stable IDs are unique on the deployment: the webhook path carries no org.
CREATE TABLE platforms (
  stable_id  text PRIMARY KEY,
  org_id     bigint NOT NULL,
  agent_id   text NOT NULL,
  type       text NOT NULL,
  name       text,
  config     jsonb NOT NULL DEFAULT '{}',
  -- [{variable, path}] of every $REFERENCE in config, found when it is written, not on every read.
  secret_refs jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (org_id, agent_id) REFERENCES agents ON DELETE CASCADE
);
CREATE INDEX platforms_agent ON platforms (org_id, agent_id);

CREATE TABLE entity_types (
  org_id      bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  slug        text NOT NULL,
  name        text NOT NULL,
  description text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, slug)
);

CREATE TABLE relationship_types (
  org_id      bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  slug        text NOT NULL,
  name        text NOT NULL,
  description text,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, slug)
);

-- A watcher keeps its agent alive: deleting an agent that a watcher names is refused.
CREATE TABLE watchers (
  org_id     bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  slug       text NOT NULL,
  name       text NOT NULL,
  schedule   text NOT NULL,
  prompt     text NOT NULL,
  agent_id   text NOT NULL,
  timezone   text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, slug),
  FOREIGN KEY (org_id, agent_id) REFERENCES agents ON DELETE RESTRICT
);

-- Facts about this deployment, such as the fingerprint of the encryption key it was set up with.
CREATE TABLE deployment (
  key   text PRIMARY KEY,
  value text NOT NULL
);
