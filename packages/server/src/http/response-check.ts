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
  const responses = request.routeOptions.schema?.response as Record<string, z.ZodType> | undefined;
  return responses?.[String(reply.statusCode)];
}

/**
 * Checks every answer against its route's response schema: objects through zod's serializer, and
 * JSON text that PostgreSQL built by parsing it, with no key more or less than the schema allows.
 * For tests and for `SVC_VALIDATE_RESPONSES=1`; production answers are plain `JSON.stringify`.
 */
export function registerResponseCheck(app: App): void {
  app.setSerializerCompiler(serializerCompiler);
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
