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
