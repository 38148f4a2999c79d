/**
 * A `browser` connection's session (DESIGN.md section 10, "Auth flows"): the cookies of the
 * connector's `requiredDomains`, read from a Chromium over the Chrome DevTools Protocol (CDP) or
 * uploaded by `svc memory browser-auth`. This file is what both sides share: the cookie shape
 * connectors get on `ctx.sessionState`, which cookies belong to which required domain, and the
 * CDP read itself. The server reads through its egress client (every connection to an address an
 * org wrote is checked); the CLI reads the person's own local browser directly.
 */
import { domainToASCII } from 'node:url';
import type { BrowserCookie } from '@svc/connector-sdk';
import { type Dispatcher, WebSocket } from 'undici';
import { z } from 'zod';
import { readCapped } from '../egress/read.js';

/** A cookie as `ctx.sessionState.cookies` holds it: the SDK's own type. */
export type SessionCookie = BrowserCookie;

/** What `ctx.sessionState` is for a `browser` connection. */
export interface SessionState {
  cookies: SessionCookie[];
}

/** A cookie as it is uploaded (or rotated by a sync's `auth_update`): the SDK's shape, with defaults. */
export const sessionCookieSchema = z.strictObject({
  name: z.string().min(1).max(4096),
  value: z.string().max(16_384),
  domain: z.string().min(1).max(253),
  path: z.string().max(4096).default('/'),
  expires: z.number().default(-1).describe('Unix time in seconds; -1 for a session cookie'),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: z.enum(['Strict', 'Lax', 'None']).default('Lax'),
});

/** The most cookies one session holds. */
export const MAX_SESSION_COOKIES = 2000;

/**
 * `*.example.com`, `.example.com`, `Example.COM.` are all `example.com`; `Bücher.example` is
 * `xn--bcher-kva.example`, as a browser stores it. What is not a host name (a port, a path, a
 * space, a control character) is '', which matches nothing.
 */
export const normaliseDomain = (domain: string): string => {
  const bare = domain.trim().toLowerCase().replace(/^\*\./, '').replace(/^\.+/, '').replace(/\.$/, '');
  if (bare === '' || /[^\p{L}\p{M}\p{N}._-]/u.test(bare)) return '';
  return domainToASCII(bare);
};

/**
 * The required domain a cookie belongs to, or null: a cookie of `example.com` (host-only or
 * `.example.com`) or of any subdomain (`a.example.com`) belongs to `example.com`;
 * `evil-example.com` does not. The most specific required domain wins.
 */
export function requiredDomainOf(cookieDomain: string, required: readonly string[]): string | null {
  const domain = normaliseDomain(cookieDomain);
  if (domain === '') return null;
  let best: string | null = null;
  for (const raw of required) {
    const want = normaliseDomain(raw);
    if (want === '') continue;
    if ((domain === want || domain.endsWith(`.${want}`)) && (best === null || want.length > best.length))
      best = want;
  }
  return best;
}

/** The cookies of the required domains, and how many each domain has (every required domain named). */
export function keepRequiredCookies<C extends { domain: string }>(
  cookies: readonly C[],
  required: readonly string[],
): { kept: C[]; counts: Record<string, number> } {
  const counts: Record<string, number> = Object.fromEntries(
    required
      .map(normaliseDomain)
      .filter((d) => d !== '')
      .map((d) => [d, 0]),
  );
  const kept: C[] = [];
  for (const cookie of cookies) {
    const domain = requiredDomainOf(cookie.domain, required);
    if (domain === null) continue;
    kept.push(cookie);
    counts[domain] = (counts[domain] ?? 0) + 1;
  }
  return { kept, counts };
}

/** A cookie as CDP's `Storage.getCookies` answers it, in the session's shape. */
export function fromCdpCookie(cookie: Record<string, unknown>): SessionCookie {
  const sameSite = cookie.sameSite;
  return {
    name: String(cookie.name ?? ''),
    value: String(cookie.value ?? ''),
    domain: String(cookie.domain ?? ''),
    path: typeof cookie.path === 'string' ? cookie.path : '/',
    expires: cookie.session === true || typeof cookie.expires !== 'number' ? -1 : cookie.expires,
    httpOnly: cookie.httpOnly === true,
    secure: cookie.secure === true,
    sameSite: sameSite === 'Strict' || sameSite === 'None' ? sameSite : 'Lax',
  };
}

/** How to reach a browser's DevTools endpoint: a fetch, and for the WebSocket an undici dispatcher. */
export interface CdpAccess {
  fetch: typeof globalThis.fetch;
  /** The egress client's on the server; undici's global one when omitted (the CLI, locally). */
  dispatcher?: Dispatcher;
  /** Milliseconds for the whole read; default 10 s. */
  timeoutMs?: number;
}

/** The browser could not be read: unreachable, not a DevTools endpoint, or it answered an error. */
export class CdpReadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CdpReadError';
  }
}

/** The http(s) base of a DevTools endpoint given as http(s) or ws(s), without path. */
export function cdpBase(cdpUrl: string): URL {
  let url: URL;
  try {
    url = new URL(cdpUrl);
  } catch {
    throw new CdpReadError(`"${cdpUrl}" is not a URL`);
  }
  const scheme = { 'http:': 'http:', 'https:': 'https:', 'ws:': 'http:', 'wss:': 'https:' }[url.protocol];
  if (!scheme) throw new CdpReadError(`"${cdpUrl}" is not an http(s) or ws(s) URL`);
  if (url.username || url.password) throw new CdpReadError('a DevTools URL holds no user or password');
  return new URL(`${scheme}//${url.host}/`);
}

/**
 * Every cookie of the browser behind `cdpUrl` (the browser-wide `Storage.getCookies`): its
 * `/json/version` names the browser's WebSocket path, which is then opened on the host and port of
 * `cdpUrl` itself, never on whatever host the answer names. Both connections go through `access`.
 */
export async function readCdpCookies(cdpUrl: string, access: CdpAccess): Promise<SessionCookie[]> {
  const base = cdpBase(cdpUrl);
  const signal = AbortSignal.timeout(access.timeoutMs ?? 10_000);
  let version: { webSocketDebuggerUrl?: unknown };
  try {
    const response = await access.fetch(new URL('/json/version', base), { signal, redirect: 'error' });
    if (!response.ok) throw new CdpReadError(`${base.origin}/json/version answered ${response.status}`);
    version = JSON.parse(
      await readCappedOr(response, MAX_VERSION_BYTES, `${base.origin}/json/version`),
    ) as typeof version;
  } catch (error) {
    if (error instanceof CdpReadError) throw error;
    // A refusal of the egress guard is the caller's to report as it is.
    if ((error as { code?: string }).code === 'egress_refused') throw error;
    throw new CdpReadError(`no DevTools endpoint answered at ${base.origin}: ${messageOf(error)}`, {
      cause: error,
    });
  }
  let path: string;
  try {
    path = new URL(String(version.webSocketDebuggerUrl)).pathname;
  } catch {
    throw new CdpReadError(`${base.origin}/json/version names no browser WebSocket (webSocketDebuggerUrl)`);
  }
  if (!path.startsWith('/devtools/browser/'))
    throw new CdpReadError(`${base.origin}/json/version names no browser WebSocket (webSocketDebuggerUrl)`);
  const wsUrl = `${base.protocol === 'https:' ? 'wss:' : 'ws:'}//${base.host}${path}`;
  const result = await cdpCall(wsUrl, 'Storage.getCookies', {}, access, signal);
  const cookies = (result as { cookies?: unknown }).cookies;
  if (!Array.isArray(cookies)) throw new CdpReadError('Storage.getCookies answered no cookies list');
  return cookies.map((c) => fromCdpCookie(c as Record<string, unknown>));
}

/** One CDP command on a fresh WebSocket, then closed. */
function cdpCall(
  wsUrl: string,
  method: string,
  params: Record<string, unknown>,
  access: CdpAccess,
  signal: AbortSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(wsUrl, access.dispatcher ? { dispatcher: access.dispatcher } : undefined);
    let settled = false;
    const done = (error: Error | null, value?: unknown) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      try {
        socket.close();
      } catch {
        // closing a socket that never opened
      }
      if (error) reject(error);
      else resolve(value);
    };
    const onAbort = () => done(new CdpReadError(`the browser at ${wsUrl} did not answer ${method} in time`));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.addEventListener('open', () => socket.send(JSON.stringify({ id: 1, method, params })));
    socket.addEventListener('message', (event) => {
      let message: { id?: number; result?: unknown; error?: { message?: string } };
      try {
        message = JSON.parse(String(event.data));
      } catch {
        return;
      }
      if (message.id !== 1) return;
      if (message.error)
        done(new CdpReadError(`the browser refused ${method}: ${message.error.message ?? 'no reason'}`));
      else done(null, message.result ?? {});
    });
    socket.addEventListener('error', (event) => {
      const cause = (event as unknown as { error?: unknown }).error;
      if ((cause as { code?: string } | undefined)?.code === 'egress_refused') done(cause as Error);
      else
        done(
          new CdpReadError(`could not open the browser's WebSocket at ${wsUrl}: ${messageOf(cause)}`, {
            cause,
          }),
        );
    });
    socket.addEventListener('close', () =>
      done(new CdpReadError(`the browser closed its WebSocket before answering ${method}`)),
    );
  });
}

/** `/json/version` is a few hundred bytes: an endpoint answering more is not read on. */
const MAX_VERSION_BYTES = 65_536;

async function readCappedOr(response: Response, max: number, what: string): Promise<string> {
  const text = await readCapped(response, max);
  if (text === null)
    throw new CdpReadError(`${what} answered more than ${max / 1024} KiB: not a DevTools endpoint`);
  return text;
}

const messageOf = (error: unknown): string => {
  if (error === undefined) return 'the connection failed';
  const cause = (error as { cause?: unknown }).cause;
  const text = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && !text.includes(cause.message) ? `${text} (${cause.message})` : text;
};
