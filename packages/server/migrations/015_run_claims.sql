-- What a claim reads of a connector, kept beside its definition: whether it declares
-- `runtime.platforms` (it runs on a device, never on the cloud fleet). A claim would otherwise
-- read the whole definition, often TOASTed, for this one key.
ALTER TABLE connector_definitions
  ADD COLUMN runs_on_device boolean GENERATED ALWAYS AS (definition ? 'runtime') STORED;
