import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Scope } from '@svc/core';

export const TOKEN_PREFIX = 'svc_';
/** `svc_` + base64url of 32 random bytes. */
const TOKEN_SHAPE = /^svc_[A-Za-z0-9_-]{43}$/;

export function newTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function newTokenId(): string {
  return `tok_${randomBytes(9).toString('base64url')}`;
}

export function isWellFormedToken(value: string): boolean {
  return TOKEN_SHAPE.test(value);
}

export function hashToken(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Compares digests, so neither the length nor the content of the password leaks through timing. */
export function matchesPassword(candidateDigest: Buffer, passwordDigest: Buffer): boolean {
  return timingSafeEqual(candidateDigest, passwordDigest);
}

/** admin implies every scope; write implies read. */
export function expandScopes(scopes: readonly string[]): Set<Scope> {
  const out = new Set<Scope>(scopes as Scope[]);
  if (out.has('admin')) for (const s of ['read', 'write', 'messages'] as const) out.add(s);
  if (out.has('write')) out.add('read');
  return out;
}
