import { platformProtocol } from '@svc/core';
import { MAX_MESSAGE_CHARS, splitReply } from '../outbox/send.js';

type Kind = keyof typeof MAX_MESSAGE_CHARS;

/**
 * Where a watcher's `notification_channel` posts on its platform, as the outbox takes it: a Slack
 * channel (and thread), a Telegram chat, a WhatsApp number. Null for a platform of no protocol.
 */
export function notificationTarget(
  platform: { type: string; config: Record<string, unknown> },
  channel: { channel: string; thread?: string | undefined },
): { kind: Kind; to: Record<string, string> } | null {
  const protocol = platformProtocol(platform.type, platform.config);
  if (protocol === 'slack') {
    return {
      kind: 'team_chat',
      to: { channel: channel.channel, ...(channel.thread ? { thread_ts: channel.thread } : {}) },
    };
  }
  if (protocol === 'telegram') return { kind: 'messenger', to: { chat_id: channel.channel } };
  if (protocol === 'whatsapp') return { kind: 'whatsapp', to: { to: channel.channel } };
  return null;
}

/** The result as posted: its title, then the reply (a structured result as indented JSON). */
export function postedText(
  kind: Kind,
  title: string,
  reply: string,
  extractedData: Record<string, unknown> | null,
): string[] {
  const body = extractedData ? JSON.stringify(extractedData, null, 2) : reply.trim() || '(no reply)';
  return splitReply(`${title}\n\n${body}`, MAX_MESSAGE_CHARS[kind]);
}
