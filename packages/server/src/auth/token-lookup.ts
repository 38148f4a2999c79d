import type { FastifyBaseLogger } from 'fastify';
import type pg from 'pg';
import { listenToChannels } from '../db/notifications.js';

/** Revocations are announced on this channel (payload: the token id), so every replica forgets them. */
export const TOKEN_CHANNEL = 'svc_token_changes';

export interface KnownToken {
  id: string;
  name: string;
  orgId: string;
  orgSlug: string;
  scopes: string[];
  expiresAt: number | null;
  revoked: boolean;
  /** When this process last wrote `last_used_at`, in ms. */
  usedAt: number;
}

export interface TokenLookup {
  find(hash: Buffer): Promise<KnownToken | null>;
  /** Records that a token authenticated a request: at most one write a minute per token. */
  recordUse(token: KnownToken): void;
  /** Drops a token from this process's cache at once; other replicas hear of it through NOTIFY. */
  forget(tokenId: string): void;
  close(): Promise<void>;
}

const LOOKUP = `
  SELECT t.id, t.name, t.org_id, o.slug AS org_slug, t.scopes, t.expires_at, t.revoked_at IS NOT NULL AS revoked,
         COALESCE(t.last_used_at, 'epoch') AS last_used_at
    FROM api_tokens t JOIN orgs o ON o.id = t.org_id
   WHERE t.token_hash = $1`;

const MAX_ENTRIES = 10_000;
const USE_RECORD_INTERVAL_MS = 60_000;

/**
 * Token lookups with a short-lived cache, so that an authenticated request costs no extra round
 * trip. The cache is only used while this process LISTENs for revocations: a replica that lost its
 * listening connection goes back to reading every token from the database until it reconnects.
 * `ttlMs` bounds staleness even for a notification lost in flight.
 */
export async function createTokenLookup(
  pool: pg.Pool,
  log: FastifyBaseLogger,
  ttlMs = 10_000,
): Promise<TokenLookup> {
  const cache = new Map<string, { token: KnownToken; fetchedAt: number }>();
  const hashById = new Map<string, string>();
  // Bumped by every revocation heard: a lookup that started before one must not cache what it read.
  let generation = 0;
  const forgetLocally = (tokenId: string) => {
    generation++;
    const hash = hashById.get(tokenId);
    if (hash) cache.delete(hash);
    hashById.delete(tokenId);
  };
  const listener = await listenToChannels(pool, log, {
    channels: [TOKEN_CHANNEL],
    what: 'token revocations',
    onNotification: (_channel, tokenId) => {
      if (tokenId) forgetLocally(tokenId);
    },
    onStateChange: (listening) => {
      // Revocations may have been missed while not listening: nothing cached can be trusted.
      if (listening) return;
      generation++;
      cache.clear();
      hashById.clear();
    },
  });

  const recordUse = (token: KnownToken) => {
    const now = Date.now();
    if (now - token.usedAt < USE_RECORD_INTERVAL_MS) return;
    token.usedAt = now;
    pool
      .query('UPDATE api_tokens SET last_used_at = now() WHERE id = $1', [token.id])
      .catch((error: Error) => log.warn({ err: error }, 'could not record token use'));
  };

  return {
    async find(hash) {
      const key = hash.toString('hex');
      const started = generation;
      const cached = cache.get(key);
      if (cached && listener.listening && Date.now() - cached.fetchedAt < ttlMs) return cached.token;
      const { rows } = await pool.query<{
        id: string;
        name: string;
        org_id: string;
        org_slug: string;
        scopes: string[];
        expires_at: Date | null;
        revoked: boolean;
        last_used_at: Date;
      }>(LOOKUP, [hash]);
      const row = rows[0];
      if (!row) return null;
      const token: KnownToken = {
        id: row.id,
        name: row.name,
        orgId: String(row.org_id),
        orgSlug: row.org_slug,
        scopes: row.scopes,
        expiresAt: row.expires_at ? row.expires_at.getTime() : null,
        revoked: row.revoked,
        usedAt: row.last_used_at.getTime(),
      };
      if (listener.listening && generation === started) {
        if (cache.size >= MAX_ENTRIES) {
          const [oldestKey, oldest] = cache.entries().next().value as [string, { token: KnownToken }];
          cache.delete(oldestKey);
          hashById.delete(oldest.token.id);
        }
        cache.set(key, { token, fetchedAt: Date.now() });
        hashById.set(token.id, key);
      }
      return token;
    },
    recordUse,
    forget: forgetLocally,
    close: () => listener.close(),
  };
}
