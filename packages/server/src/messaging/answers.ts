import type { FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { iso, isoOrNull } from '../http/common.js';
import { notFound } from '../http/problem.js';
import type { OrgRef } from '../http/types.js';
import { orgBySlug } from '../orgs/lookup.js';
import type { MessageRow } from './queries.js';

/** The messages API: any token with the `messages` scope, no org in the path. */
export const MESSAGES_AUTH = { auth: { scope: 'messages' as const, org: false } };

/** The header by which a console page says which org it shows (a session's other tabs may show another). */
export const ORG_HEADER = 'x-svc-org';

/**
 * The path carries no org: a token speaks for its own org; the admin password for `default`; a
 * console session for the org its page names in `X-Svc-Org`, else the one the session is in. A
 * token's session naming another org is answered as if the agent did not exist.
 */
export async function orgOfMessagesCaller(pool: Pool, request: FastifyRequest): Promise<OrgRef> {
  const session = request.caller?.session;
  const named = request.headers[ORG_HEADER];
  if (session && typeof named === 'string' && named !== session.org.slug) {
    if (request.caller?.token) throw notFound(`org "${named}"`);
    return orgBySlug(pool, named);
  }
  const token = request.caller?.token;
  if (token) return { id: token.orgId, slug: token.orgSlug };
  if (session) return session.org;
  return orgBySlug(pool, 'default');
}

export const toMessage = (row: MessageRow, basePath: string) => ({
  id: row.id,
  conversationId: row.conversation_id,
  agentId: row.agent_id,
  status: row.status,
  content: row.content,
  reply: row.reply,
  error: row.error,
  model: row.model,
  usage: row.usage,
  attempts: row.attempts,
  delivery: row.delivery,
  deliveryError: row.delivery_error,
  files: row.files.map((file) => ({
    ...file,
    url: `${basePath}/api/v1/agents/${row.agent_id}/messages/${row.id}/files/${file.id}`,
  })),
  createdAt: iso(row.created_at),
  startedAt: isoOrNull(row.started_at),
  firstTokenAt: isoOrNull(row.first_token_at),
  completedAt: isoOrNull(row.completed_at),
  updatedAt: iso(row.updated_at),
});

/**
 * An opaque position in a list ordered by (time, id): what the next page starts after. The time
 * is PostgreSQL's own text of it, to the microsecond: a JavaScript Date would round it to the
 * millisecond and repeat rows on the next page.
 */
export const encodeCursor = (at: string, id: string) =>
  Buffer.from(JSON.stringify([at, id])).toString('base64url');

/** PostgreSQL's text of a timestamptz (DateStyle ISO): `2026-11-26 06:41:23.082951+00`, `+05:30`. */
const POSTGRES_TIME = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.\d{1,6})?[+-](\d\d)(?::\d\d){0,2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether `at` is a time PostgreSQL could have given out. A forged cursor reaches `::timestamptz`
 * otherwise, where a month 13 or a year 0 (PostgreSQL has none) is an error of the server's.
 */
function isPostgresTime(at: string): boolean {
  const fields = POSTGRES_TIME.exec(at)?.slice(1).map(Number);
  if (!fields) return false;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offset = 0] = fields;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return (
    year >= 1 &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    offset <= 15
  );
}

export function decodeCursor(cursor: string | undefined): [string, string] | null {
  if (cursor === undefined) return null;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [unknown, unknown];
    if (typeof at === 'string' && typeof id === 'string' && isPostgresTime(at) && UUID.test(id)) {
      return [at, id];
    }
  } catch {}
  return null;
}
