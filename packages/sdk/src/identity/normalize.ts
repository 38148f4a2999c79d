/**
 * Identifier normalisers, one per `IDENTITY` namespace. Call them before filling an identity path of an
 * event, so that the same person or repository seen by two connectors, spelt two ways, becomes one entity.
 *
 * Every normaliser has the same contract: it returns the canonical string, or `null` when the input is
 * missing (`null`, `undefined`), empty after trimming, or not a value of that namespace. `null` means
 * "leave this identity out", never "match everything", so an optional API field can be passed straight in.
 * Nothing here throws on bad data; only a bad argument from the calling code (an unknown namespace or
 * region) throws, because that is a bug to fix rather than data to skip.
 */

import { isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import {
  CUSTOM_IDENTITY_PREFIX,
  IDENTITY,
  type IdentityNamespace,
  isIdentityNamespace,
} from './namespaces.js';

/** A namespace of the connector's own, for example `custom:shop_customer_id`. */
export type CustomIdentityNamespace = `${typeof CUSTOM_IDENTITY_PREFIX}${string}`;

type Text = string | null | undefined;
type TextOrId = string | number | null | undefined;

const trimmed = (value: Text): string | null => {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  return text === '' ? null : text;
};

// Ids of this size and sign are exact in a JavaScript number; anything else has already lost digits.
const integerText = (value: number): string | null =>
  Number.isSafeInteger(value) && value >= 0 ? String(value) : null;

const opaqueId = (value: TextOrId): string | null =>
  typeof value === 'number' ? integerText(value) : trimmed(value);

const numericId = (value: TextOrId): string | null => {
  if (typeof value === 'number') return integerText(value);
  const text = trimmed(value);
  if (text === null || !/^\d+$/.test(text)) return null;
  // Leading zeros would make "042" and "42" two identities; BigInt keeps ids past 2^53 exact.
  return BigInt(text).toString();
};

// Characters that mark a header, a list or a quoted form rather than one bare address.
const EMAIL = /^[^\s@<>()[\],;:"\\]+@[^\s@<>()[\],;:"\\.]+(?:\.[^\s@<>()[\],;:"\\.]+)+$/;

/**
 * An e-mail address, trimmed and lowercased. Plus-tags and dots are kept: `jane+news@` may be a separate
 * mailbox, and only some providers ignore dots. Pass the bare address: a header such as
 * `Jane <jane@example.com>` is not an address and gives `null`.
 *
 * @example normalizeEmail('  Jane.Doe+News@Example.COM ') // 'jane.doe+news@example.com'
 * @example normalizeEmail('jane@localhost') // null (no domain with a dot)
 * @example normalizeEmail('Jane <jane@example.com>') // null
 */
export function normalizeEmail(value: Text): string | null {
  const text = trimmed(value)?.toLowerCase();
  return text !== undefined && EMAIL.test(text) ? text : null;
}

/**
 * A phone number in E.164 (`+14155550123`), or `null` when it is not a valid number for its country
 * (validated against the full numbering plan, not only the length). A number without `+` or an
 * international prefix (`00`, `011`) is read in `defaultRegion`, an ISO 3166 code such as `US` or `DE`.
 * An extension is dropped: the line is the identity. A `tel:` prefix is accepted; other surrounding text
 * is not, so a free-text field does not turn into an identity by accident.
 *
 * Numbers are not accepted as `number`: by then a leading `+` or `0` has already been lost.
 *
 * @example normalizePhone('(212) 736-5000') // '+12127365000'
 * @example normalizePhone('0151 12345678', 'DE') // '+4915112345678'
 * @example normalizePhone('+49 151 12345678') // '+4915112345678' (the region only applies without +)
 * @example normalizePhone('12345') // null
 * @throws {RangeError} when `defaultRegion` is not a supported region code.
 */
export function normalizePhone(value: Text, defaultRegion = 'US'): string | null {
  const region = defaultRegion.toUpperCase();
  if (!isSupportedCountry(region)) {
    throw new RangeError(
      `normalizePhone: unknown region "${defaultRegion}"; use an ISO 3166 code such as "US"`,
    );
  }
  const text = trimmed(value)?.replace(/^tel:/i, '');
  if (!text) return null;
  const phone = parsePhoneNumberFromString(text, { defaultCountry: region, extract: false });
  return phone?.isValid() ? phone.number : null;
}

/**
 * A messaging JID (`user@server`), lowercased, without the device or resource part: a person writing from
 * their phone and from a linked desktop is one identity. WhatsApp's `@c.us` (used by some client
 * libraries) becomes `@s.whatsapp.net`, the form the others use, so both land on one entity. Group
 * (`@g.us`) and other server JIDs are kept as they are.
 *
 * @example normalizeMessagingJid('4915112345678:12@s.whatsapp.net') // '4915112345678@s.whatsapp.net'
 * @example normalizeMessagingJid('4915112345678@c.us') // '4915112345678@s.whatsapp.net'
 * @example normalizeMessagingJid('Juliet@Example.com/balcony') // 'juliet@example.com'
 * @example normalizeMessagingJid('4915112345678') // null (no server)
 */
export function normalizeMessagingJid(value: Text): string | null {
  const match = trimmed(value)
    ?.toLowerCase()
    .match(/^([^\s@:/]+)(?::\d+)?@([^\s@/]+)(?:\/.*)?$/);
  if (!match) return null;
  const [, user, server] = match;
  return `${user}@${server === 'c.us' ? 's.whatsapp.net' : server}`;
}

/**
 * A team-chat user id (Slack-style `U024BE7LH`), trimmed and uppercased: such ids are issued in upper
 * case, so a lowercased copy (from a URL or a hand-written config) is the same user. Not accepted as
 * `number`, because numeric chat ids (snowflakes) are larger than a JavaScript number holds exactly.
 *
 * @example normalizeTeamChatUserId(' u024be7lh ') // 'U024BE7LH'
 * @example normalizeTeamChatUserId('U024 BE7LH') // null
 */
export function normalizeTeamChatUserId(value: Text): string | null {
  const text = trimmed(value);
  return text !== null && !/\s/.test(text) ? text.toUpperCase() : null;
}

/**
 * A code-host login, without a leading `@` and lowercased: GitHub logins are case-insensitive, so
 * `Octocat` and `@octocat` are the same account. App logins such as `dependabot[bot]` are kept.
 *
 * @example normalizeCodeHostLogin('@Octocat') // 'octocat'
 * @example normalizeCodeHostLogin('octo cat') // null
 */
export function normalizeCodeHostLogin(value: Text): string | null {
  const text = trimmed(value)?.replace(/^@/, '').toLowerCase();
  return text && !/[\s/@]/.test(text) ? text : null;
}

/**
 * A code-host numeric user id as a decimal string. Take the numeric `id`, not a GraphQL node id
 * (`MDQ6VXNlcjE=`), which gives `null`: a login can be renamed, this id cannot.
 *
 * @example normalizeCodeHostUserId(583231) // '583231'
 * @example normalizeCodeHostUserId(' 00583231 ') // '583231'
 * @example normalizeCodeHostUserId('MDQ6VXNlcjE=') // null
 */
export function normalizeCodeHostUserId(value: TextOrId): string | null {
  return numericId(value);
}

/**
 * A code-host numeric repository id as a decimal string; it survives renames and transfers, unlike the
 * full name.
 *
 * @example normalizeCodeHostRepoId(1296269) // '1296269'
 * @example normalizeCodeHostRepoId('1296269') // '1296269'
 * @example normalizeCodeHostRepoId(-1) // null
 */
export function normalizeCodeHostRepoId(value: TextOrId): string | null {
  return numericId(value);
}

/**
 * A repository full name, `owner/name`, lowercased (hosts treat it case-insensitively). A clone or web URL
 * of the repository itself is accepted: its host, a trailing `.git`, `/`, query and fragment are dropped.
 * Anything that is not exactly two path segments gives `null` rather than a guess, which includes deeper
 * links (`…/owner/name/pull/3`) and nested group paths (`group/subgroup/name`).
 *
 * @example normalizeCodeHostRepoFullName('Octocat/Hello-World') // 'octocat/hello-world'
 * @example normalizeCodeHostRepoFullName('https://github.com/Octocat/Hello-World.git') // 'octocat/hello-world'
 * @example normalizeCodeHostRepoFullName('git@github.com:octocat/hello-world.git') // 'octocat/hello-world'
 * @example normalizeCodeHostRepoFullName('octocat') // null
 */
export function normalizeCodeHostRepoFullName(value: Text): string | null {
  let text = trimmed(value)?.toLowerCase();
  if (!text) return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(text)) {
    text = text.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*\//, '').replace(/[?#].*$/, '');
  } else {
    text = text.replace(/^[^\s@/:]+@[^\s/:]+:/, ''); // scp-like ssh: git@github.com:owner/name
  }
  text = text.replace(/\/$/, '').replace(/(.)\.git$/, '$1');
  return /^[^\s/:@]+\/[^\s/:@]+$/.test(text) ? text : null;
}

/**
 * The user id of the sign-in provider (an OAuth/OIDC `sub`), trimmed; its case is kept because providers
 * compare it exactly. A non-negative integer is accepted as a number.
 *
 * @example normalizeAuthUserId(' auth0|5f7c8ec7c33c6c004bbafe82 ') // 'auth0|5f7c8ec7c33c6c004bbafe82'
 * @example normalizeAuthUserId(42) // '42'
 */
export function normalizeAuthUserId(value: TextOrId): string | null {
  return opaqueId(value);
}

/**
 * The id of a contact in an address book, trimmed; its case is kept because the source compares it
 * exactly. A non-negative integer is accepted as a number.
 *
 * @example normalizeContactsContactId(' people/c8471982374 ') // 'people/c8471982374'
 */
export function normalizeContactsContactId(value: TextOrId): string | null {
  return opaqueId(value);
}

// Numbers reach only the normalisers that take them: for the others a number has already lost something
// (a leading + or 0, or digits past 2^53).
const stringOnly =
  (normalize: (value: string) => string | null) =>
  (value: string | number): string | null =>
    typeof value === 'string' ? normalize(value) : null;

const NORMALIZERS: Record<
  IdentityNamespace,
  (value: string | number, defaultRegion?: string) => string | null
> = {
  [IDENTITY.PHONE]: (value, defaultRegion) =>
    typeof value === 'string' ? normalizePhone(value, defaultRegion) : null,
  [IDENTITY.EMAIL]: stringOnly(normalizeEmail),
  [IDENTITY.MESSAGING_JID]: stringOnly(normalizeMessagingJid),
  [IDENTITY.TEAM_CHAT_USER_ID]: stringOnly(normalizeTeamChatUserId),
  [IDENTITY.CODE_HOST_LOGIN]: stringOnly(normalizeCodeHostLogin),
  [IDENTITY.CODE_HOST_USER_ID]: normalizeCodeHostUserId,
  [IDENTITY.CODE_HOST_REPO_ID]: normalizeCodeHostRepoId,
  [IDENTITY.CODE_HOST_REPO_FULL_NAME]: stringOnly(normalizeCodeHostRepoFullName),
  [IDENTITY.AUTH_USER_ID]: normalizeAuthUserId,
  [IDENTITY.CONTACTS_CONTACT_ID]: normalizeContactsContactId,
};

/**
 * Normalises `value` with the normaliser of `namespace`; a custom namespace (`custom:…`) gets a trimmed
 * string (or a non-negative integer as a decimal string). Values of other types (objects, booleans) give
 * `null`, and so do numbers for namespaces whose normaliser takes only strings.
 *
 * @param options.defaultRegion for `phone`: the region a number without `+` is read in (default `US`).
 * @example normalizeIdentity(IDENTITY.EMAIL, ' Jane@Example.com ') // 'jane@example.com'
 * @example normalizeIdentity(IDENTITY.PHONE, '0151 12345678', { defaultRegion: 'DE' }) // '+4915112345678'
 * @example normalizeIdentity('custom:shop_customer_id', ' C-1001 ') // 'C-1001'
 * @throws {RangeError} for a namespace that is neither in `IDENTITY` nor `custom:<name>`, so a typo in a
 * namespace fails loudly instead of dropping every identity.
 */
export function normalizeIdentity(
  namespace: IdentityNamespace | CustomIdentityNamespace,
  value: unknown,
  options: { defaultRegion?: string } = {},
): string | null {
  // A definition stored before its namespaces were checked may hold none: never a key of "undefined".
  if (typeof namespace !== 'string') {
    throw new RangeError(
      `normalizeIdentity: the identity namespace is ${namespace === undefined ? 'undefined' : `a ${typeof namespace}`}; use a value of IDENTITY or "${CUSTOM_IDENTITY_PREFIX}<name>"`,
    );
  }
  const input = typeof value === 'string' || typeof value === 'number' ? value : null;
  if (isIdentityNamespace(namespace)) {
    return input === null ? null : NORMALIZERS[namespace](input, options.defaultRegion);
  }
  if (namespace.startsWith(CUSTOM_IDENTITY_PREFIX) && namespace.length > CUSTOM_IDENTITY_PREFIX.length) {
    return opaqueId(input);
  }
  throw new RangeError(
    `normalizeIdentity: unknown identity namespace "${namespace}"; use a value of IDENTITY or "${CUSTOM_IDENTITY_PREFIX}<name>"`,
  );
}
