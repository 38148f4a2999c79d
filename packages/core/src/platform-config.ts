/**
 * The keys each chat platform reads from its `config` (DESIGN.md section 9). A `messenger` speaks
 * the Telegram Bot API unless `flavor = "whatsapp"`. Keys not listed here are kept as written: a
 * protocol may read more later (an API base URL, a Slack app token), and refusing them now would
 * break projects written for that version. A listed key in another case style (`botToken`) is
 * refused, naming the key meant: that is a mistake, not a key of a later version.
 */
import { isSecretReference } from './secrets.js';

export type PlatformProtocol = 'slack' | 'telegram' | 'whatsapp';

export interface PlatformConfigKey {
  key: string;
  /** A secret must be a reference; the value lives in the org's secrets or the environment. */
  secret: boolean;
  /** The variable a message suggests, e.g. `SLACK_BOT_TOKEN`. */
  variable: string;
}

const key = (name: string, variable: string, secret = true): PlatformConfigKey => ({
  key: name,
  secret,
  variable,
});

export const PLATFORM_PROTOCOLS: Record<PlatformProtocol, { title: string; keys: PlatformConfigKey[] }> = {
  slack: {
    title: 'team_chat platform (Slack Events API)',
    keys: [key('signing_secret', 'SLACK_SIGNING_SECRET'), key('bot_token', 'SLACK_BOT_TOKEN')],
  },
  telegram: {
    title: 'messenger platform (Telegram Bot API)',
    keys: [key('bot_token', 'TELEGRAM_BOT_TOKEN'), key('secret_token', 'TELEGRAM_SECRET_TOKEN')],
  },
  whatsapp: {
    title: 'messenger platform with flavor "whatsapp" (WhatsApp Cloud API)',
    keys: [
      key('access_token', 'WHATSAPP_ACCESS_TOKEN'),
      key('app_secret', 'WHATSAPP_APP_SECRET'),
      key('verify_token', 'WHATSAPP_VERIFY_TOKEN'),
      key('phone_number_id', 'WHATSAPP_PHONE_NUMBER_ID', false),
    ],
  },
};

/** The protocol a platform speaks, or null when its `flavor` names none. */
export function platformProtocol(type: string, config: Record<string, unknown>): PlatformProtocol | null {
  if (type === 'team_chat') return 'slack';
  const flavor = config.flavor;
  if (flavor === undefined || flavor === 'telegram') return 'telegram';
  return flavor === 'whatsapp' ? 'whatsapp' : null;
}

/** The keys a platform's protocol reads from its config (`flavor` included for a messenger). */
export function platformConfigKeys(type: string, config: Record<string, unknown>): string[] {
  const protocol = platformProtocol(type, config);
  const keys = protocol === null ? [] : PLATFORM_PROTOCOLS[protocol].keys.map((k) => k.key);
  return type === 'messenger' ? [...keys, 'flavor'] : keys;
}

const loose = (key: string) => key.toLowerCase().replace(/[_-]/g, '');

/**
 * Keys written in another case style than a key the protocol reads (`botToken`, `Bot-Token` for
 * `bot_token`), each with the key meant. Kept as written, such a key would be stored and never
 * read, and the platform would fail at its first message instead of at the write.
 */
export function platformConfigLookalikes(type: string, config: Record<string, unknown>): Map<string, string> {
  const known = platformConfigKeys(type, config);
  const out = new Map<string, string>();
  for (const written of Object.keys(config)) {
    if (known.includes(written)) continue;
    const meant = known.find((k) => loose(k) === loose(written));
    if (meant) out.set(written, meant);
  }
  return out;
}

export interface PlatformConfigIssue {
  /** The key inside `config`. */
  key: string;
  message: string;
}

const setHint = (variable: string) =>
  `store the value with "svc secrets set ${variable}" and write "$${variable}" here`;

/**
 * Every problem of a platform's config at once: a missing key, a secret written as a value, a
 * flavor that names no protocol. Messages never repeat a value, which may be a secret.
 */
export function platformConfigIssues(type: string, config: Record<string, unknown>): PlatformConfigIssue[] {
  const issues: PlatformConfigIssue[] = [];
  if (type === 'team_chat' && 'flavor' in config) {
    issues.push({
      key: 'flavor',
      message:
        'is not read by a team_chat platform (Slack): flavor chooses the protocol of a messenger platform ("telegram" or "whatsapp")',
    });
  }
  const protocol = platformProtocol(type, config);
  // Which keys are needed depends on the flavor: with an unknown one, that is the only problem.
  if (protocol === null) {
    return [{ key: 'flavor', message: 'must be "telegram" (the default when absent) or "whatsapp"' }];
  }
  const { title, keys } = PLATFORM_PROTOCOLS[protocol];
  const lookalikes = platformConfigLookalikes(type, config);
  for (const [written, meant] of lookalikes) {
    issues.push({
      key: written,
      message: `is not a key of a ${title}: write it as "${meant}" (svc's config keys are snake_case)`,
    });
  }
  const meantByLookalike = new Set(lookalikes.values());
  for (const { key: name, secret, variable } of keys) {
    const value = config[name];
    // `botToken` written for `bot_token`: one problem, at the key as written, not a second one here.
    if (value === undefined && meantByLookalike.has(name)) continue;
    if (value === undefined) {
      issues.push({
        key: name,
        message: secret
          ? `is required for a ${title}: a secret reference such as "$${variable}"; ${setHint(variable)}`
          : `is required for a ${title}: the phone number ID (Meta App Dashboard > WhatsApp > API Setup), or a reference such as "$${variable}"`,
      });
    } else if (secret && !isSecretReference(value)) {
      issues.push({
        key: name,
        message: `must be a secret reference such as "$${variable}", never the secret itself: ${setHint(variable)}`,
      });
    } else if (!secret && (typeof value !== 'string' || value.trim() === '')) {
      issues.push({
        key: name,
        message:
          'must be a string: the phone number ID in quotes (phone_number_id = "106540352242922"; as a number it could lose digits), or a secret reference',
      });
    }
  }
  return issues;
}
