-- Tool calls that wait for a person's decision. A paused turn keeps what the model said so far on
-- its message (`turn_state`), so that any worker resumes it once every call of the pause is decided.
ALTER TABLE messages ADD COLUMN turn_state jsonb;

CREATE TABLE approvals (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  message_id      uuid NOT NULL REFERENCES messages ON DELETE CASCADE,
  conversation_id uuid NOT NULL,
  org_id          bigint NOT NULL,
  agent_id        text NOT NULL,
  -- The AI SDK's id of the request, which the resumed turn answers.
  sdk_approval_id text NOT NULL,
  tool_call_id    text NOT NULL,
  tool            text NOT NULL,
  input           jsonb NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'expired')),
  reason          text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  decided_at      timestamptz,
  UNIQUE (message_id, tool_call_id)
);
CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending';
CREATE INDEX approvals_message ON approvals (message_id);
