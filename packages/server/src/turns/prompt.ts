import type { AgentConfig } from '@svc/core';
import type { ModelMessage, UserContent } from 'ai';
import type { Pool } from 'pg';

/** A rough token count (4 characters a token): enough to keep a prompt inside a context window. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4) + 4;

/** The system prompt: who the agent is, then its three files, each under its own heading. */
export function systemPrompt(agent: {
  name: string;
  description: string;
  config: Partial<Pick<AgentConfig, 'IDENTITY.md' | 'SOUL.md' | 'USER.md'>>;
}): string {
  const parts = [`You are ${agent.name}.${agent.description ? ` ${agent.description}` : ''}`];
  for (const file of ['IDENTITY.md', 'SOUL.md', 'USER.md'] as const) {
    const text = agent.config[file]?.trim();
    if (text) parts.push(`# ${file}\n\n${text}`);
  }
  return parts.join('\n\n');
}

/**
 * The conversation so far, newest items first until `budgetTokens` is spent, then put back in
 * order. What does not fit is left out whole, oldest first; the current message always goes in.
 */
export async function history(
  pool: Pool,
  conversationId: string,
  budgetTokens: number,
): Promise<ModelMessage[]> {
  const { rows } = await pool.query<{ kind: 'user' | 'assistant'; content: { text: string } }>(
    `SELECT kind, content FROM conversation_items
      WHERE conversation_id = $1 AND kind IN ('user', 'assistant')
      ORDER BY position DESC LIMIT 2000`,
    [conversationId],
  );
  const kept: ModelMessage[] = [];
  let spent = 0;
  for (const row of rows) {
    spent += estimateTokens(row.content.text);
    if (spent > budgetTokens) break;
    kept.push({ role: row.kind, content: row.content.text });
  }
  return kept.reverse();
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|yaml|x-yaml|csv|javascript|x-ndjson))/;

/**
 * The message as the model gets it: its text, then each of its files, images as image parts,
 * text files as text, anything else by name and type (the model could not read its bytes).
 * Images travel as base64, so that a paused turn's state stays plain JSON.
 */
export async function userContent(pool: Pool, turn: { id: string; content: string }): Promise<UserContent> {
  const { rows } = await pool.query<{ name: string; content_type: string; size: number; data: Buffer }>(
    'SELECT name, content_type, size, data FROM message_files WHERE message_id = $1 ORDER BY position',
    [turn.id],
  );
  if (rows.length === 0) return turn.content;
  return [
    { type: 'text', text: turn.content },
    ...rows.map((file) => {
      if (file.content_type.startsWith('image/')) {
        return { type: 'image' as const, image: file.data.toString('base64'), mediaType: file.content_type };
      }
      const text = TEXT_TYPES.test(file.content_type)
        ? `File ${file.name} (${file.content_type}):\n${file.data.toString('utf8')}`
        : `File ${file.name} (${file.content_type}, ${file.size} bytes) is attached; its content cannot be shown here.`;
      return { type: 'text' as const, text };
    }),
  ];
}
