import type { Caller } from '../http/types.js';

/**
 * Private conversations (DESIGN.md section 9). A conversation's `owner` is '' when it is shared on
 * purpose (a `channel`, a chat platform's chat), otherwise the one caller whose messages it holds.
 */
export const SHARED = '';

/** The caller as the owner of private conversations: each API token, and the admin password, is one. */
export function ownerOf(caller: Caller | null): string {
  return caller?.token ? `token:${caller.token.id}` : 'admin_password';
}

/**
 * Whose private conversations a caller may see besides the shared ones: null for every one of its
 * org (the `read` scope, which `write` and `admin` imply: such a token reads the whole org anyway),
 * otherwise its own alone. Another caller's private conversation is then answered 404, like a
 * conversation that does not exist, so that a token never learns it exists.
 */
export function privateViewOf(caller: Caller | null): string | null {
  return caller?.scopes.has('read') ? null : ownerOf(caller);
}

/** SQL: the conversation aliased `alias` is visible to the view in parameter `$n` (privateViewOf). */
export const visibleTo = (alias: string, n: number) =>
  `($${n}::text IS NULL OR ${alias}.owner = '' OR ${alias}.owner = $${n}::text)`;
