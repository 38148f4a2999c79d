-- Agent turns: messages are claimed by workers under a lease with a fencing token, and every
-- event of a conversation is stored with a per-conversation sequence number (SSE ids).

ALTER TABLE messages DROP CONSTRAINT messages_status_check;
ALTER TABLE messages ADD CONSTRAINT messages_status_check
  CHECK (status IN ('queued', 'running', 'awaiting_approval', 'completed', 'failed'));
-- `error` becomes a problem object ({code, detail, ...}); no message has failed before this.
ALTER TABLE messages ALTER COLUMN error TYPE jsonb
  USING CASE WHEN error IS NULL THEN NULL ELSE jsonb_build_object('code', 'internal_error', 'detail', error) END;
ALTER TABLE messages
  -- Raised by every claim; a write that carries an older token is refused (fencing).
  ADD COLUMN lease_token bigint NOT NULL DEFAULT 0,
  ADD COLUMN lease_expires_at timestamptz,
  ADD COLUMN claimed_by text,
  -- Counted when claimed, so that a turn that kills its worker still uses up an attempt.
  ADD COLUMN attempts int NOT NULL DEFAULT 0,
  ADD COLUMN started_at timestamptz,
  ADD COLUMN first_token_at timestamptz,
  ADD COLUMN completed_at timestamptz,
  -- "provider/model" that answered, and {inputTokens, outputTokens, totalTokens}.
  ADD COLUMN model text,
  ADD COLUMN usage jsonb;

DROP INDEX messages_queue;
CREATE INDEX messages_queue ON messages (conversation_id, created_at, id)
  WHERE status IN ('queued', 'running', 'awaiting_approval');
CREATE INDEX messages_claimable ON messages (created_at, id) WHERE status = 'queued';
CREATE INDEX messages_leases ON messages (lease_expires_at) WHERE status = 'running';
-- One turn at a time per conversation, whatever a claim's SQL gets wrong.
CREATE UNIQUE INDEX messages_one_active ON messages (conversation_id)
  WHERE status IN ('running', 'awaiting_approval');

-- Sequence numbers are taken from the conversation row, under its lock, in the transaction that
-- inserts the event: so they become visible in order, and a reader after `seq > n` misses none.
ALTER TABLE conversations ADD COLUMN last_seq bigint NOT NULL DEFAULT 0;

CREATE TABLE conversation_events (
  conversation_id uuid NOT NULL REFERENCES conversations ON DELETE CASCADE,
  seq             bigint NOT NULL,
  message_id      uuid,
  type            text NOT NULL,
  data            jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, seq)
);

-- The history the model sees: one row per item (user, assistant, tool call, tool result),
-- written when its turn completes.
CREATE TABLE conversation_items (
  conversation_id uuid NOT NULL REFERENCES conversations ON DELETE CASCADE,
  position        bigserial,
  message_id      uuid NOT NULL,
  kind            text NOT NULL CHECK (kind IN ('user', 'assistant', 'tool_call', 'tool_result')),
  content         jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, position)
);
