/**
 * Identity namespaces: how an entity (a person, a repository) is recognised across connectors.
 * Connectors that link events to the member type use these, so that the same e-mail address seen by
 * two connectors lands on one entity.
 */
export const IDENTITY = {
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

export type IdentityNamespace = (typeof IDENTITY)[keyof typeof IDENTITY];

export const IDENTITY_NAMESPACES: readonly IdentityNamespace[] = Object.values(IDENTITY);

/**
 * A namespace of the connector's own, outside `IDENTITY`, is written with this prefix
 * (`custom:shop_customer_id`), so that a typo in a standard one is caught rather than taken as new.
 */
export const CUSTOM_IDENTITY_PREFIX = 'custom:';

export const isIdentityNamespace = (value: string): value is IdentityNamespace =>
  (IDENTITY_NAMESPACES as readonly string[]).includes(value);
