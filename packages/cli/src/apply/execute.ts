import { JSON_BODY_LIMIT_BYTES } from '@svc/core';
import type { Kind, Plan, PlanRow } from '../plan/types.js';
import { type ApiClient, ApiError } from '../session/client.js';

/** Steps in the spec's order; a step starts only when the one before it fully succeeded. */
export const STEPS: Kind[] = ['agent', 'settings', 'platform', 'entity_type', 'relationship_type', 'watcher'];

export interface RowResult {
  row: PlanRow;
  /** The server's `result`: created, updated or unchanged (someone else converged it first). */
  result: string;
  /** The server's whole answer (of the last request, when a row took several). */
  answer?: unknown;
}

export interface ApplyOutcome {
  done: RowResult[];
  failed: { row: PlanRow; error: Error }[];
  notAttempted: PlanRow[];
}

/** Runs `work` over `items`, at most `limit` at a time; stops taking new items once `stop()` is true. */
async function pool<T>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<void>,
  stop: () => boolean,
): Promise<T[]> {
  const queue = [...items];
  const workers = Array.from({ length: Math.min(limit, queue.length) }, async () => {
    while (queue.length > 0 && !stop()) await work(queue.shift() as T);
  });
  await Promise.all(workers);
  return queue;
}

/**
 * Sends the plan's requests step by step, each step's with bounded concurrency, reporting each
 * result as it lands. After a failure, requests already sent finish, nothing new starts, and the
 * outcome says what was done, what failed and what was not attempted. Every request is an
 * idempotent upsert, so running the plan again converges.
 */
export async function executePlan(
  plan: Plan,
  client: ApiClient,
  options: {
    concurrency?: number;
    onResult?: (result: RowResult) => void;
    onFailure?: (row: PlanRow, error: Error) => void;
  },
): Promise<ApplyOutcome> {
  const outcome: ApplyOutcome = { done: [], failed: [], notAttempted: [] };
  const pending = plan.rows.filter((row) => row.request);
  for (const kind of STEPS) {
    const rows = pending.filter((row) => row.kind === kind);
    if (outcome.failed.length > 0) {
      outcome.notAttempted.push(...rows);
      continue;
    }
    const left = await pool(
      rows,
      options.concurrency ?? 8,
      async (row) => {
        const request = row.request as NonNullable<PlanRow['request']>;
        try {
          let answer: { result?: string } | undefined;
          // In order: a row is one result, whichever part of it fails.
          for (const part of withinBodyLimit(request)) {
            answer = await client.request<{ result?: string }>(part.method, part.path, part.body);
          }
          const result = { row, result: answer?.result ?? 'done', answer };
          outcome.done.push(result);
          options.onResult?.(result);
        } catch (error) {
          const failure = error instanceof Error ? error : new Error(String(error));
          outcome.failed.push({ row, error: failure });
          options.onFailure?.(row, failure);
        }
      },
      () => outcome.failed.length > 0,
    );
    outcome.notAttempted.push(...left);
  }
  return outcome;
}

type Request = NonNullable<PlanRow['request']>;

/**
 * A settings PATCH whose body the server would refuse as too large (three long Markdown files
 * together) goes as one PATCH per setting: PATCH merges keys, so the result is the same.
 */
export function withinBodyLimit(request: Request): Request[] {
  const body = request.body;
  if (
    request.method !== 'PATCH' ||
    typeof body !== 'object' ||
    body === null ||
    Buffer.byteLength(JSON.stringify(body)) <= JSON_BODY_LIMIT_BYTES
  ) {
    return [request];
  }
  return Object.entries(body).map(([key, value]) => ({ ...request, body: { [key]: value } }));
}

/** The server's own words for a failure: its problem `detail` when it sent one. */
export function describeFailure(error: Error): string {
  return error instanceof ApiError && error.problem
    ? `${error.problem.detail} (${error.problem.code})`
    : error.message;
}
