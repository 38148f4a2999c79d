import { createHmac, randomBytes } from 'node:crypto';
import { type FakePlatform, type PlatformAnswer, type ReceivedRequest, startFakePlatform } from './http.js';

/** A message the fake sent (a failed or refused call is in `requests` only). */
export interface WhatsAppSent {
  phone_number_id: string;
  to: string;
  /** `text.body`. */
  text: string;
  /** `context.message_id`, when the message replies to one. */
  context_message_id?: string;
  /** The `wamid.` id the fake gave the message. */
  id: string;
}

export interface FakeWhatsApp extends FakePlatform {
  sent: WhatsAppSent[];
}

let sequence = 0;

/** A Graph API error: `{error: {message, type, code, error_subcode?, error_data?, fbtrace_id}}`. */
function graphError(
  status: number,
  code: number,
  message: string,
  extra: { type?: string; error_subcode?: number; details?: string } = {},
): PlatformAnswer {
  const { type = 'OAuthException', details, ...rest } = extra;
  const error = {
    message,
    type,
    code,
    ...rest,
    ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
    fbtrace_id: `A${randomBytes(8).toString('base64url')}`,
  };
  const headers: Record<string, string> =
    code === 190 ? { 'www-authenticate': `OAuth "Facebook Platform" "invalid_token" "${message}"` } : {};
  return { status, headers, body: { error } };
}

const invalid = (message: string) => graphError(400, 100, `(#100) ${message}`);

/**
 * The WhatsApp Cloud API on 127.0.0.1: `POST /v<major>.<minor>/<phone_number_id>/messages` with
 * `Authorization: Bearer <access token>` (or `access_token` in the query), text messages only.
 * Errors are the Graph API's: 401 code 190 for a missing or wrong token, 400 code 100 for a bad body
 * or another phone number id, 429 code 130429 for the rate limit (Graph gives no `Retry-After`).
 */
export async function startFakeWhatsApp(options: {
  accessToken: string;
  phoneNumberId: string;
}): Promise<FakeWhatsApp> {
  const sent: WhatsAppSent[] = [];
  const route = (request: ReceivedRequest) => /^\/v\d+\.\d+\/([^/]+)\/messages$/.exec(request.path);
  const platform = await startFakePlatform({
    isSend: (request) => request.method === 'POST' && route(request) !== null,
    fail: (failure) => {
      const status = failure.status ?? 500;
      if (status === 429) {
        return graphError(429, 130429, '(#130429) Rate limit hit', {
          details: 'Cloud API message throughput has been reached.',
        });
      }
      if (status === 401) return graphError(401, 190, 'Error validating access token: Session has expired.');
      if (status === 503) return graphError(503, 131016, 'Service unavailable');
      if (status < 500) return invalid('Invalid parameter');
      return graphError(status, 131000, 'Something went wrong', { details: 'Something went wrong' });
    },
    answer: (request) => {
      const phoneNumberId = route(request)?.[1];
      if (request.method !== 'POST' || phoneNumberId === undefined) {
        return graphError(400, 2500, 'Unknown path components', { type: 'OAuthException' });
      }
      const bearer = request.headers.authorization?.replace(/^Bearer /, '');
      const token = bearer ?? request.query.access_token;
      if (!token) return graphError(401, 190, 'An active access token must be used.');
      if (token !== options.accessToken) {
        return graphError(401, 190, 'Invalid OAuth access token - Cannot parse access token');
      }
      if (phoneNumberId !== options.phoneNumberId) {
        return graphError(
          400,
          100,
          `Unsupported post request. Object with ID '${phoneNumberId}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
          { type: 'GraphMethodException', error_subcode: 33 },
        );
      }
      const body = request.body;
      if (!body) return invalid('Invalid parameter');
      if (body.messaging_product !== 'whatsapp')
        return invalid('The parameter messaging_product is required.');
      if (typeof body.to !== 'string' || body.to === '') return invalid('The parameter to is required.');
      if ((body.type ?? 'text') !== 'text')
        return invalid(`Param type: the fake speaks text only, not ${body.type}`);
      const text = (body.text as { body?: unknown } | undefined)?.body;
      if (typeof text !== 'string' || text === '') return invalid("The parameter text['body'] is required.");
      if (text.length > 4096) return invalid("Param text['body'] must be at most 4096 characters long.");
      sequence += 1;
      const id = `wamid.${Buffer.from(`${body.to}/${Date.now()}/${sequence}`).toString('base64url')}`;
      const message: WhatsAppSent = { phone_number_id: phoneNumberId, to: body.to, text, id };
      const context = (body.context as { message_id?: unknown } | undefined)?.message_id;
      if (typeof context === 'string') message.context_message_id = context;
      sent.push(message);
      const contacts = [{ input: body.to, wa_id: body.to.replace(/\D/g, '') }];
      return { status: 200, body: { messaging_product: 'whatsapp', contacts, messages: [{ id }] } };
    },
  });
  return Object.assign(platform, { sent });
}

/** `X-Hub-Signature-256` of a webhook delivery: `sha256=` HMAC-SHA256 of the raw body with the app secret. */
export function whatsappSignature(appSecret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

export function whatsappHeaders(appSecret: string, rawBody: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-hub-signature-256': whatsappSignature(appSecret, rawBody) };
}

/** The query string of Meta's subscription check (`GET <webhook>?...`). */
export function whatsappSubscribeQuery(verifyToken: string, challenge: string): string {
  return new URLSearchParams({
    'hub.mode': 'subscribe',
    'hub.verify_token': verifyToken,
    'hub.challenge': challenge,
  }).toString();
}

function delivery(phoneNumberId: string, value: Record<string, unknown>) {
  const metadata = { display_phone_number: '15550001111', phone_number_id: phoneNumberId };
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [{ value: { messaging_product: 'whatsapp', metadata, ...value }, field: 'messages' }],
      },
    ],
  };
}

/** A webhook delivery of one text message from `from` (a wa_id such as `16505551234`). */
export function whatsappMessage(options: {
  messageId: string;
  from: string;
  text: string;
  phoneNumberId: string;
  name?: string;
  timestamp?: number;
}) {
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  return delivery(options.phoneNumberId, {
    contacts: [{ profile: { name: options.name ?? 'Ada' }, wa_id: options.from }],
    messages: [
      { from: options.from, id: options.messageId, timestamp, type: 'text', text: { body: options.text } },
    ],
  });
}

/** A webhook delivery of a status update of a message we sent (the platform's, not a person's). */
export function whatsappStatus(options: {
  messageId: string;
  recipientId: string;
  phoneNumberId: string;
  status?: 'sent' | 'delivered' | 'read' | 'failed';
  timestamp?: number;
}) {
  const status = {
    id: options.messageId,
    status: options.status ?? 'delivered',
    timestamp: String(options.timestamp ?? Math.floor(Date.now() / 1000)),
    recipient_id: options.recipientId,
    conversation: { id: 'c0ffee0000000000000000000000000', origin: { type: 'service' } },
    pricing: { billable: true, pricing_model: 'CBP', category: 'service' },
  };
  return delivery(options.phoneNumberId, { statuses: [status] });
}
