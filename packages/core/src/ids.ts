/** Identifier rules shared by `svc.toml`, the CLI and the server (DESIGN.md section 5). */

import { z } from 'zod';

/** An org slug or an agentId: lowercase letters, digits and `-`, starting with a letter or digit. */
export const ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const ID_RULE =
  'lowercase letters, digits and "-", starting with a letter or digit, at most 63 characters';

export class SlugifyError extends Error {
  constructor(readonly input: string) {
    super(`cannot make an identifier from ${JSON.stringify(input)}: it has no letters or digits`);
    this.name = 'SlugifyError';
  }
}

/**
 * NFKD, drop combining marks, lowercase, every run of characters outside [a-z0-9] becomes one `-`,
 * trim `-`. An empty result throws: an empty segment would silently merge two stable IDs.
 */
export function slugify(input: string): string {
  const slug = input
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (slug === '') throw new SlugifyError(input);
  return slug;
}

/** `{slugify(agentId)}-{slugify(type)}[-{slugify(name)}]`: the one function the CLI and server share. */
export function stablePlatformId(agentId: string, type: string, name?: string | null): string {
  const parts = [slugify(agentId), slugify(type)];
  if (name !== undefined && name !== null && name !== '') parts.push(slugify(name));
  return parts.join('-');
}

/**
 * What `stablePlatformId` can produce: two or more slugs joined by `-`. Platform routes take up to
 * 200 characters (a name of 100 can slugify longer: NFKD expands some characters).
 */
export const STABLE_ID_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)+$/;
export const STABLE_ID_MAX_LENGTH = 200;

/** The path of a platform's webhook, relative to the server's base URL. */
export function webhookPath(stableId: string): string {
  return `/api/v1/webhooks/${stableId}`;
}

/**
 * The id of a stored row (a connection, feed, run, event, entity...) as records carry it: a
 * bigserial, so positive. Saying so keeps the document's examples and bounds ones a row can have.
 */
export const recordIdSchema = z.int().min(1);

/** A count or a size: never negative. */
export const countSchema = z.int().min(0);
