import type { FastifyReply, FastifyRequest } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { App } from './types.js';

/** Deep equality of two JSON values, ignoring key order. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  return (
    keysA.length === keysB.length &&
    keysA.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

function schemaFor(request: FastifyRequest, reply: FastifyReply): z.ZodType | undefined {
  const responses = request.routeOptions.schema?.response as
    | Record<string, z.ZodType | { content: Record<string, { schema: z.ZodType }> }>
    | undefined;
  const declared = responses?.[String(reply.statusCode)];
  return declared && 'content' in declared ? declared.content['application/json']?.schema : declared;
}

interface Document {
  servers: { url: string }[];
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
}

/**
 * The media types that the document declares for this answer's status: null when it does not
 * declare the status, undefined when the route is not in the document.
 */
function declaredMediaTypes(
  document: Document,
  request: FastifyRequest,
  status: number,
): string[] | null | undefined {
  const base = document.servers[0]?.url === '/' ? '' : (document.servers[0]?.url ?? '');
  const url = request.routeOptions.url;
  if (url === undefined || !url.startsWith(base)) return undefined;
  const path = (url.slice(base.length) || '/').replace(/:(\w+)/g, '{$1}');
  const operation = document.paths[path]?.[request.method.toLowerCase()];
  if (!operation) return undefined;
  const response = operation.responses[String(status)];
  return response ? Object.keys(response.content ?? {}) : null;
}

/**
 * Checks every answer against its route's response schema: objects through zod's serializer, and
 * JSON text that PostgreSQL built by parsing it, with no key more or less than the schema allows.
 * For tests and for `SVC_VALIDATE_RESPONSES=1`; production answers are plain `JSON.stringify`.
 */
export function registerResponseCheck(app: App): void {
  app.setSerializerCompiler(serializerCompiler);
  // The OpenAPI document must tell the truth too: every answer of a documented operation has a
  // status that the operation declares, with a declared media type (errors: problem+json).
  app.addHook('onSend', async (request, reply, payload) => {
    const mediaTypes = declaredMediaTypes(app.swagger() as unknown as Document, request, reply.statusCode);
    const sent = String(reply.getHeader('content-type') ?? '').split(';')[0] ?? '';
    if (mediaTypes === undefined) return payload;
    const declared = mediaTypes?.includes(sent) || (mediaTypes?.length === 0 && payload === undefined);
    if (!declared) {
      throw new Error(
        `answer ${reply.statusCode} ${sent} of ${request.method} ${request.routeOptions.url} is not in the OpenAPI document`,
      );
    }
    return payload;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload !== 'string' || reply.statusCode >= 300) return payload;
    if (!String(reply.getHeader('content-type')).startsWith('application/json')) return payload;
    const schema = schemaFor(request, reply);
    if (!schema) return payload;
    const sent = JSON.parse(payload);
    const result = schema.safeParse(sent);
    if (!result.success || !sameJson(result.data, sent)) {
      const issues = result.success ? 'keys outside the schema' : JSON.stringify(result.error.issues);
      throw new Error(`answer of ${request.method} ${request.routeOptions.url} breaks its schema: ${issues}`);
    }
    return payload;
  });
}
