-- A tool call is recorded, under the turn's lease, before it runs: a turn taken up again after a
-- crash or a handback never runs the same call twice (an approved destructive call above all).
CREATE TABLE tool_executions (
  message_id   uuid NOT NULL REFERENCES messages ON DELETE CASCADE,
  tool_call_id text NOT NULL,
  tool         text NOT NULL,
  started_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (message_id, tool_call_id)
);
