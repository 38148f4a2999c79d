import fastifySwagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifySchema, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { problemResponse } from './common.js';
import { docsHeaders } from './docs-headers.js';
import { finishDocument, keepResponseExamples, TAGS } from './openapi-document.js';
import type { App, HttpOptions } from './types.js';

/** Methods whose requests Fastify reads a body of, whether or not the route takes one. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Problems that the framework, authentication or the error handler send whatever the route
 * declares; a route's own declarations (its 404, 409, 422, a rate limit's 429) take precedence.
 */
function answersOfEveryRoute(route: RouteOptions, schema: FastifySchema) {
  const isPublic = route.config?.auth === 'public';
  const validated = schema.params || schema.querystring || schema.headers || schema.body;
  const methods = [route.method].flat();
  // A DELETE takes no body, but one sent anyway is read (and refused) like any other.
  const readsBody = schema.body || methods.some((method) => BODY_METHODS.has(method));
  return {
    ...(validated ? { 400: problemResponse('The request is not valid') } : {}),
    ...(readsBody
      ? {
          413: problemResponse('The body is larger than the limit'),
          415: problemResponse('The body is not `application/json`'),
        }
      : {}),
    ...(route.url.includes(':')
      ? { 414: problemResponse('A segment of the path is longer than 1000 characters') }
      : {}),
    // Node's parser answers it before any route runs, for every URL.
    431: problemResponse('The request line and headers are larger than 16 KiB'),
    500: problemResponse('The server failed; the error is in its log'),
    // Authentication looks tokens up in the database, and throttles an address that keeps failing.
    ...(isPublic
      ? {}
      : { 429: problemResponse('Too many failed authentications from this address; see Retry-After') }),
    503: problemResponse('The database is unreachable, or this server is shutting down; retry shortly'),
  };
}

/**
 * The route schemas are the document. Registered before the routes so that it sees each one; the
 * document lists paths without the mount prefix, which is the `servers` URL instead.
 */
export async function registerOpenApi(
  app: App,
  options: Pick<HttpOptions, 'basePath' | 'version'>,
): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc API',
        version: options.version ?? '0.1.0',
        description:
          'The svc gateway: orgs and tokens, agents and their settings, chat platforms, the memory schema. ' +
          'Every error is `application/problem+json` with a stable `code`.',
      },
      servers: [{ url: options.basePath || '/' }],
      // Every operation also says so itself: the public ones with `security: []`.
      security: [{ bearerAuth: [] }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API token (`svc_...`) or, on a local deployment, the admin password',
          },
        },
      },
      tags: TAGS,
    },
    transform: (input) => {
      const { schema, route } = input;
      const documented = schema && !schema.hide;
      const out = jsonSchemaTransform(
        documented
          ? {
              ...input,
              schema: {
                ...schema,
                response: { ...answersOfEveryRoute(route, schema), ...(schema.response as object) },
              },
            }
          : input,
      );
      if (documented) {
        keepResponseExamples(schema.response, out.schema.response);
        const isPublic = route.config?.auth === 'public';
        const documentedSchema = out.schema as Record<string, unknown>;
        documentedSchema.security = isPublic ? [] : [{ bearerAuth: [] }];
        // A route that also takes multipart says so with its own body: the fields and the files.
        const multipart = route.config?.multipartBody;
        if (multipart && documentedSchema.body) {
          documentedSchema.body = {
            content: {
              'application/json': { schema: documentedSchema.body },
              'multipart/form-data': { schema: multipart },
            },
          };
        }
      }
      return out;
    },
    transformObject: (input) =>
      finishDocument(jsonSchemaTransformObject(input) as never) as ReturnType<
        typeof jsonSchemaTransformObject
      >,
  });
}

export async function registerDocs(
  app: App,
  options: Pick<HttpOptions, 'basePath' | 'version'>,
): Promise<void> {
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json').serializer(JSON.stringify).send(app.swagger()),
  );
  await app.register(async (docs) => {
    // The reference's own routes (page, script) are public documentation.
    docs.addHook('onRoute', (route) => {
      route.config = { ...(route.config ?? {}), auth: 'public' };
    });
    docs.addHook('onSend', docsHeaders);
    await docs.register(scalar, {
      routePrefix: '/docs',
      logLevel: 'warn',
      configuration: {
        url: `${options.basePath}/openapi.json`,
        title: 'svc API reference',
        withDefaultFonts: false,
        hideClientButton: true,
        // A self-hosted reference: no hosted AI chat, MCP generator or toolbar that call out.
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
      },
    });
  });
}
