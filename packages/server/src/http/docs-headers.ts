import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Inline scripts of the reference page (its configuration): allowed by their hash, nothing else. */
const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;

function scriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)].map(
    (m) =>
      `'sha256-${createHash('sha256')
        .update(m[1] ?? '')
        .digest('base64')}'`,
  );
}

/**
 * Headers of the API reference's answers: the page runs only this server's script and its own
 * inline configuration, talks only to this server, and is shown in no other site's frame. Styles
 * stay `unsafe-inline`: the reference sets them at run time.
 */
export async function docsHeaders(_request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const html = typeof payload === 'string' && /^text\/html/.test(String(reply.getHeader('content-type')));
  const policy = [
    "default-src 'none'",
    ["script-src 'self'", ...(html ? scriptHashes(payload) : [])].join(' '),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ];
  reply.header('content-security-policy', policy.join('; '));
  reply.header('x-frame-options', 'DENY');
  reply.header('x-content-type-options', 'nosniff');
  // Public and the same for everyone: unlike the API's answers, a browser may keep it a while.
  reply.header('cache-control', 'public, max-age=300');
  return payload;
}
