-- Files sent with a message (multipart): kept in PostgreSQL, so that every replica serves them
-- and every worker gives them to the model.
CREATE TABLE message_files (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  message_id   uuid NOT NULL REFERENCES messages ON DELETE CASCADE,
  position     int NOT NULL,
  name         text NOT NULL,
  content_type text NOT NULL,
  size         int NOT NULL,
  data         bytea NOT NULL,
  UNIQUE (message_id, position)
);
