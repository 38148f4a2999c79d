import fastifySwagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import type { FastifySchema, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { problemResponse } from './common.js';
import { docsHeaders } from './docs-headers.js';
import { withRequestExamples } from './openapi-examples.js';
import type { App, HttpOptions } from './types.js';

const SCHEMA_REF = '#/components/schemas/';

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

type Responses = Record<string, { content?: Record<string, { example?: unknown }> }>;

/** The converter keeps a response's schemas but not the example beside one: put it back. */
function keepResponseExamples(declared: unknown, converted: unknown): void {
  for (const [status, answer] of Object.entries((declared ?? {}) as Responses)) {
    for (const [type, media] of Object.entries(answer?.content ?? {})) {
      const target = (converted as Responses | undefined)?.[status]?.content?.[type];
      if (media.example !== undefined && target) target.example = media.example;
    }
  }
}

type Schemas = Record<string, unknown>;

type BodyOperation = { requestBody?: { required?: boolean; content?: Record<string, { schema?: unknown }> } };

/**
 * A body that may be null may be left out too (`noBody`, a revoke's optional reason): the converter
 * marks every body required, and a generated client would then make every caller send one.
 */
function withOptionalBodies(paths: Record<string, Record<string, BodyOperation>>): void {
  for (const operation of Object.values(paths).flatMap((methods) => Object.values(methods))) {
    const schema = operation.requestBody?.content?.['application/json']?.schema as
      | { anyOf?: { type?: unknown }[] }
      | undefined;
    if (operation.requestBody && schema?.anyOf?.some((branch) => branch.type === 'null')) {
      operation.requestBody.required = false;
    }
  }
}

/** Replaces every `{$ref: <target>}` inside `value` with `{}` (any value). */
function withoutRef(value: unknown, target: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutRef(v, target));
  if (value === null || typeof value !== 'object') return value;
  if ((value as { $ref?: unknown }).$ref === target) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutRef(v, target)]));
}

/**
 * A union that refers to itself (a config value is a list or table of config values) cannot be a
 * TypeScript type alias, so openapi-typescript's output does not compile and a generated client
 * refuses every platform config. The document describes one level and leaves deeper values open;
 * the server still checks every level.
 */
function withoutSelfReferences(schemas: Schemas): Schemas {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, withoutRef(schema, `${SCHEMA_REF}${name}`)]),
  );
}

/** Only the components that some operation refers to, directly or through another component. */
function referencedOnly(schemas: Schemas, paths: unknown): Schemas {
  const refsIn = (value: unknown) =>
    [...JSON.stringify(value).matchAll(/"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1] as string);
  const kept = new Set<string>();
  const pending = refsIn(paths);
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (kept.has(name) || !(name in schemas)) continue;
    kept.add(name);
    pending.push(...refsIn(schemas[name]));
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => kept.has(name)));
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
      // One a domain, each operation under the one it belongs to (the openapi tests hold every
      // operation to a tag declared here).
      tags: [
        { name: 'messages', description: 'Send messages to agents, read their replies and files' },
        { name: 'conversations', description: "An agent's conversations, their messages and live events" },
        { name: 'approvals', description: 'Tool calls and action runs that wait for a decision' },
        { name: 'agents', description: 'Agents and their settings' },
        { name: 'platforms', description: 'Chat platforms of an agent' },
        { name: 'webhooks', description: 'What chat platforms call: messages in, subscription checks' },
        { name: 'connectors', description: 'Connector packages installed in an org' },
        {
          name: 'connections',
          description: 'Connections of a connector to an account, their credentials and sessions',
        },
        { name: 'feeds', description: "A connection's feeds: their config and syncs" },
        { name: 'auth runs', description: 'Interactive sign-ins of a connection, streamed' },
        { name: 'runs', description: 'Sync, action, watcher and auth runs, their logs and decisions' },
        { name: 'events', description: 'Events the feeds collected' },
        { name: 'search', description: 'Full-text search over events' },
        { name: 'entities', description: 'Entities the connectors linked events to' },
        { name: 'relationships', description: 'Typed links between entities' },
        { name: 'memory', description: 'Entity types and relationship types of an org' },
        {
          name: 'watchers',
          description: 'Watchers: an agent reading new events on a schedule, and their windows',
        },
        { name: 'apply', description: 'What the latest `svc apply` declared' },
        { name: 'secrets', description: 'Org secrets that settings and platforms refer to' },
        { name: 'tokens', description: "API tokens and the caller's identity" },
        { name: 'sessions', description: 'Console sign-in sessions' },
        { name: 'orgs', description: 'Orgs of the deployment' },
        { name: 'operations', description: 'Health, readiness and metrics' },
      ],
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
    transformObject: (input) => {
      const document = jsonSchemaTransformObject(input) as {
        components?: { schemas?: Schemas };
        paths?: unknown;
      };
      const schemas = withoutSelfReferences(document.components?.schemas ?? {});
      withRequestExamples(document.paths as Parameters<typeof withRequestExamples>[0]);
      withOptionalBodies(document.paths as Parameters<typeof withOptionalBodies>[0]);
      return {
        ...document,
        components: { ...document.components, schemas: referencedOnly(schemas, document.paths) },
      } as ReturnType<typeof jsonSchemaTransformObject>;
    },
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
