/**
 * Identity namespaces: how an entity (a person, a repository) is recognised across connectors.
 * Connectors that link events to the member type use these, so that the same e-mail address seen by
 * two connectors lands on one entity.
 */

/** The spec's namespaces, by the spec's names. */
const SPEC_IDENTITY = {
  PHONE: 'phone',
  EMAIL: 'email',
  MESSAGING_JID: 'messaging_jid',
  TEAM_CHAT_USER_ID: 'team_chat_user_id',
  CODE_HOST_LOGIN: 'code_host_login',
  CODE_HOST_USER_ID: 'code_host_user_id',
  CODE_HOST_REPO_ID: 'code_host_repo_id',
  CODE_HOST_REPO_FULL_NAME: 'code_host_repo_full_name',
  AUTH_USER_ID: 'auth_user_id',
  CONTACTS_CONTACT_ID: 'contacts_contact_id',
} as const;

/**
 * The names Lobu's SDK gives the same namespaces, so that a connector written for it
 * (`IDENTITY.GITHUB_LOGIN`) links under the spec's namespace (`code_host_login`) instead of under
 * `undefined`. Lobu's `EMAIL_DOMAIN` has no equivalent here and is left out on purpose: it stays
 * `undefined`, which every check refuses by name (see `LOBU_IDENTITY_WITHOUT_EQUIVALENT`).
 */
export const LOBU_IDENTITY_ALIASES = {
  WA_JID: SPEC_IDENTITY.MESSAGING_JID,
  SLACK_USER_ID: SPEC_IDENTITY.TEAM_CHAT_USER_ID,
  GITHUB_LOGIN: SPEC_IDENTITY.CODE_HOST_LOGIN,
  GITHUB_USER_ID: SPEC_IDENTITY.CODE_HOST_USER_ID,
  GITHUB_REPO_ID: SPEC_IDENTITY.CODE_HOST_REPO_ID,
  GITHUB_REPO_FULL_NAME: SPEC_IDENTITY.CODE_HOST_REPO_FULL_NAME,
  GOOGLE_CONTACT_ID: SPEC_IDENTITY.CONTACTS_CONTACT_ID,
} as const;

/** Lobu's IDENTITY names that no namespace here stands for: said so when one turns up undefined. */
export const LOBU_IDENTITY_WITHOUT_EQUIVALENT = ['EMAIL_DOMAIN'] as const;

export const IDENTITY = { ...SPEC_IDENTITY, ...LOBU_IDENTITY_ALIASES } as const;

export type IdentityNamespace = (typeof SPEC_IDENTITY)[keyof typeof SPEC_IDENTITY];

export const IDENTITY_NAMESPACES: readonly IdentityNamespace[] = Object.values(SPEC_IDENTITY);

/** The spec's names of `IDENTITY`, without Lobu's aliases: what messages list. */
export const IDENTITY_NAMES: readonly string[] = Object.keys(SPEC_IDENTITY);

/**
 * The namespace values Lobu's SDK stored (`github_login`, ...), each with the spec's value: a
 * connector that writes Lobu's value as text, rather than through `IDENTITY`, is told which to use.
 */
export const LOBU_IDENTITY_VALUES: Readonly<Record<string, IdentityNamespace>> = Object.fromEntries(
  Object.entries(LOBU_IDENTITY_ALIASES).map(([name, value]) => [name.toLowerCase(), value]),
);

/**
 * A namespace of the connector's own, outside `IDENTITY`, is written with this prefix
 * (`custom:shop_customer_id`), so that a typo in a standard one is caught rather than taken as new.
 */
export const CUSTOM_IDENTITY_PREFIX = 'custom:';

export const isIdentityNamespace = (value: string): value is IdentityNamespace =>
  (IDENTITY_NAMESPACES as readonly string[]).includes(value);

/**
 * Why a namespace written by a connector cannot be used, or null when it can: a value of `IDENTITY`,
 * or `custom:<name>`. The same words for a definition's `entityLinks` and an envelope's identities.
 */
export function identityNamespaceProblem(
  namespace: unknown,
  suggest: (value: string) => string | undefined = () => undefined,
): string | null {
  if (namespace === undefined || namespace === null || namespace === '') {
    return (
      `is missing or undefined: an IDENTITY name this SDK does not have is undefined ` +
      `(Lobu's IDENTITY.${LOBU_IDENTITY_WITHOUT_EQUIVALENT.join(', IDENTITY.')} has no equivalent here). ` +
      `Use one of IDENTITY.${IDENTITY_NAMES.join(', IDENTITY.')} (Lobu's names, such as ` +
      `IDENTITY.GITHUB_LOGIN, are accepted too), or "${CUSTOM_IDENTITY_PREFIX}<name>" for one of your own`
    );
  }
  if (typeof namespace !== 'string') return `must be a string (got ${typeof namespace})`;
  if (namespace.startsWith(CUSTOM_IDENTITY_PREFIX)) {
    return /^[a-z][a-z0-9_]*$/.test(namespace.slice(CUSTOM_IDENTITY_PREFIX.length))
      ? null
      : `a custom namespace is "${CUSTOM_IDENTITY_PREFIX}" then lowercase letters, digits or "_"`;
  }
  if (isIdentityNamespace(namespace)) return null;
  const lobu = Object.hasOwn(LOBU_IDENTITY_VALUES, namespace) ? LOBU_IDENTITY_VALUES[namespace] : undefined;
  if (lobu)
    return `"${namespace}" is Lobu's namespace; here it is "${lobu}" (IDENTITY.${namespace.toUpperCase()} gives it)`;
  const near = suggest(namespace);
  return `unknown identity namespace "${namespace}"${near ? ` (did you mean "${near}"?)` : ''}; use a value of IDENTITY, or "${CUSTOM_IDENTITY_PREFIX}${namespace}" for one of your own`;
}
