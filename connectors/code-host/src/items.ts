/** Issues and pull requests as the API lists them, and the event envelopes they become. */

import {
  calculateEngagementScore,
  type EventEnvelope,
  normalizeCodeHostLogin,
  normalizeCodeHostRepoFullName,
  normalizeCodeHostUserId,
} from '@svc/connector-sdk';

export interface User {
  login: string;
  id: number;
  avatar_url?: string;
  html_url?: string;
}

/** The fields read here, of an issue (`GET /issues`) or a pull request (`GET /pulls`). */
export interface Item {
  number: number;
  title: string;
  body?: string | null;
  /** Null for a deleted account on some hosts. */
  user?: User | null;
  state: string;
  labels?: (string | { name?: string })[];
  html_url: string;
  created_at: string;
  updated_at: string;
  closed_at?: string | null;
  author_association?: string;
  /** Issues only; the list of pull requests has neither. */
  comments?: number;
  reactions?: { total_count?: number };
  /** On the issues listing, marks the item as a pull request. */
  pull_request?: unknown;
  /** Pull requests only. */
  draft?: boolean;
  merged_at?: string | null;
  head?: { ref?: string };
  base?: { ref?: string };
}

export type OriginType = 'issue' | 'pull_request';

export const originId = (repo: string, number: number): string => `${repo}#${number}`;

/**
 * `occurred_at` is `updated_at`, not `created_at`: each sync emits an item again when it changed, and
 * the row it updates should say when the item last changed, which is also what the listing is ordered
 * and checkpointed by. `created_at` stays in `payload_data`.
 */
export function toEnvelope(type: OriginType, repo: string, item: Item): EventEnvelope {
  const fullName = normalizeCodeHostRepoFullName(repo) ?? repo;
  return {
    origin_id: originId(fullName, item.number),
    origin_type: type,
    title: item.title,
    payload_type: 'markdown',
    payload_text: item.body?.trim() ? item.body : item.title,
    payload_data: payloadData(type, fullName, item),
    ...(item.user?.login ? { author_name: item.user.login } : {}),
    source_url: item.html_url,
    occurred_at: new Date(item.updated_at).toISOString(),
    ...score(item),
  };
}

function payloadData(type: OriginType, fullName: string, item: Item): Record<string, unknown> {
  const data: Record<string, unknown> = {
    repo: { full_name: fullName },
    number: item.number,
    state: item.state,
    labels: (item.labels ?? []).map((l) => (typeof l === 'string' ? l : l.name)).filter(Boolean),
    user: user(item.user),
    author_association: item.author_association,
    created_at: item.created_at,
    updated_at: item.updated_at,
    closed_at: item.closed_at ?? null,
    comments: item.comments,
    reactions: item.reactions?.total_count,
  };
  if (type === 'pull_request') {
    Object.assign(data, {
      draft: item.draft ?? false,
      merged: Boolean(item.merged_at),
      merged_at: item.merged_at ?? null,
      head: item.head?.ref,
      base: item.base?.ref,
    });
  }
  return Object.fromEntries(Object.entries(data).filter(([, v]) => v !== undefined));
}

/**
 * The values at the entity links' identity paths, normalised as every connector normalises them, so that
 * `Octocat` here and `octocat` elsewhere are one member. `display_login` keeps the spelling for display.
 */
function user(u: User | null | undefined): Record<string, unknown> | undefined {
  if (!u) return undefined;
  const login = normalizeCodeHostLogin(u.login);
  const id = normalizeCodeHostUserId(u.id);
  if (!login && !id) return undefined;
  const out: Record<string, unknown> = { display_login: u.login };
  if (login) out.login = login;
  if (id) out.id = id;
  if (u.avatar_url) out.avatar_url = u.avatar_url;
  if (u.html_url) out.html_url = u.html_url;
  return out;
}

/** The pull request listing reports no counts, and a score of 0 would claim "no engagement". */
function score(item: Item): { score?: number } {
  const reactions = item.reactions?.total_count;
  if (item.comments === undefined && reactions === undefined) return {};
  return { score: calculateEngagementScore({ comments: item.comments, reactions }) };
}
