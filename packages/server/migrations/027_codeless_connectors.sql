-- Connectors without code (issue 22): a definition with `mcpConfig` or `openapiConfig` whose
-- actions svc reads from the upstream. `generated` keeps what it read ({kind, refreshedAt,
-- operations | tools, skipped, warning}); the generated actions are in `definition.actions`, so
-- that agents' tools, approvals and the API read them as any connector's. NULL for code.
--
-- `approval_overrides`: the org's word per action key on whether it needs approval, over what the
-- upstream's annotations or HTTP method say; kept across refreshes.
ALTER TABLE connector_definitions
  ADD COLUMN generated jsonb,
  ADD COLUMN approval_overrides jsonb NOT NULL DEFAULT '{}';

-- Code comes from a bundled package or posted source; a code-less connector has neither.
ALTER TABLE connector_definitions DROP CONSTRAINT connector_definitions_check;
ALTER TABLE connector_definitions
  ADD CONSTRAINT connector_definitions_origin CHECK (
    (package IS NOT NULL)::int + (source IS NOT NULL)::int + (generated IS NOT NULL)::int = 1
  );
