import { z } from 'zod';

/** Stable machine codes of `application/problem+json` answers (DESIGN.md section 7). */
export const PROBLEM_CODES = [
  'validation_failed',
  'malformed_json',
  'malformed_multipart',
  'malformed_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'route_not_found',
  'conflict',
  'stable_id_mismatch',
  'stable_id_taken',
  'platform_name_required',
  'unknown_agent',
  'setting_refused',
  'egress_refused',
  'token_name_taken',
  'idempotency_key_reused',
  'secret_reserved',
  // Posted connector source, on a host where the OS sandbox cannot start.
  'sandbox_unavailable',
  'payload_too_large',
  'uri_too_long',
  'request_header_too_large',
  'request_timeout',
  'unsupported_media_type',
  'rate_limited',
  'database_unavailable',
  'shutting_down',
  'internal_error',
  // A chat platform's webhook call that is not the platform's (401), or its verify token (403).
  'webhook_signature_missing',
  'webhook_signature_invalid',
  'webhook_signature_stale',
  'webhook_verify_token_invalid',
  // Why a turn failed (a message's `error`).
  'no_provider',
  'secret_missing',
  'model_unavailable',
  'turn_abandoned',
  'guardrail_blocked',
  // Why a reply did not reach its chat platform (a message's `deliveryError`).
  'delivery_failed',
  // An OAuth connection whose org has not set the OAuth app's client id or secret.
  'oauth_client_missing',
  // A window asked of a watcher that is paused.
  'watcher_paused',
  // Memory model: a JSON Schema that does not compile, and the checks made with the ones that do.
  'invalid_schema',
  'invalid_metadata',
  'unknown_relationship_type',
  'relationship_not_allowed',
  'relationship_type_in_use',
  // A search whose q has no words to search for (empty, or only common words and punctuation).
  'search_query_empty',
  // A console request that changes something without its session's CSRF token, or from another origin.
  'csrf_failed',
] as const;
export type ProblemCode = (typeof PROBLEM_CODES)[number];

export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int().min(400).max(599),
  detail: z.string(),
  code: z.enum(PROBLEM_CODES),
  errors: z
    .array(
      z.object({ path: z.string().describe('JSON Pointer, e.g. /body/config/token'), message: z.string() }),
    )
    .optional(),
});
export type Problem = z.infer<typeof problemSchema>;
