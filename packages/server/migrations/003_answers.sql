-- API answers built by PostgreSQL, so that listing a thousand agents is one statement whose result
-- is sent as it comes, rather than rows rebuilt into objects and serialized again in Node.
-- The zod schemas in packages/core remain the contract; the tests check these answers against them.

CREATE FUNCTION svc_iso(t timestamptz) RETURNS text
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$ SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- `set_vars`: the names of the environment variables the server has, to report the references
-- it cannot resolve. `webhook_base`: the URL prefix of webhooks (origin and mount prefix).
CREATE FUNCTION svc_platform_json(p platforms, webhook_base text, set_vars text[]) RETURNS json
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
                  'message', 'environment variable ' || variable || ' is not set on the server')
                ORDER BY ord)
           FROM missing),
        '[]'),
      'createdAt', svc_iso(p.created_at),
      'updatedAt', svc_iso(p.updated_at))
  $$;

-- An agent's providers, each with the variable of its secret reported when this server lacks it.
CREATE FUNCTION svc_providers_json(providers jsonb, set_vars text[]) RETURNS json
  LANGUAGE sql STABLE PARALLEL SAFE
  AS $$
    SELECT COALESCE(json_agg(json_build_object(
             'key', p->>'key',
             'secret_ref', p->>'secret_ref',
             'status', CASE WHEN v.variable = ANY (set_vars) THEN 'ok' ELSE 'error' END,
             'problems', CASE WHEN v.variable = ANY (set_vars) THEN '[]'::json ELSE json_build_array(json_build_object(
               'code', 'secret_missing', 'variable', v.variable, 'path', '/secret_ref',
               'message', 'environment variable ' || v.variable || ' is not set on the server')) END)
           ORDER BY ord), '[]')
      FROM jsonb_array_elements(providers) WITH ORDINALITY AS e(p, ord),
           LATERAL (SELECT substring(p->>'secret_ref' FROM '^\$\{?([A-Z_][A-Z0-9_]*)\}?$') AS variable) v
  $$;

-- The 13 settings, each null when unset.
CREATE FUNCTION svc_config_json(config jsonb) RETURNS json
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$
    SELECT json_build_object(
      'networkConfig', config->'networkConfig',
      'egressConfig', config->'egressConfig',
      'nixConfig', config->'nixConfig',
      'mcpServers', config->'mcpServers',
      'skillsConfig', config->'skillsConfig',
      'toolsConfig', config->'toolsConfig',
      'guardrails', config->'guardrails',
      'preApprovedTools', config->'preApprovedTools',
      'providerModelPreferences', config->'providerModelPreferences',
      'modelSelection', config->'modelSelection',
      'IDENTITY.md', config->'IDENTITY.md',
      'SOUL.md', config->'SOUL.md',
      'USER.md', config->'USER.md')
  $$;
