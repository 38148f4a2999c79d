/** What a feed and an action are configured with, as zod shapes that also give the JSON Schemas. */

import { z } from '@svc/connector-sdk';

export const DEFAULT_API_URL = 'https://api.github.com';

const repo = z
  .string()
  .trim()
  .regex(/^[\w.-]+\/[\w.-]+$/, 'must be owner/name, e.g. octocat/hello-world')
  .describe('The repository, owner/name');

// Configurable so that GitHub Enterprise (https://host/api/v3), a compatible host or a test fake can
// stand in for api.github.com.
const apiUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .default(DEFAULT_API_URL)
  .describe('Base URL of the REST API');

export const feedConfig = z.object({
  repo,
  apiUrl,
  state: z.enum(['open', 'closed', 'all']).default('all').describe('Which items to sync, by state'),
});
export type FeedConfig = z.output<typeof feedConfig>;

/** Actions are not bound to a feed: the repository comes from the connection's options. */
export const connectionOptions = z.object({ repo, apiUrl });
export type ConnectionOptions = z.output<typeof connectionOptions>;

/** Parses `value`, or throws an error that names each field at fault, fit to show a user. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(value)'}: ${i.message}`);
  throw new Error(`${what} is invalid: ${problems.join('; ')}`);
}
