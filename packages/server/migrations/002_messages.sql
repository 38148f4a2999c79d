-- Messages sent to agents, grouped into conversations by (agent, platform, channel, thread).
CREATE TABLE conversations (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id     bigint NOT NULL,
  agent_id   text NOT NULL,
  platform   text NOT NULL,
  channel    text NOT NULL,
  -- '' rather than NULL so that the unique key treats "no thread" as one value.
  thread     text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, agent_id, platform, channel, thread),
  FOREIGN KEY (org_id, agent_id) REFERENCES agents ON DELETE CASCADE
);

-- `status` moves queued -> running -> completed | failed; the agent-turn worker claims queued rows.
CREATE TABLE messages (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  conversation_id uuid NOT NULL REFERENCES conversations ON DELETE CASCADE,
  org_id          bigint NOT NULL,
  agent_id        text NOT NULL,
  content         text NOT NULL,
  status          text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  reply           text,
  error           text,
  -- Idempotency-Key of the request (scoped to the caller's org) and a hash of what it sent.
  idempotency_key text,
  request_hash    text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX messages_idempotency ON messages (org_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX messages_queue ON messages (conversation_id, created_at) WHERE status IN ('queued', 'running');
