/**
 * `svc tokens create|list|revoke`: the org's API tokens (admin scope). The secret of a new token is
 * printed once, alone on stdout so that it pipes into a secret store; the server keeps only a hash.
 */

import { SCOPES } from '@svc/core';
import { openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { cell, table, when } from './table.js';

export interface TokenRecord {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const TOKEN_SCOPES: readonly string[] = SCOPES;

export interface CreateFlags extends SessionFlags {
  scopes: string;
  expiresInDays?: number;
  json?: boolean;
}

/** `read,write` as the list the API takes; an unknown scope is named before anything is sent. */
export function parseScopes(value: string): string[] {
  const scopes = value
    .split(',')
    .map((scope) => scope.trim())
    .filter(Boolean);
  const unknown = scopes.filter((scope) => !TOKEN_SCOPES.includes(scope));
  if (scopes.length === 0 || unknown.length > 0) {
    throw new Error(
      `${unknown.length > 0 ? `unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}` : 'no scope given'}: ` +
        `--scopes takes a comma-separated list of ${TOKEN_SCOPES.join(', ')}`,
    );
  }
  return [...new Set(scopes)];
}

export async function tokensCreate(name: string, flags: CreateFlags, io: RuntimeIo): Promise<void> {
  const scopes = parseScopes(flags.scopes);
  const api = await openApi(io, flags);
  const answer = await api.call<{ token: TokenRecord; secret: string }>(
    'POST',
    '/tokens',
    { name, scopes, ...(flags.expiresInDays === undefined ? {} : { expiresInDays: flags.expiresInDays }) },
    {
      token_name_taken: `revoke it first ("svc tokens list" shows its id: svc tokens revoke <tokenId>) or pick another name`,
    },
  );
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
  } else {
    io.out(answer.secret);
  }
  const { token } = answer;
  io.err(
    `created token ${token.id} "${token.name}" (${token.scopes.join(',')}${token.expiresAt ? `, expires ${when(token.expiresAt)}` : ''})`,
  );
  // The warning goes to stderr so that `svc tokens create ci --scopes read > file` holds the secret only.
  io.err('this is the only time the secret is shown: store it now (the server keeps only its hash)');
}

export async function tokensList(flags: SessionFlags & { json?: boolean }, io: RuntimeIo): Promise<void> {
  const api = await openApi(io, flags);
  const { tokens } = await api.call<{ tokens: TokenRecord[] }>('GET', '/tokens');
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, tokens }, null, 2));
    return;
  }
  if (tokens.length === 0) {
    io.out(`No tokens in org ${api.session.org}: make one with "svc tokens create <name> --scopes read".`);
    return;
  }
  const status = (t: TokenRecord) =>
    t.revokedAt ? 'revoked' : t.expiresAt && Date.parse(t.expiresAt) <= Date.now() ? 'expired' : 'active';
  const rows = tokens.map((t) => [
    t.id,
    status(t),
    t.scopes.join(','),
    when(t.createdAt),
    when(t.expiresAt),
    when(t.lastUsedAt),
    cell(t.name),
  ]);
  for (const line of table(['ID', 'STATUS', 'SCOPES', 'CREATED', 'EXPIRES', 'LAST USED', 'NAME'], rows))
    io.out(line);
}

export async function tokensRevoke(
  id: string,
  flags: SessionFlags & { json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  const api = await openApi(io, flags);
  const answer = await api.call<{ result: 'updated' | 'unchanged'; token: TokenRecord }>(
    'DELETE',
    `/tokens/${encodeURIComponent(id)}`,
    undefined,
    { not_found: `org ${api.session.org} has no token "${id}": "svc tokens list" shows them` },
  );
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
    return;
  }
  io.out(
    answer.result === 'updated'
      ? `revoked token ${answer.token.id} "${answer.token.name}": it stops working at once`
      : `token ${answer.token.id} "${answer.token.name}" was revoked already: nothing to do`,
  );
}
