-- Org secrets: values that references resolve to, before the server's environment. Encrypted with
-- AES-256-GCM under SVC_ENCRYPTION_KEY (src/secrets/cipher.ts); never returned by any route.
CREATE TABLE org_secrets (
  org_id     bigint NOT NULL REFERENCES orgs ON DELETE CASCADE,
  name       text NOT NULL,
  value      bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, name)
);

-- `set_vars` is now the names the answering org may reference that resolve (its secrets, and the
-- environment's names it may use): the message says how to set one, and never whether the server's
-- environment holds a name the org may not use.
CREATE OR REPLACE FUNCTION svc_secret_missing_message(variable text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT 'secret ' || variable || ' is not set for this org: store it with "svc secrets set '
               || variable || '" (or, where SVC_SECRETS_FROM_ENV allows it, in the server''s environment)' $$;

CREATE OR REPLACE FUNCTION svc_platform_json(p platforms, webhook_base text, set_vars text[]) RETURNS json
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$
    WITH missing AS (
      SELECT r->>'variable' AS variable, r->>'path' AS path, ord
        FROM jsonb_array_elements(p.secret_refs) WITH ORDINALITY AS e(r, ord)
       WHERE NOT (r->>'variable' = ANY (set_vars))
    )
    SELECT json_build_object(
      'stableId', p.stable_id,
      'agentId', p.agent_id,
      'type', p.type,
      'name', p.name,
      'config', p.config,
      'webhookUrl', webhook_base || p.stable_id,
      'status', CASE WHEN EXISTS (SELECT 1 FROM missing) THEN 'error' ELSE 'ok' END,
      'problems', COALESCE(
        (SELECT json_agg(json_build_object(
                  'code', 'secret_missing', 'variable', variable, 'path', path,
                  'message', svc_secret_missing_message(variable))
                ORDER BY ord)
           FROM missing),
        '[]'),
      'createdAt', svc_iso(p.created_at),
      'updatedAt', svc_iso(p.updated_at))
  $$;

CREATE OR REPLACE FUNCTION svc_providers_json(providers jsonb, set_vars text[]) RETURNS json
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$
    SELECT COALESCE(json_agg(json_build_object(
             'key', p->>'key',
             'secret_ref', p->>'secret_ref',
             'status', CASE WHEN v.variable = ANY (set_vars) THEN 'ok' ELSE 'error' END,
             'problems', CASE WHEN v.variable = ANY (set_vars) THEN '[]'::json ELSE json_build_array(json_build_object(
               'code', 'secret_missing', 'variable', v.variable, 'path', '/secret_ref',
               'message', svc_secret_missing_message(v.variable))) END)
           ORDER BY ord), '[]')
      FROM jsonb_array_elements(providers) WITH ORDINALITY AS e(p, ord),
           LATERAL (SELECT substring(p->>'secret_ref' FROM '^\$\{?([A-Z_][A-Z0-9_]*)\}?$') AS variable) v
  $$;
