/**
 * `callOpenApiAction`: one call of an operation that `actionsFromOpenApi` described, answered as
 * an `ActionResult`. It never throws for what the input, the credentials or the upstream do: the
 * agent reads the failure and can correct its input. It uses the global `fetch` (looked up at call
 * time), which the sandbox routes through the egress proxy.
 */

import type { ActionResult } from '../runtime/types.js';
import { applyCredentials, type Credentials } from './credentials.js';
import { type BuiltRequest, buildRequest } from './request.js';
import type { OpenApiOperation } from './types.js';

export interface CallOptions {
  /** Overrides the operation's server URL (the description's `servers`). */
  serverUrl?: string;
  /** The connection's credentials; see credentials.ts for which field each scheme takes. */
  credentials?: Credentials;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Default 30 000 ms, covering the response body. */
  timeoutMs?: number;
  /** Larger responses are a failure rather than memory held. Default 1 MiB. */
  maxResponseBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
/** How much of an upstream's error message a failure carries. */
const MESSAGE_CHARS = 300;

export async function callOpenApiAction(
  operation: OpenApiOperation,
  input: Record<string, unknown>,
  options: CallOptions = {},
): Promise<ActionResult> {
  const what = `${operation.method} ${operation.path}`;
  const applied = applyCredentials(operation.security, options.credentials ?? {});
  if ('error' in applied) return { success: false, error: applied.error };
  const redact = redactor(applied.secrets);

  let request: BuiltRequest;
  try {
    request = buildRequest(operation, input, options.serverUrl ?? operation.serverUrl, applied);
  } catch (error) {
    return { success: false, error: redact(`${what}: ${(error as Error).message}`) };
  }

  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  try {
    const response = await (options.fetch ?? globalThis.fetch)(request.url, {
      method: operation.method,
      headers: request.headers,
      body: request.body,
      signal,
      // A redirect would carry an API key header to wherever the upstream points; not followed.
      redirect: 'manual',
    });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel();
      const location = (response.headers.get('location') ?? '').split(/[?#]/)[0];
      return {
        success: false,
        error: redact(
          `${what}: the upstream redirected (${response.status}) to ${location || 'nowhere'}; redirects are not followed, so the credentials stay with the server; set serverUrl to where the API is`,
        ),
      };
    }
    const text = await readCapped(response, limit);
    if (text === undefined) {
      return { success: false, error: `${what}: the response is larger than ${limit} bytes` };
    }
    const data = parse(text, response.headers.get('content-type'));
    if (!response.ok) {
      const message = messageOf(data);
      return {
        success: false,
        error: redact(
          `${what} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}${message ? `: ${message}` : ''}`,
        ),
      };
    }
    return { success: true, output: outputOf(data) };
  } catch (error) {
    if (timeout.aborted && !options.signal?.aborted) {
      return { success: false, error: `${what}: no answer within ${timeoutMs} ms` };
    }
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return { success: false, error: redact(`${what} failed: ${(error as Error).message}${cause}`) };
  }
}

/** Replaces every credential value sent, and its URL-encoded form, in a text bound for a result. */
function redactor(secrets: string[]): (text: string) => string {
  const forms = secrets.flatMap((s) => [s, encodeURIComponent(s)]).filter((s) => s.length > 0);
  forms.sort((a, b) => b.length - a.length);
  return (text) => forms.reduce((out, secret) => out.replaceAll(secret, '[redacted]'), text);
}

/** The body as text, or undefined once it passes `limit` bytes (the rest is not read). */
async function readCapped(response: Response, limit: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > limit) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) {
      await response.body.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const isJson = (contentType: string | null) =>
  contentType !== null && /^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim());

function parse(text: string, contentType: string | null): unknown {
  if (text.trim() === '') return undefined;
  if (!isJson(contentType)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** `ActionResult.output` is an object: a JSON object is it, anything else is under `data`. */
function outputOf(data: unknown): Record<string, unknown> {
  if (data === undefined) return {};
  if (data !== null && typeof data === 'object' && !Array.isArray(data))
    return data as Record<string, unknown>;
  return { data };
}

/** The upstream's own words: `message`, `error`, `detail`, `title` (or `error.message`), else its text. */
function messageOf(data: unknown): string {
  if (typeof data === 'string') return data.replace(/\s+/g, ' ').trim().slice(0, MESSAGE_CHARS);
  if (data === null || typeof data !== 'object') return '';
  const object = data as Record<string, unknown>;
  for (const key of ['message', 'error', 'detail', 'title', 'error_description']) {
    const value = object[key];
    if (typeof value === 'string' && value.trim()) return value.trim().slice(0, MESSAGE_CHARS);
    if (value && typeof value === 'object' && typeof (value as { message?: unknown }).message === 'string') {
      return String((value as { message: string }).message).slice(0, MESSAGE_CHARS);
    }
  }
  return JSON.stringify(data).slice(0, MESSAGE_CHARS);
}
