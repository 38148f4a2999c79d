import type { AgentConfig } from '@svc/core';
import type { ModelMessage, UserContent } from 'ai';
import type { Pool } from 'pg';
import { type Item, itemTokens, messagesOfItems } from './items.js';

export { estimateTokens } from './items.js';

const HISTORY_ROWS = 4000;

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
 * The conversation so far, as the model's messages: whole turns (a message's user text, its tool
 * calls and results, and the reply), newest first until `budgetTokens` is spent, then put back in
 * order. A turn that does not fit is left out whole, with every turn before it, so that a call is
 * never separated from its result; the current message is not part of it and always goes in.
 */
export async function history(
  pool: Pool,
  conversationId: string,
  budgetTokens: number,
  toolNames: ReadonlySet<string>,
): Promise<ModelMessage[]> {
  const { rows } = await pool.query<Item & { message_id: string }>(
    `SELECT message_id, kind, content FROM conversation_items
      WHERE conversation_id = $1 ORDER BY position DESC LIMIT $2`,
    [conversationId, HISTORY_ROWS],
  );
  const kept: Item[] = [];
  let spent = 0;
  let turn: Item[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as Item & { message_id: string };
    turn.push({ kind: row.kind, content: row.content } as Item);
    spent += itemTokens(row);
    if (rows[i + 1]?.message_id === row.message_id) continue;
    // The oldest turn read may have been cut by the limit: only whole turns go in.
    if (i === HISTORY_ROWS - 1) break;
    if (spent > budgetTokens) break;
    kept.push(...turn);
    turn = [];
  }
  return messagesOfItems(kept.reverse(), toolNames);
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|yaml|x-yaml|csv|javascript|x-ndjson))/;

/**
 * The message as the model gets it: its text, then each of its files, images as image parts,
 * text files as text, anything else by name and type (the model could not read its bytes).
 * Images travel as base64, so that a paused turn's state stays plain JSON.
 */
export async function userContent(
  pool: Pool,
  turn: { id: string; content: string; hasFiles: boolean },
): Promise<UserContent> {
  if (!turn.hasFiles) return turn.content;
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
