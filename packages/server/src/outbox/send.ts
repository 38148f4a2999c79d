/**
 * One delivery to a chat platform's API, and what its answer means: delivered, worth another
 * attempt (with the platform's own wait when it gives one), or refused for good. Nothing of the
 * request (tokens are in headers, and in Telegram's URL path) goes into an outcome.
 */

export type SendOutcome =
  | { ok: true; platformMessageId: string | null }
  | { ok: false; retryable: boolean; retryAfterMs: number | null; detail: string };

/** Where each platform's API is; tests and proxies set the variables (DESIGN.md section 9). */
export function platformApiUrls(env: Record<string, string | undefined>) {
  const base = (name: string, fallback: string) => (env[name] || fallback).replace(/\/+$/, '');
  return {
    team_chat: base('SVC_TEAM_CHAT_API_URL', 'https://slack.com'),
    messenger: base('SVC_MESSENGER_API_URL', 'https://api.telegram.org'),
    whatsapp: base('SVC_WHATSAPP_API_URL', 'https://graph.facebook.com'),
  };
}
export type PlatformApiUrls = ReturnType<typeof platformApiUrls>;

const TIMEOUT_MS = 10_000;
const WHATSAPP_GRAPH_VERSION = 'v21.0';

/** The most characters one message may hold on each platform; a longer reply goes in parts. */
export const MAX_MESSAGE_CHARS = { team_chat: 40_000, messenger: 4096, whatsapp: 4096 } as const;

/** What the three APIs answer, as far as it is read (Slack's `error` is a string, Graph's an object). */
interface PlatformAnswer {
  ok?: unknown;
  ts?: unknown;
  error?: unknown;
  result?: { message_id?: unknown };
  error_code?: unknown;
  description?: unknown;
  parameters?: { retry_after?: unknown };
  messages?: { id?: unknown }[];
}

async function post(url: string, headers: Record<string, string>, body: unknown, timeoutMs: number) {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    const json = (await res.json().catch(() => null)) as PlatformAnswer | null;
    return { res, json };
  } catch (error) {
    // A reset connection, a refused one, a timeout: the platform may come back.
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
    return { failure: `cannot reach the platform (${cause})` };
  }
}

function retryAfterMs(header: string | null, seconds?: unknown): number | null {
  const value = Number(seconds ?? header);
  return Number.isFinite(value) && value >= 0 ? value * 1000 : null;
}

const transient = (status: number) => status === 429 || status >= 500;

/** Slack's errors that a later attempt may not get (the rest are the request's or the app's fault). */
const SLACK_TRANSIENT = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

/**
 * Slack reads `<...>` as mentions and links (`<!channel>`, `<https://x|label>`): a reply, which a
 * message can steer, is escaped as Slack asks, so that it can neither ping a channel nor disguise
 * a link.
 */
export const slackEscape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function sendSlack(
  urls: PlatformApiUrls,
  config: { bot_token: string },
  to: { channel: string; thread_ts?: string },
  text: string,
  timeoutMs = TIMEOUT_MS,
): Promise<SendOutcome> {
  const answer = await post(
    `${urls.team_chat}/api/chat.postMessage`,
    { authorization: `Bearer ${config.bot_token}` },
    { channel: to.channel, text: slackEscape(text), ...(to.thread_ts ? { thread_ts: to.thread_ts } : {}) },
    timeoutMs,
  );
  if ('failure' in answer)
    return { ok: false, retryable: true, retryAfterMs: null, detail: answer.failure as string };
  const { res, json } = answer;
  if (res.ok && json?.ok === true) return { ok: true, platformMessageId: String(json.ts ?? '') || null };
  const error = json?.error ? String(json.error) : `HTTP ${res.status}`;
  return {
    ok: false,
    retryable: transient(res.status) || SLACK_TRANSIENT.has(error),
    retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
    detail: `Slack answered ${error}`,
  };
}

export async function sendTelegram(
  urls: PlatformApiUrls,
  config: { bot_token: string },
  to: { chat_id: string },
  text: string,
  timeoutMs = TIMEOUT_MS,
): Promise<SendOutcome> {
  const answer = await post(
    `${urls.messenger}/bot${config.bot_token}/sendMessage`,
    {},
    { chat_id: to.chat_id, text },
    timeoutMs,
  );
  if ('failure' in answer)
    return { ok: false, retryable: true, retryAfterMs: null, detail: answer.failure as string };
  const { res, json } = answer;
  if (res.ok && json?.ok === true)
    return { ok: true, platformMessageId: String(json.result?.message_id ?? '') || null };
  return {
    ok: false,
    retryable: transient(res.status),
    retryAfterMs: retryAfterMs(res.headers.get('retry-after'), json?.parameters?.retry_after),
    detail: `Telegram answered ${json?.error_code ?? res.status}: ${String(json?.description ?? res.statusText).slice(0, 200)}`,
  };
}

/** Graph API codes that mean "too many, later" (throttling of the app, the number or the pair). */
const WHATSAPP_THROTTLED = new Set([4, 80007, 130429, 131048, 131056]);

export async function sendWhatsApp(
  urls: PlatformApiUrls,
  config: { access_token: string; phone_number_id: string },
  to: { to: string },
  text: string,
  timeoutMs = TIMEOUT_MS,
): Promise<SendOutcome> {
  const answer = await post(
    `${urls.whatsapp}/${WHATSAPP_GRAPH_VERSION}/${encodeURIComponent(config.phone_number_id)}/messages`,
    { authorization: `Bearer ${config.access_token}` },
    {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: to.to,
      type: 'text',
      text: { body: text, preview_url: false },
    },
    timeoutMs,
  );
  if ('failure' in answer)
    return { ok: false, retryable: true, retryAfterMs: null, detail: answer.failure as string };
  const { res, json } = answer;
  if (res.ok && Array.isArray(json?.messages)) {
    return { ok: true, platformMessageId: String(json.messages[0]?.id ?? '') || null };
  }
  const graphError = (json?.error ?? {}) as { code?: unknown; message?: unknown };
  const code = Number(graphError.code);
  return {
    ok: false,
    retryable: transient(res.status) || WHATSAPP_THROTTLED.has(code),
    retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
    detail: `WhatsApp answered ${Number.isFinite(code) ? code : res.status}: ${String(graphError.message ?? res.statusText).slice(0, 200)}`,
  };
}

/**
 * A reply cut into parts of at most `max` characters, at the last line or word break before the
 * limit where there is one in its second half, so that words are not split between two messages.
 */
export function splitReply(text: string, max: number): string[] {
  const parts: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    let cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    if (cut < max / 2) cut = max;
    // Never between the two halves of a surrogate pair.
    if (cut === max && /[\uD800-\uDBFF]/.test(rest[cut - 1] ?? '')) cut--;
    parts.push(rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}
