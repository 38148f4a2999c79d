import { countSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { orgOf } from '../auth/authenticate.js';
import { noBody, orgParams, problemResponse, problemResponses, recordIdParam } from '../http/common.js';
import { eventStreamResponse } from '../http/event-stream.js';
import { notFound } from '../http/problem.js';
import type { App } from '../http/types.js';
import { lastEventId } from '../messaging/sse.js';
import { runRecordById, runRecordSchema, toRunRecord } from '../runs/routes.js';
import { authArtifactSchema, MAX_SIGNAL_BYTES, SIGNAL_NAME } from './artifacts.js';
import { authRunStatus, currentArtifact, postSignal, startAuthRun } from './queries.js';
import { createAuthRunStreams } from './stream.js';

const tags = ['auth runs'];
const runParams = orgParams.extend({ runId: recordIdParam });
const who = (request: { caller: { token: { name: string } | null } | null }) =>
  request.caller?.token?.name ?? 'admin';

export interface AuthRunRouteOptions {
  pool: Pool;
  /** Seals the signals posted (a password, a one-time code) until the connector takes them. */
  encryptionKey: Buffer;
}

/** Interactive connector auth (DESIGN.md section 10, "Auth flows"): `auth` runs, their artifacts and signals. */
export function authRunRoutes(options: AuthRunRouteOptions) {
  const { pool } = options;
  return async (app: App) => {
    const streams = await createAuthRunStreams(pool, app.log);
    app.addHook('preClose', async () => streams.endAll());
    app.addHook('onClose', () => streams.close());

    const runOf = async (orgId: string, runId: string) => {
      const row = await runRecordById(pool, orgId, runId);
      if (row?.run_type !== 'auth') throw notFound(`auth run ${runId}`);
      return toRunRecord(row);
    };

    app.post(
      '/api/:org/connections/:connectionId/auth-runs',
      {
        config: { auth: { scope: 'write', org: true } },
        schema: {
          tags,
          operationId: 'startAuthRun',
          summary:
            "Authenticate a connection interactively: an `auth` run of its connector's authenticate(ctx)",
          description:
            "For a connector whose auth methods include `interactive`. A worker runs the connector's " +
            "`authenticate(ctx)` whatever the connection's status (new, `error`, `revoked`); what it shows the user " +
            '(a QR code, a code, a link, a form) is read with `GET /auth-runs/{runId}` or followed with ' +
            '`GET /auth-runs/{runId}/events`, and what the user answers is posted to ' +
            '`POST /auth-runs/{runId}/signals/{name}`. On success its credentials are kept sealed on the connection ' +
            '(or the org, for a method scoped `organization`), which becomes `active`; its runs get them merged ' +
            'into `ctx.config` (or as `ctx.credentials` when they hold an `accessToken`). The run ends `timeout` after ' +
            "the method's `timeoutSec` (default 300) whatever the connector does, and `POST /runs/{runId}/cancel` " +
            'stops it at once. One auth run is open per connection: while one is pending or running, this answers ' +
            'it (200, `created: false`) instead of starting another.',
          params: orgParams.extend({ connectionId: recordIdParam }),
          body: noBody,
          response: {
            201: z.object({ run: runRecordSchema, created: z.boolean() }),
            200: z.object({ run: runRecordSchema, created: z.boolean() }),
            422: problemResponse(
              "The connection's connector has no interactive auth method, or runs on a device",
            ),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const started = await startAuthRun(pool, {
          orgId: org.id,
          connectionId: request.params.connectionId,
          createdBy: who(request),
        });
        return reply
          .code(started.created ? 201 : 200)
          .send({ run: await runOf(org.id, started.id), created: started.created });
      },
    );

    app.get(
      '/api/:org/auth-runs/:runId',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'getAuthRun',
          summary: 'An auth run and the artifact it shows now',
          description:
            '`artifact` is the latest the connector emitted (null before the first): `qr` (`value` to draw as a ' +
            'QR code), `code` (`value` to type elsewhere), `redirect` (`url` to open; the landing page posts the ' +
            'signal `awaitSignal`), `prompt` (`fields` to ask, posted together as the signal `submitSignal`), ' +
            "`status` (`message`). Never a credential. `artifactSeq` is its event id in the run's stream: a client " +
            'that joins late follows from there (`GET /auth-runs/{runId}/events?after=` it minus 1) instead of replaying ' +
            'prompts already answered.',
          params: runParams,
          response: {
            200: z.object({
              run: runRecordSchema,
              artifact: authArtifactSchema.nullable(),
              artifactSeq: countSchema.nullable().describe("the artifact's event id in the run's stream"),
            }),
            ...problemResponses,
          },
        },
      },
      async (request) => {
        const org = orgOf(request);
        const run = await runOf(org.id, request.params.runId);
        return { run, ...(await currentArtifact(pool, String(run.id))) };
      },
    );

    app.get(
      '/api/:org/auth-runs/:runId/events',
      {
        config: { auth: { scope: 'read', org: true } },
        schema: {
          tags,
          operationId: 'streamAuthRunEvents',
          summary: "An auth run's artifacts and statuses as Server-Sent Events, from any replica",
          description:
            "Each event's `id` is the run's own sequence number (from 1) and its `data` JSON: `event: artifact` " +
            '`{seq, artifact}` (the artifact now shown, as in `GET /auth-runs/{runId}`), `event: status` ' +
            '`{seq, status, errorMessage}` (the run is `pending`, `running`, then `completed`, `failed`, `cancelled` ' +
            'or `timeout`). The stream ends after the final status. A reconnecting client sends `Last-Event-ID` ' +
            '(or `?after=`) and gets every later event once. A `: ping` comment comes every 15 s.',
          params: runParams,
          querystring: z.object({
            after: z.coerce.number().int().min(0).optional().describe('the last event id the client has'),
          }),
          response: {
            200: eventStreamResponse(
              "The run's events, then the end of the stream after its final status",
              'retry: 1000\n\nid: 1\nevent: status\ndata: {"seq":1,"status":"running","errorMessage":null}\n\n',
            ),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const { runId } = request.params;
        if ((await authRunStatus(pool, org.id, runId)) === null) throw notFound(`auth run ${runId}`);
        streams.open(
          reply,
          runId,
          lastEventId(request.headers['last-event-id'], request.query.after),
          request.stillAuthorized ?? (async () => false),
        );
      },
    );

    app.post(
      '/api/:org/auth-runs/:runId/signals/:name',
      {
        config: { auth: { scope: 'write', org: true } },
        bodyLimit: MAX_SIGNAL_BYTES,
        schema: {
          tags,
          operationId: 'signalAuthRun',
          summary: 'Answer what an auth run awaits (a form, a redirect landing page)',
          description:
            "The body is the JSON object the connector's `awaitSignal(name)` resolves to: for a `prompt`, its " +
            `fields by \`key\`. At most ${MAX_SIGNAL_BYTES / 1024} KB. It may hold a password or a one-time code: ` +
            'it is kept encrypted until the connector takes it, then deleted, and never logged or returned. ' +
            'Posted before the connector awaits it, it waits; a second post of the same name replaces the first.',
          params: runParams.extend({
            name: z.string().regex(SIGNAL_NAME, 'a signal name: 1 to 64 letters, digits, _ . -'),
          }),
          body: z.record(z.string(), z.unknown()).describe('what awaitSignal resolves to'),
          response: {
            202: z.object({
              name: z.string(),
              runStatus: z.string().describe('the run’s status as the signal was kept'),
            }),
            409: problemResponse('The auth run has ended (completed, failed, cancelled or timed out)'),
            413: problemResponse(`The body is larger than ${MAX_SIGNAL_BYTES} bytes`),
            ...problemResponses,
          },
        },
      },
      async (request, reply) => {
        const org = orgOf(request);
        const { runId, name } = request.params;
        const runStatus = await postSignal(pool, options.encryptionKey, {
          orgId: org.id,
          runId,
          name,
          value: request.body,
        });
        return reply.code(202).send({ name, runStatus });
      },
    );
  };
}
