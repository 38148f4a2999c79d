/**
 * How the connector-runtime commands (`svc connector install|list`, `svc connection`, `svc feed`,
 * `svc runs`, `svc action`) reach the server: the saved session, paths under `/api/:org`, and the
 * server's problem answers turned into an error that says what was wrong and what to do.
 */

import { type ApiClient, ApiError, createClient } from '../session/client.js';
import { resolveSession, type Session } from '../session/resolve.js';

export interface RuntimeIo {
  env: Record<string, string | undefined>;
  /** Data: tables, JSON, ids, log lines. */
  out: (line: string) => void;
  /** What happened and what to do next; kept off stdout so that it pipes cleanly. */
  err: (line: string) => void;
  /** Between two polls of a followed run. */
  sleep: (ms: number) => Promise<void>;
  pollMs: number;
}

export interface SessionFlags {
  url?: string;
  org?: string;
  context?: string;
}

/**
 * What to add to a refusal, by problem code or HTTP status: the step that fixes it, in the
 * command's own terms (the server only knows its routes).
 */
export type Hints = Partial<Record<string | number, string | ((problem: ProblemText) => string | undefined)>>;

/** What a hint may read of the refusal. */
export interface ProblemText {
  detail: string;
  errors: { path: string; message: string }[];
}

/**
 * Where a problem's path (`/body/definition/feeds`) is in the file the body came from
 * (`petstore.yaml:7:1`), when the command read one.
 */
export type Locate = (path: string) => string | undefined;

export interface Api {
  session: Session;
  call<T>(method: string, path: string, body?: unknown, hints?: Hints, locate?: Locate): Promise<T>;
  /** A route whose path names no org (`/api/v1/agents/...`: the token's org is the one). */
  callRoot<T>(method: string, path: string, body?: unknown, hints?: Hints): Promise<T>;
}

/** The session the flags and environment name, and calls relative to its org. */
export async function openApi(io: RuntimeIo, flags: SessionFlags): Promise<Api> {
  const session = await resolveSession(io.env, flags);
  const client: ApiClient = createClient(session.url, session.token);
  const org = `/api/${encodeURIComponent(session.org)}`;
  return {
    session,
    async call<T>(method: string, path: string, body?: unknown, hints: Hints = {}, locate?: Locate) {
      try {
        return await client.request<T>(method, `${org}${path}`, body);
      } catch (error) {
        throw explain(error, hints, locate);
      }
    },
    async callRoot<T>(method: string, path: string, body?: unknown, hints: Hints = {}) {
      try {
        return await client.request<T>(method, path, body);
      } catch (error) {
        throw explain(error, hints);
      }
    },
  };
}

/** Hints every command shares; a command's own win. */
const COMMON: Hints = {
  401: 'the server did not accept the token: run "svc login" again, or check SVC_API_TOKEN',
  forbidden: ({ detail }) =>
    /scope/.test(detail)
      ? 'use a token that has it: svc login --token <TOKEN> (or SVC_API_TOKEN)'
      : undefined,
  database_unavailable: 'the server cannot reach its database; try again once it can',
  rate_limited: 'wait a moment and try again',
  500: 'the server failed; its log says why. Try again, and report it if it persists',
};

/** One error whose message is the server's detail, each of its `errors`, and the fix. */
export function explain(error: unknown, hints: Hints, locate?: Locate): Error {
  if (!(error instanceof ApiError)) return error as Error;
  const lines = [error.message];
  for (const item of error.problem?.errors ?? []) {
    const where = locate?.(item.path);
    lines.push(`  ${where ? `${where}: ` : ''}${item.path}: ${item.message}`);
  }
  const code = error.problem?.code;
  const problem = { detail: error.problem?.detail ?? '', errors: error.problem?.errors ?? [] };
  const pick = (hint: Hints[string]) => (typeof hint === 'function' ? hint(problem) : hint);
  const hint =
    (code && pick(hints[code])) ||
    pick(hints[error.status]) ||
    (code && pick(COMMON[code])) ||
    pick(COMMON[error.status]) ||
    (error.status >= 500 ? pick(COMMON[500]) : undefined);
  if (hint) lines.push(hint);
  return new Error(lines.join('\n'));
}

/** An id as the API takes it; anything else would only come back as a 404 naming the path. */
export function checkId(what: string, id: string, listedBy: string): string {
  if (!/^\d{1,18}$/.test(id)) throw new Error(`"${id}" is not a ${what} id: ids are numbers (${listedBy})`);
  return id;
}
