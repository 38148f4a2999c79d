import { countSchema } from '@svc/core';
/**
 * `browser` auth (DESIGN.md section 10, "Auth flows"): a person logs in to the service in a
 * Chromium, and the cookies of the connector's `requiredDomains` are captured, sealed on the
 * connection (`session_state`, bound to org and connection) and handed to its runs as
 * `ctx.sessionState = {cookies}`. Captured over CDP by the server (the URL goes through the egress
 * guard) or uploaded by `svc memory browser-auth`. Cookie values are never answered or logged.
 */
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { getInstall } from '../connectors/queries.js';
import { transaction } from '../db/transaction.js';
import { createEgressClient } from '../egress/client.js';
import type { DeploymentEgress } from '../egress/deployment.js';
import { EgressRefusedError } from '../egress/policy.js';
import { iso, orgParams, problemResponse, problemResponses, recordIdParam } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import {
  CdpReadError,
  keepRequiredCookies,
  MAX_SESSION_COOKIES,
  normaliseDomain,
  readCdpCookies,
  type SessionCookie,
  sessionCookieSchema,
} from './browser-cookies.js';
import { type ConnectionRow, connectionById } from './queries.js';
import { connectionSchema, toConnection } from './routes.js';
import { browserMethodOf, DEFAULT_CDP_URL, storeSession } from './session-store.js';

const sessionFactsSchema = z.object({
  capturedAt: z.string(),
  cookies: countSchema.describe('how many cookies the session holds'),
  domains: z
    .array(z.object({ domain: z.string(), cookies: countSchema }))
    .describe("each of the connector's requiredDomains and how many of its cookies were captured"),
});

export interface BrowserSessionRouteOptions {
  pool: Pool;
  encryptionKey: Buffer;
  /** SVC_EGRESS_ALLOW: a DevTools URL is an address an org wrote. */
  egress: DeploymentEgress;
}

const invalid = (detail: string, errors?: { path: string; message: string }[]) =>
  new ProblemError(422, 'validation_failed', detail, errors);

export function browserSessionRoutes(options: BrowserSessionRouteOptions) {
  return async (app: App) => {
    // A DevTools endpoint is an address an org wrote: its Storage.getCookies answer is held to a
    // size a real browser's comes to (it keeps a cookie to 4 KiB: 2000 of them are 8 MiB), not 128 MiB.
    const egress = createEgressClient({
      policy: options.egress.policy,
      maxWebSocketMessage: 16 * 1024 * 1024,
    });
    app.addHook('onClose', () => egress.close());

    app.get(
      '/api/:org/connections/:connectionId/browser-session',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags: ['connections'],
          operationId: 'getBrowserSession',
          summary:
            "What a `browser` connection's captured session holds: when, and how many cookies of each domain",
          description:
            '`session` is null until one is captured. Never the cookies themselves: their names and values stay sealed.',
          params: orgParams.extend({ connectionId: recordIdParam }),
          response: { 200: z.object({ session: sessionFactsSchema.nullable() }), ...problemResponses },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { connectionId } = request.params;
        if (!(await connectionById(options.pool, org.id, connectionId)))
          throw notFound(`connection ${connectionId}`);
        const { rows } = await options.pool.query<{
          session_captured_at: Date | null;
          session_cookie_counts: Record<string, number> | null;
        }>(
          'SELECT session_captured_at, session_cookie_counts FROM connections WHERE id = $1 AND session_state IS NOT NULL',
          [connectionId],
        );
        const row = rows[0];
        if (!row?.session_captured_at) return { session: null };
        const counts = row.session_cookie_counts ?? {};
        return {
          session: {
            capturedAt: iso(row.session_captured_at),
            cookies: Object.values(counts).reduce((sum, n) => sum + n, 0),
            domains: Object.entries(counts).map(([domain, cookies]) => ({ domain, cookies })),
          },
        };
      },
    );

    app.post(
      '/api/:org/connections/:connectionId/browser-session',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags: ['connections'],
          operationId: 'captureBrowserSession',
          summary: "Capture a `browser` connection's session: the cookies of its connector's requiredDomains",
          description:
            'Either `{cdpUrl}`: the server reads the cookies of a Chromium started with remote debugging ' +
            "(`--remote-debugging-port`) over the Chrome DevTools Protocol; `cdpUrl` defaults to the method's " +
            '`defaultCdpUrl`, else `http://127.0.0.1:9222`. It is an address this org writes, so every connection ' +
            'to it goes through the egress guard: a loopback or private address is refused (422 `egress_refused`) ' +
            'unless SVC_EGRESS_ALLOW lists it. Or `{cookies}`: cookies captured elsewhere (what ' +
            '`svc memory browser-auth` uploads). Only cookies of a required domain or one of its subdomains are ' +
            'kept (`.example.com` and `a.example.com` for `example.com`, never `evil-example.com`); none ' +
            'at all is a 422 naming the domains to log in to. The session is encrypted at rest, replaces the one ' +
            'before, and is handed to the connector as `ctx.sessionState = {cookies}`; a connection in `error` or ' +
            '`revoked` is `active` again. The answer says how many cookies of each domain were captured, never ' +
            'their names or values.',
          params: orgParams.extend({ connectionId: recordIdParam }),
          body: z
            .strictObject({
              cdpUrl: z
                .string()
                .max(2048)
                .optional()
                .describe('http(s) or ws(s) URL of the DevTools endpoint, such as http://127.0.0.1:9222'),
              cookies: z
                .array(sessionCookieSchema)
                .max(MAX_SESSION_COOKIES)
                .optional()
                .describe(
                  'cookies captured elsewhere: {name, value, domain, path, expires, httpOnly, secure, sameSite}',
                ),
            })
            .refine((body) => !(body.cdpUrl !== undefined && body.cookies !== undefined), {
              message: 'give either cdpUrl or cookies, not both',
            }),
          response: {
            200: z.object({ connection: connectionSchema, session: sessionFactsSchema }),
            422: problemResponse(
              'The connector has no browser auth, the DevTools endpoint was refused or could not be read, or no cookie of a required domain was captured',
            ),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const { connectionId } = request.params;
        const connection = await connectionById(options.pool, org.id, connectionId);
        if (!connection) throw notFound(`connection ${connectionId}`);
        const install = await getInstall(options.pool, org.id, connection.connector_key);
        const method = install ? browserMethodOf(install.definition) : null;
        if (!method) {
          throw invalid(
            `connector "${connection.connector_key}" does not connect with a browser session (its authSchema has no browser method)`,
          );
        }
        const domains = (method.requiredDomains ?? []).map(normaliseDomain).filter((d) => d !== '');
        if (domains.length === 0) {
          throw invalid(
            `connector "${connection.connector_key}" names no requiredDomains: svc keeps only the cookies of named domains`,
          );
        }
        let cookies: SessionCookie[];
        if (request.body.cookies) {
          cookies = request.body.cookies as SessionCookie[];
        } else {
          const cdpUrl = request.body.cdpUrl ?? method.defaultCdpUrl ?? DEFAULT_CDP_URL;
          try {
            cookies = await readCdpCookies(cdpUrl, { fetch: egress.fetch, dispatcher: egress.dispatcher });
          } catch (error) {
            if (error instanceof EgressRefusedError) throw error;
            if (error instanceof CdpReadError) {
              throw invalid(
                `could not read the browser's cookies at ${cdpUrl}: ${error.message}. Start Chromium with ` +
                  '--remote-debugging-port (and --remote-allow-origins if it asks) where the server can reach it, log in, then try again',
                [{ path: '/body/cdpUrl', message: error.message }],
              );
            }
            throw error;
          }
        }
        // A browser's answer is held to what an upload may hold: cookies of the session's shape
        // (a name, a value up to 16 KiB...), at most MAX_SESSION_COOKIES of the required domains.
        const { kept, counts } = keepRequiredCookies(
          cookies.filter((cookie) => sessionCookieSchema.safeParse(cookie).success),
          domains,
        );
        if (kept.length > MAX_SESSION_COOKIES) {
          throw invalid(
            `the browser holds ${kept.length} cookies of ${domains.join(', ')}, more than a session keeps (${MAX_SESSION_COOKIES}): clear the browser's cookies, log in again, then capture again`,
          );
        }
        if (kept.length === 0) {
          throw invalid(
            `no cookie of ${domains.join(', ')} was captured: log in to ${domains.length === 1 ? 'it' : 'them'} in that browser first, then capture again`,
            domains.map((domain) => ({ path: '/body', message: `no cookie of ${domain}` })),
          );
        }
        const missing = domains.filter((domain) => counts[domain] === 0);
        const after = await transaction(options.pool, async (client) => {
          await client.query('SELECT 1 FROM connections WHERE id = $1 FOR UPDATE', [connectionId]);
          const capturedAt = await storeSession(
            client,
            options.encryptionKey,
            org.id,
            connectionId,
            kept,
            counts,
          );
          await client.query(
            `UPDATE connections SET error_message = NULL,
                    status = CASE WHEN status IN ('error', 'revoked') THEN 'active' ELSE status END
              WHERE id = $1`,
            [connectionId],
          );
          return { row: (await connectionById(client, org.id, connectionId)) as ConnectionRow, capturedAt };
        });
        request.log.info(
          { connectionId, cookies: kept.length, missing },
          'captured a browser session (cookie names and values are never logged)',
        );
        return {
          connection: toConnection(after.row),
          session: {
            capturedAt: iso(after.capturedAt),
            cookies: kept.length,
            domains: domains.map((domain) => ({ domain, cookies: counts[domain] ?? 0 })),
          },
        };
      },
    );
  };
}
