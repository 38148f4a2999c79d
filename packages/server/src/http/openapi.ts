import fastifySwagger from '@fastify/swagger';
import scalar from '@scalar/fastify-api-reference';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { docsHeaders } from './docs-headers.js';
import type { App, AppOptions } from './types.js';

/**
 * The route schemas are the document. Registered before the routes so that it sees each one; the
 * document lists paths without the mount prefix, which is the `servers` URL instead.
 */
export async function registerOpenApi(app: App, options: AppOptions): Promise<void> {
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
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API token (`svc_...`) or, on a local deployment, the admin password',
          },
        },
      },
      tags: [
        { name: 'messages', description: 'Send messages to agents' },
        { name: 'agents', description: 'Agents and their settings' },
        { name: 'platforms', description: 'Chat platforms of an agent' },
        { name: 'memory', description: 'Entity types, relationship types and watchers' },
        { name: 'tokens', description: "API tokens and the caller's identity" },
        { name: 'orgs', description: 'Orgs of the deployment' },
        { name: 'operations', description: 'Health and metrics' },
      ],
    },
    transform: (input) => {
      const out = jsonSchemaTransform(input);
      const auth = input.route.config?.auth;
      if (auth !== undefined && auth !== 'public') {
        (out.schema as Record<string, unknown>).security = [{ bearerAuth: [] }];
      }
      return out;
    },
    transformObject: jsonSchemaTransformObject,
  });
}

export async function registerDocs(app: App, options: AppOptions): Promise<void> {
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
