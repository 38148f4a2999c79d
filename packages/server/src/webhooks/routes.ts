import { createHash } from 'node:crypto';
import type { MessageSend } from '@svc/core';
import { countSchema } from '@svc/core';
import type { Pool } from 'pg';
import { z } from 'zod';
import { problemResponse, problemResponses } from '../http/common.js';
import { notFound, ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';
import { enqueueMessage } from '../messaging/queries.js';
import { isWhatsApp, type PlatformTarget, platformByStableId } from '../platforms/lookup.js';
import type { SecretResolver } from '../secrets/resolve.js';
import { SecretMissingError } from '../secrets/resolve.js';
import type { Announcer } from '../turns/events.js';
import { type Inbound, WebhookRefusedError } from './inbound.js';
import { createPlatformHints, type VersionedPlatform, versionedPlatform } from './platform-hints.js';
import { inboundSlack, verifySlack } from './slack.js';
import { storableMessages } from './storable.js';
import { inboundTelegram, verifyTelegram } from './telegram.js';
import { createWebhookThrottle } from './throttle.js';
import { inboundWhatsApp, verifyWhatsApp, whatsAppChallenge } from './whatsapp.js';

const tags = ['webhooks'];
const TOO_MANY_REFUSED =
  'Too many refused calls to this platform from this address (rate_limited, with Retry-After)';
/** Platforms send small JSON; anything larger is not theirs. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;
const params = z.object({ stableId: z.string().max(200).describe("the platform's stable ID") });

/** What the routes of this file need from the server that mounts them. */
export interface WebhookRouteOptions {
  pool: Pool;
  /** The one way the server resolves a secret reference for an org (DESIGN.md section 6). */
  secrets: SecretResolver;
  /** Failed authentications a client may make in a minute before it is answered 429. */
  authFailuresPerMinute?: number;
}

/** The platform and its config with the secret references resolved now, or a 404 / 503 problem. */
async function platformWithSecrets(options: WebhookRouteOptions, stableId: string) {
  const platform = await platformByStableId(options.pool, stableId);
  if (!platform) throw notFound(`platform "${stableId}"`);
  return { platform, config: await resolvedConfig(options, platform) };
}

/**
 * The platform's config with the secret references resolved (from the sealed secrets read with a
 * versioned platform, else from the database now), or a 503 problem.
 */
async function resolvedConfig(options: WebhookRouteOptions, platform: PlatformTarget | VersionedPlatform) {
  const stableId = platform.stableId;
  try {
    const config =
      'sealed' in platform
        ? options.secrets.resolveSealed(platform.org, platform.config, platform.sealed)
        : await options.secrets.resolve(platform.org, platform.config);
    return config as Record<string, string>;
  } catch (error) {
    if (!(error instanceof SecretMissingError)) throw error;
    // Names only: the caller is whoever reaches the URL, and learns nothing more than what to set.
    throw new ProblemError(
      503,
      'secret_missing',
      `platform "${stableId}" cannot check this call: ${error.message}`,
    );
  }
}

/** The key that checks the platform's calls, or a 503 problem when its config has none. */
function checkingKey(platform: PlatformTarget, config: Record<string, string>): string {
  const keyName =
    platform.type === 'team_chat' ? 'signing_secret' : isWhatsApp(platform) ? 'app_secret' : 'secret_token';
  const key = config[keyName];
  // An empty key would make every signature computable by anyone: such a config checks nothing.
  if (typeof key !== 'string' || key === '') {
    throw new ProblemError(
      503,
      'secret_missing',
      `platform "${platform.stableId}" has no ${keyName} in its config, so its calls cannot be checked; set it (svc apply)`,
    );
  }
  return key;
}

/** Checks the call as its platform signs it: WebhookRefusedError when it is not the platform's. */
function verify(
  platform: PlatformTarget,
  key: string,
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
): void {
  if (platform.type === 'team_chat') verifySlack(headers, raw, key);
  else if (isWhatsApp(platform)) verifyWhatsApp(headers, raw, key);
  else verifyTelegram(headers, key);
}

/** Reads a verified call. */
function readInbound(platform: PlatformTarget, config: Record<string, string>, raw: Buffer): Inbound {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ProblemError(400, 'malformed_request', 'the body is not JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ProblemError(400, 'malformed_request', 'the body is not a JSON object');
  }
  // Signed by the platform, but read field by field all the same (inbound*).
  const payload = parsed as Record<string, unknown>;
  if (platform.type === 'team_chat') return inboundSlack(payload);
  if (isWhatsApp(platform)) return inboundWhatsApp(payload, String(config.phone_number_id ?? ''));
  return inboundTelegram(payload);
}

/**
 * A messenger chat is named by the platform's own ids (a Telegram private chat by the user's id, a
 * WhatsApp one by their number): the same person writing to two bots of one agent is two
 * conversations, so the chat is kept with its platform's stable ID.
 */
function conversationOf(platform: PlatformTarget, body: MessageSend): MessageSend {
  return body.messenger
    ? { ...body, messenger: { chat: `${platform.stableId}:${body.messenger.chat}` } }
    : body;
}

/**
 * `{base}/api/v1/webhooks/<stable_id>`: where chat platforms call (no bearer token: each call is
 * signed the platform's way, on the raw body). The message is queued and the call answered at
 * once, whatever the turn takes; a message the platform delivers again (its retries) is known by
 * its own id and dropped. The reply goes back through the outbox.
 */
export function webhookRoutes(options: WebhookRouteOptions, announcer: Announcer) {
  return async (app: App) => {
    const throttle = createWebhookThrottle(options.authFailuresPerMinute);
    const hints = createPlatformHints();
    // The raw bytes, whatever the content type: a signature covers them exactly.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );

    app.post(
      '/api/v1/webhooks/:stableId',
      {
        config: { auth: 'public' },
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: {
          tags,
          operationId: 'receiveWebhook',
          summary: "A chat platform's webhook call (Slack Events API, Telegram Bot API, WhatsApp Cloud API)",
          description:
            "Signed the platform's way: `X-Slack-Signature` (team_chat), `X-Telegram-Bot-Api-Secret-Token` " +
            '(messenger), `X-Hub-Signature-256` (messenger, flavor "whatsapp"). Answered at once; the reply is ' +
            "sent through the platform's API.",
          params,
          // Read raw (the content type parser above): checked as bytes, parsed only once verified.
          body: z.unknown().describe("The platform's JSON, exactly as it signed it"),
          response: {
            200: z
              .object({
                ok: z.literal(true),
                queued: countSchema,
                duplicates: countSchema,
                ignored: countSchema,
              })
              .or(z.object({ challenge: z.string() }))
              .describe('Taken (or, for Slack url_verification, the challenge)'),
            400: problemResponses[400],
            401: problemResponse('The call is not signed by the platform, or too old'),
            404: problemResponse('No platform has this stable ID'),
            413: problemResponse('The body is over 1 MiB'),
            415: problemResponse('Not a body a platform sends'),
            429: problemResponse(TOO_MANY_REFUSED),
            503: problemResponse("A secret of the platform's config is not set (secret_missing)"),
          },
        },
      },
      async (request, reply) => {
        const { stableId } = request.params;
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        // Messages this call queued, should it be taken again under the platform read anew.
        const queuedHere = new Set<string>();
        /** The call checked and taken under `platform`, or `platform_changed` and nothing more queued. */
        const take = async (platform: VersionedPlatform) => {
          const config = await resolvedConfig(options, platform);
          const key = checkingKey(platform, config);
          const proof =
            platform.type === 'messenger' && !isWhatsApp(platform) ? 'shared_secret' : 'signature';
          throttle.guard(request, reply, platform.stableId, proof, () =>
            verify(platform, key, request.headers, raw),
          );
          const inbound = readInbound(platform, config, raw);
          if (inbound.kind === 'answer') return inbound.body;
          let queued = 0;
          let duplicates = 0;
          const { messages, ignored } = storableMessages(inbound.messages, request.log, platform.stableId);
          for (const message of messages) {
            const outcome = await enqueueMessage(options.pool, announcer, {
              orgId: platform.org.id,
              agentId: platform.agentId,
              body: conversationOf(platform, message.body),
              idempotencyKey: null,
              requestHash: createHash('sha256').update(message.dedupKey).digest('hex'),
              files: [],
              budget: null,
              guardrails: platform.guardrails,
              // One message per platform message, whatever the platform retries.
              fromPlatform: {
                dedupKey: message.dedupKey,
                replyTo: { stableId: platform.stableId, ...message.replyTo },
                version: platform.version,
              },
            });
            if (outcome === 'platform_changed') return outcome;
            if (outcome === 'agent_missing') throw notFound(`agent "${platform.agentId}"`);
            if (outcome === 'duplicate') {
              if (queuedHere.has(message.dedupKey)) queued++;
              else duplicates++;
            } else if ('row' in outcome) {
              queued++;
              queuedHere.add(message.dedupKey);
            } else
              request.log.info({ stableId: platform.stableId }, 'a chat message was refused by guardrails');
          }
          return { ok: true as const, queued, duplicates, ignored: inbound.ignored + ignored };
        };
        // As last read: no read of the platform or its secrets; the insert checks they are still those.
        const hinted = hints.get(stableId);
        if (hinted) {
          try {
            const answer = await take(hinted);
            if (answer !== 'platform_changed') return answer;
          } catch (error) {
            // Refused (or failed) under the platform as last read: that stands while it is the same.
            if ((await versionedPlatform(options.pool, stableId))?.version === hinted.version) throw error;
          }
          hints.delete(stableId);
        }
        for (let attempt = 1; ; attempt++) {
          const platform = await versionedPlatform(options.pool, stableId);
          if (!platform) throw notFound(`platform "${stableId}"`);
          hints.set(platform);
          const answer = await take(platform);
          if (answer !== 'platform_changed') return answer;
          // Changed between its read and the insert, a few ms apart, again and again.
          if (attempt === 3) throw new Error(`platform "${stableId}" keeps changing; the call was not taken`);
        }
      },
    );

    app.get(
      '/api/v1/webhooks/:stableId',
      {
        config: { auth: 'public' },
        schema: {
          tags,
          operationId: 'verifyWebhook',
          summary:
            "WhatsApp Cloud API's subscription check: the challenge, when the verify token is the platform's",
          description:
            "WhatsApp Cloud API calls this when a webhook is subscribed: the server echoes `hub.challenge` when `hub.verify_token` is the platform's `verify_token`.",
          params,
          querystring: z.object({
            'hub.mode': z.string().max(100).optional(),
            'hub.verify_token': z.string().max(1000).optional(),
            'hub.challenge': z.string().max(1000).optional(),
          }),
          response: {
            200: {
              description: 'The challenge, echoed',
              content: { 'text/plain': { schema: z.string() } },
            },
            403: problemResponse("The verify token is not the platform's"),
            404: problemResponse('No WhatsApp platform has this stable ID'),
            429: problemResponse(TOO_MANY_REFUSED),
            503: problemResponse("A secret of the platform's config is not set (secret_missing)"),
          },
        },
      },
      async (request, reply) => {
        const { platform, config } = await platformWithSecrets(options, request.params.stableId);
        if (!isWhatsApp(platform)) throw notFound(`WhatsApp platform "${platform.stableId}"`);
        const verifyToken = config.verify_token;
        const challenge = throttle.guard(
          request,
          reply,
          platform.stableId,
          'shared_secret',
          () => {
            const echoed =
              typeof verifyToken === 'string' && verifyToken !== ''
                ? whatsAppChallenge(request.query, verifyToken)
                : null;
            if (echoed === null) {
              throw new WebhookRefusedError(
                'webhook_verify_token_invalid',
                "hub.verify_token is not the platform's verify_token",
              );
            }
            return echoed;
          },
          403,
        );
        return reply
          .type('text/plain; charset=utf-8')
          .serializer((text) => text as string)
          .send(challenge);
      },
    );
  };
}
