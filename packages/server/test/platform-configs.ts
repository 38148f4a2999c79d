/**
 * A valid config of each chat platform (DESIGN.md section 9), every secret as a reference. Tests
 * that are about something else spread these and add their own keys.
 */
export const SLACK_CONFIG = { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN' };
export const TELEGRAM_CONFIG = { bot_token: '$TELEGRAM_BOT_TOKEN', secret_token: '$TELEGRAM_SECRET_TOKEN' };
export const WHATSAPP_CONFIG = {
  flavor: 'whatsapp',
  access_token: '$WHATSAPP_ACCESS_TOKEN',
  app_secret: '$WHATSAPP_APP_SECRET',
  verify_token: '$WHATSAPP_VERIFY_TOKEN',
  phone_number_id: '106540352242922',
};

/**
 * An agent's three chat platforms (Slack, Telegram, WhatsApp) on `server`, their secrets as org
 * secrets: `secrets` holds SLACK_SIGNING_SECRET, SLACK_BOT_TOKEN, TG_BOT_TOKEN, TG_SECRET_TOKEN,
 * WA_ACCESS_TOKEN, WA_APP_SECRET and WA_VERIFY_TOKEN (and any other the test needs).
 */
export async function putChatPlatforms(
  server: {
    call(method: string, path: string, options?: { body?: unknown }): Promise<{ status: number; body: any }>;
  },
  agentId: string,
  secrets: Record<string, string>,
  phoneNumberId: string,
): Promise<void> {
  for (const [name, value] of Object.entries(secrets)) {
    const res = await server.call('PUT', `/api/default/secrets/${name}`, { body: { value } });
    if (res.status !== 201) throw new Error(`secret ${name}: ${JSON.stringify(res.body)}`);
  }
  const platforms = {
    [`${agentId}-team-chat`]: {
      type: 'team_chat',
      config: { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '$SLACK_BOT_TOKEN' },
    },
    [`${agentId}-messenger-tg`]: {
      type: 'messenger',
      name: 'tg',
      config: { bot_token: '$TG_BOT_TOKEN', secret_token: '$TG_SECRET_TOKEN' },
    },
    [`${agentId}-messenger-wa`]: {
      type: 'messenger',
      name: 'wa',
      config: {
        flavor: 'whatsapp',
        access_token: '$WA_ACCESS_TOKEN',
        app_secret: '$WA_APP_SECRET',
        verify_token: '$WA_VERIFY_TOKEN',
        phone_number_id: phoneNumberId,
      },
    },
  };
  for (const [stableId, body] of Object.entries(platforms)) {
    const res = await server.call(
      'PUT',
      `/api/default/agents/${agentId}/platforms/by-stable-id/${stableId}`,
      {
        body,
      },
    );
    if (res.status !== 201) throw new Error(`platform ${stableId}: ${JSON.stringify(res.body)}`);
  }
}
