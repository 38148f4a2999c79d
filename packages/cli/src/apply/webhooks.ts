/**
 * What `svc apply` prints after it creates or updates a platform: the webhook URL and the one step
 * that points the chat platform at it. Secrets appear as the variables svc.toml references, never
 * as values: the commands are meant for the shell that ran `svc apply`, where they are set.
 */
import { findSecretReferences, platformProtocol } from '@svc/core';

/** The part of the server's PUT answer these lines need. */
export interface PlatformAnswer {
  stableId: string;
  type: string;
  config: Record<string, unknown>;
  /** Absolute when the server has SVC_PUBLIC_URL; a path otherwise. */
  webhookUrl: string;
}

const PROTOCOL_NAMES = {
  slack: 'Slack Events API',
  telegram: 'Telegram Bot API',
  whatsapp: 'WhatsApp Cloud API',
};
const CALLERS = { slack: 'Slack', telegram: 'Telegram', whatsapp: 'Meta' };

/** `${NAME}` for the variable a config value references, or a placeholder when it holds none. */
function variable(config: Record<string, unknown>, key: string): string {
  const [reference] = findSecretReferences(config[key]);
  return reference ? `\${${reference.variable}}` : `<${key}>`;
}

export function webhookInstructions(platform: PlatformAnswer): string[] {
  const protocol = platformProtocol(platform.type, platform.config);
  const absolute = /^https?:\/\//.test(platform.webhookUrl);
  const url = platform.webhookUrl;
  const lines = [
    `Webhook of ${platform.stableId}${protocol ? ` (${PROTOCOL_NAMES[protocol]})` : ''}:`,
    `  ${url}`,
  ];
  if (!absolute) {
    const caller = protocol ? CALLERS[protocol] : 'the platform';
    lines.push(
      `  this is a path, not a URL: the server has no SVC_PUBLIC_URL. Prefix the public https address where ${caller} reaches the server, or set SVC_PUBLIC_URL on the server`,
    );
  }
  // Where the URL goes into a command, a relative one would be sent as is: show the placeholder.
  const full = absolute ? url : `https://<public address>${url}`;
  switch (protocol) {
    case 'slack':
      lines.push("  paste it in your Slack app's Event Subscriptions > Request URL");
      break;
    case 'telegram':
      lines.push(
        '  register it with Telegram:',
        `  curl "https://api.telegram.org/bot${variable(platform.config, 'bot_token')}/setWebhook" -d "url=${full}" -d "secret_token=${variable(platform.config, 'secret_token')}"`,
      );
      break;
    case 'whatsapp':
      lines.push(
        `  paste it in Meta App Dashboard > WhatsApp > Configuration > Callback URL, with the value of ${variable(platform.config, 'verify_token')} as Verify token, and subscribe to the "messages" field`,
      );
      break;
  }
  return lines;
}
