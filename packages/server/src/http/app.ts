import { JSON_BODY_LIMIT_BYTES } from '@svc/core';
import Fastify from 'fastify';
import { answerClientError, registerErrorHandling } from './errors.js';
import { registerJsonBody } from './json-body.js';
import { registerOpenApi } from './openapi.js';
import { problemBody, sendProblem } from './problem.js';
import { requestLogger } from './request-log.js';
import { registerResponseCheck } from './response-check.js';
import type { App, HttpOptions, RouteAuth } from './types.js';
import { validatorCompiler } from './validation.js';

export interface RegisteredRoute {
  method: string;
  url: string;
  auth: RouteAuth | undefined;
}

/**
 * The HTTP plumbing every route runs in, not yet listening and with no route of any domain: error
 * and problem answers, JSON bodies, request logs, shutdown hooks, the OpenAPI document, and the
 * check that every route declares its auth. `../app.ts` registers the domains on it. `routes` is
 * the route table the auth matrix tests.
 */
export async function createHttpApp(
  options: HttpOptions,
): Promise<{ app: App; routes: () => RegisteredRoute[] }> {
  const app = Fastify({
    ...(options.logger ? { loggerInstance: requestLogger(options.logger) } : { logger: false }),
    bodyLimit: options.bodyLimit ?? JSON_BODY_LIMIT_BYTES,
    // Requests are traced by id in the logs; clients may bring their own.
    requestIdHeader: 'x-request-id',
    // Requests that reach a closing server get our own 503 problem (the hook below), not Fastify's body.
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // The client's address, for the failed-authentication throttle, when a proxy is in front.
    trustProxy: options.trustProxy ?? false,
    // Requests Node's HTTP parser refuses (headers over 16 KiB, bytes that are not HTTP) get a problem too.
    clientErrorHandler: answerClientError,
    // Above every route's own parameter limit, so that the route schemas answer with a field error.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // URLs the router refuses before any route runs (bad percent-encoding, too long) get a problem too.
    // The detail never echoes the URL: it may be 16 KiB long, or carry what the caller should not see again.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode ?? 400;
      if (status === 414) {
        sendProblem(
          reply,
          problemBody(414, 'uri_too_long', 'a segment of the URL path is longer than 1000 characters'),
        );
        return;
      }
      sendProblem(
        reply,
        problemBody(
          status,
          'validation_failed',
          'the URL is not valid: a %-escape in it does not decode to UTF-8',
        ),
      );
    },
  }).withTypeProvider() as unknown as App;
  app.setValidatorCompiler(validatorCompiler);
  // Handlers build answers whose types the compiler checks; tests also check them against the schemas.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  if (options.validateResponses) registerResponseCheck(app);
  // JSON only: any other content type is a 415 rather than a string handed to a JSON schema.
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);

  // Route options are collected as objects: a child plugin's onRoute hook (the docs) may still set
  // `auth` on them after the parent's hook has run, so they are read only once the app is ready.
  const declared: { method: string | string[]; url: string; config?: { auth?: RouteAuth } }[] = [];
  app.addHook('onRoute', (route) => {
    declared.push(route as (typeof declared)[number]);
  });
  const routes = (): RegisteredRoute[] =>
    declared.flatMap((route) =>
      [route.method].flat().map((method) => ({ method, url: route.url, auth: route.config?.auth })),
    );
  app.addHook('onReady', async () => {
    const missing = routes().filter((r) => r.auth === undefined);
    if (missing.length > 0) {
      throw new Error(
        `routes without an auth declaration: ${missing.map((r) => `${r.method} ${r.url}`).join(', ')}`,
      );
    }
  });

  // A keep-alive connection whose request finishes during shutdown would otherwise hold close()
  // open until its idle timeout; telling the client to close it lets shutdown end with the request.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // A request that arrives while the server drains starts no work: a load balancer or the client
  // retries it on another replica. Registered before authentication, so it costs no lookup.
  app.addHook('onRequest', async (_request, reply) => {
    if (!closing) return;
    reply.header('retry-after', '1');
    return sendProblem(
      reply,
      problemBody(
        503,
        'shutting_down',
        'this server is shutting down; retry the request (on another replica)',
      ),
    );
  });
  app.addHook('onSend', async (_request, reply) => {
    if (closing) reply.header('connection', 'close');
    // Answers carry private data and, once, a token's secret: no cache on the way may keep them.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    reply.header('x-content-type-options', 'nosniff');
  });

  registerErrorHandling(app);
  await registerOpenApi(app, options);
  return { app, routes };
}
