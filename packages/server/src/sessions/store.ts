import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';
import { hashToken } from '../auth/tokens.js';
import type { OrgRef } from '../http/types.js';

/** How long a console session lasts from sign-in, whatever its use: a day's work. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/**
 * The cookie that carries a session's secret. Over HTTPS it takes the prefix that keeps another
 * host (a sibling subdomain, a plain-HTTP man in the middle) from planting one: `__Host-` when
 * the console is at the root, `__Secure-` under a base path (`__Host-` requires `Path=/`).
 */
export function sessionCookieName(secure: boolean, basePath: string): string {
  if (!secure) return 'svc_session';
  return basePath === '' ? '__Host-svc_session' : '__Secure-svc_session';
}

/** How many session cookies a Cookie header carries, whatever their prefix: more than one is refused. */
export function sessionCookieCount(header: string | undefined): number {
  return header?.match(/(?:^|;)\s*(?:__Host-|__Secure-)?svc_session=/g)?.length ?? 0;
}

export interface Session {
  id: string;
  kind: 'token' | 'admin_password';
  csrfToken: string;
  org: OrgRef;
  expiresAt: Date;
  /** The token's own record, for a token's session; `null` for the admin password's. */
  token: { id: string; name: string; scopes: string[] } | null;
}

interface SessionRow {
  id: string;
  kind: 'token' | 'admin_password';
  csrf_token: string;
  org_id: string;
  org_slug: string;
  expires_at: Date;
  password_check: Buffer | null;
  token_id: string | null;
  token_name: string | null;
  token_scopes: string[] | null;
}

/**
 * What an admin session keeps of the password it was opened with, so that a changed password
 * ends those sessions: an HMAC under the deployment's encryption key, which the database does not
 * hold, so that a copy of the table is no way to test guesses at the password.
 */
export function passwordCheck(encryptionKey: Buffer, passwordDigest: Buffer): Buffer {
  return createHmac('sha256', encryptionKey).update('svc-console-session\0').update(passwordDigest).digest();
}

const toSession = (row: SessionRow): Session => ({
  id: row.id,
  kind: row.kind,
  csrfToken: row.csrf_token,
  org: { id: String(row.org_id), slug: row.org_slug },
  expiresAt: row.expires_at,
  token:
    row.token_id === null
      ? null
      : { id: row.token_id, name: row.token_name ?? '', scopes: row.token_scopes ?? [] },
});

const SELECT = `
  SELECT s.id, s.kind, s.csrf_token, s.org_id, o.slug AS org_slug, s.expires_at, s.password_check,
         t.id AS token_id, t.name AS token_name, t.scopes AS token_scopes
    FROM console_sessions s
    JOIN orgs o ON o.id = s.org_id
    LEFT JOIN api_tokens t ON t.id = s.api_token_id`;

/**
 * The live session a cookie's value opens, or null: unknown, signed out, expired, its token
 * revoked or expired, or (an admin session) opened with a password that is no longer the admin
 * password.
 */
export async function findSession(
  pool: Pool,
  secret: string,
  adminPasswordCheck: Buffer | null,
): Promise<Session | null> {
  const { rows } = await pool.query<SessionRow>(
    `${SELECT}
      WHERE s.secret_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
        AND (s.kind = 'admin_password'
             OR (t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())))`,
    [hashToken(secret)],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.kind === 'admin_password') {
    if (adminPasswordCheck === null || row.password_check === null) return null;
    if (!timingSafeEqual(row.password_check, adminPasswordCheck)) return null;
  }
  return toSession(row);
}

export interface NewSession {
  kind: 'token' | 'admin_password';
  orgId: string;
  apiTokenId: string | null;
  passwordCheck: Buffer | null;
  /** Never beyond the token's own expiry. */
  expiresAt: Date;
}

/** Opens a session; the answer's `secret` goes into the cookie and is kept nowhere else. */
export async function createSession(
  pool: Pool,
  session: NewSession,
): Promise<{ secret: string; session: Session }> {
  const secret = randomBytes(32).toString('base64url');
  const id = `ses_${randomBytes(9).toString('base64url')}`;
  const client = await pool.connect();
  try {
    // Sessions that ended are dropped here, a bounded number at a time, rather than by a timer.
    await client.query(
      `DELETE FROM console_sessions WHERE id IN (
         SELECT id FROM console_sessions WHERE expires_at < now() - interval '1 day' OR revoked_at < now() - interval '1 day'
          LIMIT 100)`,
    );
    await client.query(
      `INSERT INTO console_sessions (id, secret_hash, csrf_token, kind, api_token_id, password_check, org_id, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        id,
        hashToken(secret),
        randomBytes(32).toString('base64url'),
        session.kind,
        session.apiTokenId,
        session.passwordCheck,
        session.orgId,
        session.expiresAt,
      ],
    );
    const { rows } = await client.query<SessionRow>(`${SELECT} WHERE s.id = $1`, [id]);
    return { secret, session: toSession(rows[0] as SessionRow) };
  } finally {
    client.release();
  }
}

/** Signs a session out: its cookie opens nothing from now on, on every replica. */
export async function revokeSession(pool: Pool, id: string): Promise<void> {
  await pool.query('UPDATE console_sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [
    id,
  ]);
}

/** Moves an admin session to another org (the org-less routes act in it). */
export async function moveSession(pool: Pool, id: string, org: OrgRef): Promise<void> {
  await pool.query('UPDATE console_sessions SET org_id = $2 WHERE id = $1', [id, org.id]);
}

/** Whether `given` is the session's CSRF token, compared in constant time. */
export function matchesCsrf(session: Session, given: string | undefined): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(session.csrfToken);
  return a.length === b.length && timingSafeEqual(a, b);
}
