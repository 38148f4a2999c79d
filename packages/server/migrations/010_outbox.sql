-- Chat platforms: a message that came through a platform's webhook is answered back there. The
-- reply is written to the outbox in the transaction that stores it; workers deliver each row.

ALTER TABLE messages
  -- The platform whose webhook took the message in, and where on it the reply goes
  -- ({channel, thread_ts} on team_chat, {chat_id} on messenger, {to} on WhatsApp).
  ADD COLUMN platform_stable_id text,
  ADD COLUMN reply_to jsonb,
  -- Of the reply to a platform: pending until every part is delivered, failed after the last attempt.
  ADD COLUMN delivery text CHECK (delivery IN ('pending', 'delivered', 'failed')),
  ADD COLUMN delivery_error jsonb;

CREATE TABLE outbox (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Insert order: replies of a conversation, and parts of a reply, are delivered in it.
  seq             bigserial NOT NULL,
  message_id      uuid NOT NULL REFERENCES messages ON DELETE CASCADE,
  conversation_id uuid NOT NULL,
  -- A reply longer than the platform takes is sent in parts (Telegram: 4,096 characters).
  part            int NOT NULL,
  -- No foreign key: a platform deleted meanwhile fails its deliveries, visibly.
  stable_id       text NOT NULL,
  text            text NOT NULL,
  reply_to        jsonb NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
  -- Counted when claimed, so that a delivery that kills its worker still uses up an attempt.
  attempts        int NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Raised by every claim; a write that carries an older token is refused (fencing).
  lease_token     bigint NOT NULL DEFAULT 0,
  lease_expires_at timestamptz,
  last_error      jsonb,
  -- The platform's id of what it posted (Slack ts, Telegram message_id, WhatsApp wamid).
  platform_message_id text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  delivered_at    timestamptz,
  UNIQUE (message_id, part)
);
CREATE INDEX outbox_due ON outbox (next_attempt_at, seq) WHERE status = 'pending';
CREATE INDEX outbox_open ON outbox (conversation_id, seq) WHERE status IN ('pending', 'sending');
CREATE INDEX outbox_leases ON outbox (lease_expires_at) WHERE status = 'sending';

-- The ids of the messages each platform sent us (Slack: channel and ts; Telegram: update_id;
-- WhatsApp: the message id): a platform's retry of one is dropped. Kept a week (the workers'
-- reaper deletes older ones); platforms retry for minutes to hours.
CREATE TABLE webhook_receipts (
  stable_id   text NOT NULL,
  dedup_key   text NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (stable_id, dedup_key)
);
CREATE INDEX webhook_receipts_age ON webhook_receipts (received_at);
