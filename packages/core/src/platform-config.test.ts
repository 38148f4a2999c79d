import { describe, expect, it } from 'vitest';
import { platformConfigIssues, platformProtocol } from './platform-config.js';
import { platformPutSchema } from './resources.js';

const SLACK = { signing_secret: '$SLACK_SIGNING_SECRET', bot_token: '${SLACK_BOT_TOKEN}' };
const TELEGRAM = { bot_token: '$TELEGRAM_BOT_TOKEN', secret_token: '$TELEGRAM_SECRET_TOKEN' };
const WHATSAPP = {
  flavor: 'whatsapp',
  access_token: '$WHATSAPP_ACCESS_TOKEN',
  app_secret: '$WHATSAPP_APP_SECRET',
  verify_token: '$WHATSAPP_VERIFY_TOKEN',
  phone_number_id: '106540352242922',
};

/** The issues of a PUT body as `path: message`, the way the server and the CLI see them. */
function issues(body: unknown): Record<string, string> {
  const parsed = platformPutSchema.safeParse(body);
  if (parsed.success) return {};
  return Object.fromEntries(parsed.error.issues.map((i) => [i.path.join('.'), i.message]));
}

describe('platform config', () => {
  it('accepts each protocol with its keys as references, and keys it does not read', () => {
    expect(issues({ type: 'team_chat', config: { ...SLACK, channel: 'C123' } })).toEqual({});
    expect(issues({ type: 'messenger', config: TELEGRAM })).toEqual({});
    expect(issues({ type: 'messenger', config: { ...TELEGRAM, flavor: 'telegram' } })).toEqual({});
    expect(issues({ type: 'messenger', config: WHATSAPP })).toEqual({});
    expect(issues({ type: 'messenger', config: { ...WHATSAPP, phone_number_id: '$WA_PHONE' } })).toEqual({});
  });

  it('names every missing key at once, with the reference to write and how to store its value', () => {
    expect(issues({ type: 'team_chat' })).toEqual({
      'config.signing_secret':
        'is required for a team_chat platform (Slack Events API): a secret reference such as "$SLACK_SIGNING_SECRET"; store the value with "svc secrets set SLACK_SIGNING_SECRET" and write "$SLACK_SIGNING_SECRET" here',
      'config.bot_token':
        'is required for a team_chat platform (Slack Events API): a secret reference such as "$SLACK_BOT_TOKEN"; store the value with "svc secrets set SLACK_BOT_TOKEN" and write "$SLACK_BOT_TOKEN" here',
    });
    expect(Object.keys(issues({ type: 'messenger', config: { bot_token: '$T' } }))).toEqual([
      'config.secret_token',
    ]);
    const whatsapp = issues({ type: 'messenger', config: { flavor: 'whatsapp', app_secret: '$S' } });
    expect(Object.keys(whatsapp)).toEqual([
      'config.access_token',
      'config.verify_token',
      'config.phone_number_id',
    ]);
    expect(whatsapp['config.phone_number_id']).toBe(
      'is required for a messenger platform with flavor "whatsapp" (WhatsApp Cloud API): the phone number ID (Meta App Dashboard > WhatsApp > API Setup), or a reference such as "$WHATSAPP_PHONE_NUMBER_ID"',
    );
  });

  it('refuses a secret written as a value, and never repeats the value', () => {
    const literal = 'xoxb-1234-literal-token';
    const found = issues({ type: 'team_chat', config: { ...SLACK, bot_token: literal } });
    expect(found).toEqual({
      'config.bot_token':
        'must be a secret reference such as "$SLACK_BOT_TOKEN", never the secret itself: store the value with "svc secrets set SLACK_BOT_TOKEN" and write "$SLACK_BOT_TOKEN" here',
    });
    expect(
      JSON.stringify(
        platformPutSchema.safeParse({ type: 'team_chat', config: { ...SLACK, bot_token: literal } }).error
          ?.issues,
      ),
    ).not.toContain(literal);
    // A reference inside a longer value, a lowercase name, an empty string, a number: not references.
    for (const value of ['xoxb-${REST}', '$slack_token', '', 12345, '$A $B']) {
      expect(
        Object.keys(issues({ type: 'messenger', config: { ...TELEGRAM, secret_token: value } })),
      ).toEqual(['config.secret_token']);
    }
  });

  it('wants phone_number_id as a string, since a number that long could lose digits', () => {
    expect(issues({ type: 'messenger', config: { ...WHATSAPP, phone_number_id: 106540352242922 } })).toEqual({
      'config.phone_number_id':
        'must be a string: the phone number ID in quotes (phone_number_id = "106540352242922"; as a number it could lose digits), or a secret reference',
    });
    expect(Object.keys(issues({ type: 'messenger', config: { ...WHATSAPP, phone_number_id: ' ' } }))).toEqual(
      ['config.phone_number_id'],
    );
  });

  it('knows two flavors of messenger, and none of team_chat', () => {
    expect(issues({ type: 'messenger', config: { ...TELEGRAM, flavor: 'signal' } })).toEqual({
      'config.flavor': 'must be "telegram" (the default when absent) or "whatsapp"',
    });
    expect(issues({ type: 'messenger', config: { ...TELEGRAM, flavor: 1 } })).toEqual({
      'config.flavor': 'must be "telegram" (the default when absent) or "whatsapp"',
    });
    // The flavor and the missing keys come together.
    expect(issues({ type: 'team_chat', config: { flavor: 'whatsapp', bot_token: '$B' } })).toEqual({
      'config.flavor':
        'is not read by a team_chat platform (Slack): flavor chooses the protocol of a messenger platform ("telegram" or "whatsapp")',
      'config.signing_secret': expect.stringMatching(/^is required for a team_chat platform/),
    });
    expect(platformProtocol('messenger', {})).toBe('telegram');
    expect(platformProtocol('messenger', { flavor: 'whatsapp' })).toBe('whatsapp');
    expect(platformProtocol('team_chat', {})).toBe('slack');
    expect(platformConfigIssues('messenger', WHATSAPP)).toEqual([]);
  });

  it('refuses a key it reads written in another case style, once, naming the key meant', () => {
    const slack = { signingSecret: '$SLACK_SIGNING_SECRET', botToken: '$SLACK_BOT_TOKEN' };
    expect(issues({ type: 'team_chat', config: slack })).toEqual({
      'config.signingSecret':
        'is not a key of a team_chat platform (Slack Events API): write it as "signing_secret" (svc\'s config keys are snake_case)',
      'config.botToken':
        'is not a key of a team_chat platform (Slack Events API): write it as "bot_token" (svc\'s config keys are snake_case)',
    });
    expect(
      Object.keys(issues({ type: 'messenger', config: { bot_token: '$T', secretToken: '$S' } })),
    ).toEqual(['config.secretToken']);
    const whatsapp = {
      flavor: 'whatsapp',
      accessToken: '$A',
      appSecret: '$B',
      verifyToken: '$C',
      phoneNumberId: '1065',
    };
    expect(Object.keys(issues({ type: 'messenger', config: whatsapp })).sort()).toEqual([
      'config.accessToken',
      'config.appSecret',
      'config.phoneNumberId',
      'config.verifyToken',
    ]);
    // Both spellings: the right one is kept, the other is still a mistake.
    expect(Object.keys(issues({ type: 'team_chat', config: { ...SLACK, 'Bot-Token': '$X' } }))).toEqual([
      'config.Bot-Token',
    ]);
    // A key of another protocol is not a lookalike: it is kept, as keys a protocol does not read are.
    expect(issues({ type: 'team_chat', config: { ...SLACK, secret_token: '$X' } })).toEqual({});
  });

  it('reports the config keys alongside other problems of the body', () => {
    expect(issues({ type: 'team_chat', nmae: 'x' })).toMatchObject({
      '': 'Unrecognized key: "nmae"',
      'config.signing_secret': expect.any(String),
      'config.bot_token': expect.any(String),
    });
  });
});
