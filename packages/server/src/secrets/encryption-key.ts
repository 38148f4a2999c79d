import { createHmac } from 'node:crypto';
import type { Pool } from 'pg';

/** A 32-byte key for AES-256-GCM, given as 64 hex digits or base64 / base64url. */
export function parseEncryptionKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed)
    ? Buffer.from(trimmed, 'hex')
    : Buffer.from(trimmed, 'base64url');
  if (key.length !== 32) {
    throw new Error(
      'SVC_ENCRYPTION_KEY must be 32 bytes, written as 64 hex digits or base64 (e.g. `openssl rand -base64 32`)',
    );
  }
  return key;
}

/**
 * Records which key the database was set up with, and refuses to start with another: credentials
 * encrypted under one key are unreadable under a second, and a replica with a stray key would
 * write rows that no other replica can read.
 */
export async function checkEncryptionKey(pool: Pool, key: Buffer): Promise<void> {
  const fingerprint = createHmac('sha256', key).update('svc encryption key check').digest('hex').slice(0, 32);
  // Two statements: a replica that loses the insert race must see the winner's row, which a
  // second snapshot does and the insert's own does not.
  await pool.query(
    "INSERT INTO deployment (key, value) VALUES ('encryption_key_fingerprint', $1) ON CONFLICT (key) DO NOTHING",
    [fingerprint],
  );
  const { rows } = await pool.query<{ value: string }>(
    "SELECT value FROM deployment WHERE key = 'encryption_key_fingerprint'",
  );
  if (rows.some((row) => row.value !== fingerprint)) {
    throw new Error(
      'SVC_ENCRYPTION_KEY is not the key this database was set up with; start with the original key',
    );
  }
}
