-- On platform `api`, a message without `channel` goes to a conversation of its caller alone
-- (DESIGN.md section 9), so that two clients of one org never share a history by accident.
-- `owner` names that caller ('token:<token id>', or 'admin_password'); '' is a conversation shared
-- on purpose: a `channel`, a chat platform's chat. A private conversation's `channel` is ''.
--
-- Rows from before were shared by every token of their org, and nothing recorded which token sent
-- what: they stay shared ('' owner), reachable as before by their id and as `channel` "default".
ALTER TABLE conversations ADD COLUMN owner text NOT NULL DEFAULT '';
ALTER TABLE conversations DROP CONSTRAINT conversations_org_id_agent_id_platform_channel_thread_key;
ALTER TABLE conversations
  ADD CONSTRAINT conversations_key UNIQUE (org_id, agent_id, platform, channel, thread, owner);
