import type { AgentConfig } from '@svc/core';
import type { ModelMessage } from 'ai';
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
