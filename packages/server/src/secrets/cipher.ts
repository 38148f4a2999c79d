import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM under SVC_ENCRYPTION_KEY, for every value the server keeps that it must be able to
 * read back (org secrets, connector credentials). Layout: version (1 byte), IV (12), tag (16),
 * ciphertext. `context` is authenticated, not stored: it binds a value to its row (org and name),
 * so a ciphertext copied into another org's row fails to open instead of leaking there.
 */
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function seal(key: Buffer, plaintext: string, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
}

/** Throws when the value was sealed under another key or context, or was changed. */
export function unseal(key: Buffer, sealed: Buffer, context: string): string {
  if (sealed[0] !== VERSION || sealed.length < 1 + IV_BYTES + TAG_BYTES) {
    throw new Error('sealed value has an unknown format');
  }
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(Buffer.from(context, 'utf8'));
  decipher.setAuthTag(tag);
  return Buffer.concat([
    decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)),
    decipher.final(),
  ]).toString('utf8');
}
