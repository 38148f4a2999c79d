import type { AssistantContent, ModelMessage, ToolContent } from 'ai';

/**
 * The history of a conversation as stored items, one row each: `user` and `assistant` hold text,
 * `tool_call` and `tool_result` what the model asked a tool and what it answered. A turn's items
 * are written when it completes, in the order the model saw them.
 */
export type Item =
  | { kind: 'user'; content: { text: string } }
  | { kind: 'assistant'; content: { text: string } }
  | { kind: 'tool_call'; content: { toolCallId: string; toolName: string; input: unknown } }
  | { kind: 'tool_result'; content: { toolCallId: string; toolName: string; output: unknown } };

type ToolCallPart = Extract<Exclude<AssistantContent, string>[number], { type: 'tool-call' }>;
type ToolResultPart = Extract<ToolContent[number], { type: 'tool-result' }>;

/**
 * The tool calls of the turn whose messages are `messages` (history, the user's message, then what
 * the model and its tools said, pauses included), each with its result. A call without a result
 * (the turn stopped at the bound on calls) is left out: providers refuse a call left unanswered.
 */
export function toolItemsOfTurn(messages: ModelMessage[]): Item[] {
  const start = messages.findLastIndex((m) => m.role === 'user') + 1;
  const calls: ToolCallPart[] = [];
  const results = new Map<string, ToolResultPart>();
  for (const message of messages.slice(start)) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (part.type === 'tool-call' && message.role === 'assistant') calls.push(part);
      if (part.type === 'tool-result' && message.role === 'tool') results.set(part.toolCallId, part);
    }
  }
  const answered = calls.filter((call) => results.has(call.toolCallId));
  return [
    ...answered.map((call) => ({
      kind: 'tool_call' as const,
      content: { toolCallId: call.toolCallId, toolName: call.toolName, input: call.input },
    })),
    ...answered.map((call) => {
      const result = results.get(call.toolCallId) as ToolResultPart;
      return {
        kind: 'tool_result' as const,
        content: { toolCallId: call.toolCallId, toolName: call.toolName, output: result.output },
      };
    }),
  ];
}

/** A rough token count (4 characters a token): enough to keep a prompt inside a context window. */
export const estimateTokens = (text: string) => Math.ceil(text.length / 4) + 4;

/** What an item costs in the prompt. */
export const itemTokens = (item: Item) =>
  estimateTokens('text' in item.content ? item.content.text : JSON.stringify(item.content));

/** A tool result's output as text, for a call whose tool the turn no longer has. */
function outputText(output: unknown): string {
  const o = output as { type?: string; value?: unknown; reason?: string };
  if (o?.type === 'text' || o?.type === 'error-text') return String(o.value);
  if (o?.type === 'execution-denied') return `not run: ${o.reason ?? 'the call was rejected'}`;
  return JSON.stringify(o?.value ?? output);
}

/**
 * Items as the model's messages. Calls to tools the turn has (`toolNames`) stay calls; a call to a
 * tool that is gone (its MCP server was removed) is told as text, since providers refuse a call to
 * a tool they were not given.
 */
export function messagesOfItems(items: Item[], toolNames: ReadonlySet<string>): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const last = () => messages.at(-1);
  for (const item of items) {
    if (item.kind === 'user' || item.kind === 'assistant') {
      messages.push({ role: item.kind, content: item.content.text });
      continue;
    }
    const { toolCallId, toolName } = item.content;
    if (!toolNames.has(toolName)) {
      if (item.kind === 'tool_result') {
        const note = `[tool ${toolName} was called earlier and answered: ${outputText(item.content.output)}]`;
        messages.push({ role: 'assistant', content: note });
      }
      continue;
    }
    if (item.kind === 'tool_call') {
      const part = { type: 'tool-call' as const, toolCallId, toolName, input: item.content.input };
      const previous = last();
      if (previous?.role === 'assistant' && Array.isArray(previous.content)) previous.content.push(part);
      else messages.push({ role: 'assistant', content: [part] });
    } else {
      const part = {
        type: 'tool-result' as const,
        toolCallId,
        toolName,
        output: item.content.output as ToolResultPart['output'],
      };
      const previous = last();
      if (previous?.role === 'tool') previous.content.push(part);
      else messages.push({ role: 'tool', content: [part] });
    }
  }
  return messages;
}
