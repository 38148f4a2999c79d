import createClient, { type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type Problem = components['schemas']['Problem'];

/** Where the gateway mounts the console and the API (SVC_BASE_PATH): the page's own <base>. */
export const BASE = new URL(document.baseURI).pathname.replace(/\/+$/, '');

/** A console URL under the base path: `href('/orgs/default/agents')`. */
export const href = (path: string) => `${BASE}${path}`;

/**
 * The id of a stored row as a console URL carries it, typed as the API takes it. Text that is not
 * one becomes NaN, which the server refuses (a 400 as a filter, a 404 in a path) as it did the text.
 */
export const rowIdOf = (text: string): number => (/^\d{1,18}$/.test(text) ? Number(text) : Number.NaN);

export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const ORG_PATH = new RegExp(`^${escapeRegExp(BASE)}/orgs/([a-z0-9][a-z0-9-]*)`);

/** The org a console URL names (`{base}/orgs/{org}/...`), if any. */
export function orgOfPath(path: string): string | null {
  return ORG_PATH.exec(path)?.[1] ?? null;
}

/** An API answer that was a problem, thrown so that a page shows it where the request was made. */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => {};

/** The session's CSRF token, sent on every request that changes something. */
export function setCsrfToken(token: string) {
  csrfToken = token;
}

/** Called when the server says the session has ended (401), wherever the request came from. */
export function whenSignedOut(callback: () => void) {
  onSignedOut = callback;
}

const session: Middleware = {
  onRequest({ request }) {
    if (!['GET', 'HEAD'].includes(request.method)) request.headers.set('x-csrf-token', csrfToken);
    // The routes without an org in their path act in the org this page shows, whatever another
    // tab of the same session shows.
    const org = orgOfPath(location.pathname);
    if (org && new URL(request.url).pathname.startsWith(`${BASE}/api/v1/`))
      request.headers.set('x-svc-org', org);
    return request;
  },
  onResponse({ response, request }) {
    // A sign-in's own 401 is a wrong password, not an ended session.
    if (response.status === 401 && !(request.method === 'POST' && request.url.endsWith('/api/session'))) {
      onSignedOut();
    }
    return response;
  },
};

/** The typed API client: types generated from the server's own /openapi.json (schema.d.ts). */
export const api = createClient<paths>({ baseUrl: `${location.origin}${BASE}`, credentials: 'same-origin' });
api.use(session);

/** The data of an answer, or its problem thrown as an ApiError. */
export async function must<T>(
  answer: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await answer;
  if (error !== undefined || data === undefined) {
    const problem = (error ?? {}) as Partial<Problem>;
    throw new ApiError({
      type: problem.type ?? 'about:blank',
      title: problem.title ?? response.statusText,
      status: problem.status ?? response.status,
      detail: problem.detail ?? `the server answered ${response.status}`,
      code: problem.code ?? 'internal_error',
      ...(problem.errors ? { errors: problem.errors } : {}),
    } as Problem);
  }
  return data;
}
