/**
 * `svc conversations list|show`: an agent's conversations and their messages with replies. These
 * routes (`/api/v1/agents/...`) name no org: the token's org is the one.
 */

import { openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { cell, table, when } from './table.js';

interface ConversationRecord {
  id: string;
  agentId: string;
  platform: string;
  channel: string | null;
  private: boolean;
  thread: string | null;
  createdAt: string;
  lastMessageAt: string | null;
}

export interface MessageRecord {
  id: string;
  status: string;
  content: string;
  reply: string | null;
  error: { code: string; detail: string } | null;
  model: string | null;
  createdAt: string;
}

export interface ListFlags extends SessionFlags {
  search?: string;
  limit?: number;
  cursor?: string;
  json?: boolean;
}

const agentPath = (agentId: string) => `/api/v1/agents/${encodeURIComponent(agentId)}`;

export async function conversationsList(agentId: string, flags: ListFlags, io: RuntimeIo): Promise<void> {
  const query = new URLSearchParams({ limit: String(flags.limit ?? 20) });
  if (flags.search !== undefined) query.set('q', flags.search);
  if (flags.cursor !== undefined) query.set('cursor', flags.cursor);
  const api = await openApi(io, flags);
  const { conversations, nextCursor } = await api.callRoot<{
    conversations: ConversationRecord[];
    nextCursor: string | null;
  }>('GET', `${agentPath(agentId)}/conversations?${query}`, undefined, {
    validation_failed: 'a --cursor comes from the previous page; --search takes 1 to 200 characters',
  });
  if (flags.json) {
    io.out(JSON.stringify({ agentId, conversations, nextCursor }, null, 2));
    return;
  }
  if (conversations.length === 0) {
    io.out(
      flags.search
        ? `No conversation of agent "${agentId}" mentions "${flags.search}".`
        : `No conversations of agent "${agentId}" yet: "svc chat ${agentId}" starts one.`,
    );
    return;
  }
  const rows = conversations.map((c) => [
    c.id,
    c.platform,
    c.private ? 'private' : cell(c.channel),
    when(c.lastMessageAt),
    when(c.createdAt),
  ]);
  for (const line of table(['ID', 'PLATFORM', 'CHANNEL', 'LAST MESSAGE', 'CREATED'], rows)) io.out(line);
  if (nextCursor) io.err(`more: svc conversations list ${agentId} --cursor ${nextCursor}`);
}

export async function conversationsShow(
  agentId: string,
  conversationId: string,
  flags: SessionFlags & { json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  if (!/^[0-9a-f-]{36}$/i.test(conversationId)) {
    throw new Error(
      `"${conversationId}" is not a conversation id: ids are uuids ("svc conversations list ${agentId}" shows them)`,
    );
  }
  const api = await openApi(io, flags);
  const messages: MessageRecord[] = [];
  // Every page: a conversation is read whole, oldest first.
  let cursor: string | null = null;
  do {
    const query: string = new URLSearchParams({ limit: '200', ...(cursor ? { cursor } : {}) }).toString();
    const page: { messages: MessageRecord[]; nextCursor: string | null } = await api.callRoot(
      'GET',
      `${agentPath(agentId)}/conversations/${conversationId}/messages?${query}`,
      undefined,
      {
        not_found: `agent "${agentId}" has no conversation ${conversationId} that this token may read: "svc conversations list ${agentId}" shows them`,
      },
    );
    messages.push(...page.messages);
    cursor = page.nextCursor;
  } while (cursor);
  if (flags.json) {
    io.out(JSON.stringify({ agentId, conversationId, messages }, null, 2));
    return;
  }
  for (const m of messages) {
    io.out(`[${when(m.createdAt)}] you: ${m.content}`);
    if (m.reply !== null) io.out(`  ${agentId}${m.model ? ` (${m.model})` : ''}: ${m.reply}`);
    if (m.error) io.out(`  ${m.status}: ${m.error.detail} (${m.error.code})`);
    else if (m.reply === null) io.out(`  (${m.status})`);
  }
  if (messages.length === 0) io.out('No messages.');
}
