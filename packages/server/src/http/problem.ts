import type { Problem, ProblemCode } from '@svc/core';
import type { FastifyReply } from 'fastify';

export type ProblemDetail = Problem['errors'];

const TITLES: Record<ProblemCode, string> = {
  validation_failed: 'The request is not valid',
  malformed_json: 'The body is not valid JSON',
  malformed_multipart: 'The body is not valid multipart/form-data',
  malformed_request: 'The request is not valid HTTP',
  unauthorized: 'Authentication required',
  forbidden: 'Not allowed',
  not_found: 'Not found',
  route_not_found: 'No such route',
  conflict: 'Conflict',
  stable_id_mismatch: 'Stable ID does not match the platform',
  stable_id_taken: 'Stable ID is taken',
  platform_name_required: 'Platform name required',
  unknown_agent: 'Unknown agent',
  setting_refused: 'This server refuses the setting',
  egress_refused: 'Outbound address refused',
  token_name_taken: 'Token name is taken',
  idempotency_key_reused: 'Idempotency key reused with another body',
  secret_reserved: 'Reference to a reserved name',
  sandbox_unavailable: 'The OS sandbox for connector code cannot start on this server',
  payload_too_large: 'Payload too large',
  uri_too_long: 'URI too long',
  request_header_too_large: 'Request header fields too large',
  request_timeout: 'Request timeout',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  database_unavailable: 'Database unavailable',
  shutting_down: 'Shutting down',
  internal_error: 'Internal error',
  webhook_signature_missing: 'Webhook call not signed',
  webhook_signature_invalid: 'Webhook signature does not match',
  webhook_signature_stale: 'Webhook call too old',
  webhook_verify_token_invalid: 'Wrong verify token',
  no_provider: 'No model provider',
  secret_missing: 'Secret missing',
  model_unavailable: 'No model answered',
  turn_abandoned: 'Turn abandoned',
  guardrail_blocked: "Refused by the agent's guardrails",
  delivery_failed: 'Reply not delivered',
  oauth_client_missing: 'OAuth client not set up',
  watcher_paused: 'Watcher paused',
  invalid_schema: 'Not a valid JSON Schema',
  invalid_metadata: 'Metadata does not match the schema',
  unknown_relationship_type: 'Unknown relationship type',
  relationship_not_allowed: "Not allowed by the relationship type's rules",
  relationship_type_in_use: 'Relationship type in use',
  search_query_empty: 'Nothing to search for',
  csrf_failed: 'Cross-site request refused',
};

/**
 * An error that becomes an RFC 9457 problem answer. Thrown anywhere in a handler; the error
 * handler turns it into `application/problem+json`.
 */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: ProblemCode,
    readonly detail: string,
    readonly errors?: ProblemDetail,
  ) {
    super(detail);
    this.name = 'ProblemError';
  }
}

export function problemBody(
  status: number,
  code: ProblemCode,
  detail: string,
  errors?: ProblemDetail,
): Problem {
  return {
    // A URN, not a URL on a domain we would have to keep serving: the `code` is what clients match.
    type: `urn:svc:problem:${code}`,
    title: TITLES[code],
    status,
    detail,
    code,
    ...(errors && errors.length > 0 ? { errors } : {}),
  };
}

export function sendProblem(reply: FastifyReply, problem: Problem): FastifyReply {
  if (problem.status === 401) reply.header('www-authenticate', 'Bearer realm="svc"');
  // Also here, not only in the app's onSend hook: errors found before routing skip the hooks.
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  reply.header('x-content-type-options', 'nosniff');
  return reply.code(problem.status).type('application/problem+json').serializer(JSON.stringify).send(problem);
}

export const notFound = (what: string) => new ProblemError(404, 'not_found', `${what} does not exist`);
