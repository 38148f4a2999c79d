import type { FastifyReply, FastifyRequest } from 'fastify';
import { AUTH_FAILURES_PER_MINUTE } from '../auth/authenticate.js';
import { clientKey, createAuthThrottle } from '../auth/throttle.js';
import { ProblemError } from '../http/problem.js';
import { WebhookRefusedError } from './inbound.js';

/** How a platform proves a call is its own. */
export type Proof =
  /** An HMAC of the body (Slack, WhatsApp): a forged one cannot be guessed, whatever the budget. */
  | 'signature'
  /** A secret sent as it is (Telegram's secret token, WhatsApp's verify token): people choose it, so it can be guessed. */
  | 'shared_secret';

/**
 * Refused webhook calls, throttled like failed bearer values (auth/throttle.ts,
 * SVC_AUTH_FAILURES_PER_MINUTE), counted per client address and platform: Telegram's and Meta's
 * servers call for every bot from the same addresses, so one misconfigured platform, or someone
 * pointing their own bot at another's URL, must not lock the others out. Over the budget a call
 * that carries a shared secret is answered 429 unchecked, so that guesses go no faster than the
 * budget; a call signed with an HMAC is still checked and taken when it is right (a valid HMAC
 * is not guessed), so the platform's own calls from a busy address are never held up.
 */
export function createWebhookThrottle(perMinute = AUTH_FAILURES_PER_MINUTE) {
  const throttle = createAuthThrottle(perMinute);

  const rateLimited = (reply: FastifyReply, stableId: string, wait: number) => {
    reply.header('retry-after', String(wait));
    return new ProblemError(
      429,
      'rate_limited',
      `too many refused calls to platform "${stableId}" from this address; try again in ${wait} s`,
    );
  };

  return {
    /**
     * Runs `check` (which throws WebhookRefusedError for a call that is not the platform's): a
     * refusal is counted and answered 401 (`status`), or 429 once the client is over its budget.
     */
    guard<T>(
      request: FastifyRequest,
      reply: FastifyReply,
      stableId: string,
      proof: Proof,
      check: () => T,
      status: 401 | 403 = 401,
    ): T {
      const client = `${clientKey(request.ip)} ${stableId}`;
      const wait = throttle.retryAfter(client);
      if (wait > 0 && proof === 'shared_secret') throw rateLimited(reply, stableId, wait);
      try {
        return check();
      } catch (error) {
        if (!(error instanceof WebhookRefusedError)) throw error;
        if (wait > 0) throw rateLimited(reply, stableId, wait);
        throttle.fail(client);
        throw new ProblemError(status, error.code, error.message);
      }
    },
  };
}

export type WebhookThrottle = ReturnType<typeof createWebhookThrottle>;
