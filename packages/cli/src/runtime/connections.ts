/**
 * `svc connection create|list|pause|resume`. A connection's credentials (its connector's env_keys
 * values) are read from environment variables named on the command line, travel only in the body
 * of the POST, are stored encrypted by the server and never come back.
 */

import { checkId, type Hints, openApi, type ProblemText, type RuntimeIo, type SessionFlags } from './api.js';
import { type ConnectorRecord, envKeyFields } from './connectors.js';
import { describeFeed, type FeedRecord } from './feeds.js';
import { CONFIG_SYNTAX, credentialsFromEnv, parseConfig, stringKeys } from './pairs.js';
import { cell, short, table, when } from './table.js';

export interface ConnectionRecord {
  id: number;
  connectorKey: string;
  displayName: string | null;
  status: 'active' | 'paused' | 'error' | 'revoked';
  credentialKeys: string[];
  config: Record<string, unknown>;
  errorMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface CreateFlags extends SessionFlags {
  name?: string;
  config?: string[];
  credential?: string[];
  json?: boolean;
}

export async function connectionCreate(
  connectorKey: string,
  flags: CreateFlags,
  io: RuntimeIo,
): Promise<void> {
  // Everything the command line says is checked before any request: a missing variable sends nothing.
  const config = parseConfig(flags.config);
  const credentials = credentialsFromEnv(flags.credential, io.env);
  const api = await openApi(io, flags);
  const { connector } = await api.call<{ connector: ConnectorRecord }>(
    'GET',
    `/connectors/${encodeURIComponent(connectorKey)}`,
    undefined,
    {
      not_found: `connector "${connectorKey}" is not installed in org ${api.session.org}: svc connector install ${connectorKey}`,
    },
  );
  const fields = envKeyFields(connector);
  // A credential given as config would be stored in the clear and has been typed on argv.
  const misplaced = Object.keys(config ?? {}).filter((key) => fields.includes(key));
  if (misplaced.length > 0) {
    throw new Error(
      `${misplaced.join(', ')} ${misplaced.length === 1 ? 'is a credential' : 'are credentials'} of ${connectorKey}, not config: ` +
        `pass ${misplaced.map((key) => `--credential ${key}=<ENV_VAR>`).join(' ')} so that the value comes from the environment ` +
        'and is stored encrypted (and since it was typed on the command line, consider it exposed). Nothing was sent',
    );
  }
  const answer = await api.call<{ connection: ConnectionRecord; feeds: FeedRecord[] }>(
    'POST',
    '/connections',
    {
      connectorKey,
      ...(flags.name ? { displayName: flags.name } : {}),
      ...(config ? { config } : {}),
      ...(credentials ? { credentials } : {}),
    },
    { validation_failed: (problem) => fixFor(problem, stringKeys(flags.config), fields) },
  );
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
    return;
  }
  const { connection, feeds } = answer;
  const keys =
    connection.credentialKeys.length > 0 ? `, credentials: ${connection.credentialKeys.join(', ')}` : '';
  io.out(
    `created connection ${connection.id}: ${connection.connectorKey}${connection.displayName ? ` "${connection.displayName}"` : ''} (${connection.status}${keys})`,
  );
  for (const feed of feeds) io.out(`  ${describeFeed(feed)}`);
  const waiting = feeds.find(
    (feed) => feed.status === 'paused' && feed.lastError?.startsWith('needs config'),
  );
  // Connected by a person first (OAuth, a browser session, an interactive sign-in): say how.
  if (connection.status === 'error' && connection.errorMessage) {
    io.err(connection.errorMessage.replaceAll('`', ''));
    return;
  }
  if (waiting) io.err(`set a feed's config: svc feed configure ${waiting.id} --config key=value ...`);
  const ready = feeds.find((feed) => feed.status === 'active');
  if (ready) io.err(`sync now: svc feed sync ${ready.id} --follow`);
}

/** The step that fixes a refused connection, from the server's list of what is wrong. */
function fixFor(problem: ProblemText, strings: string[], fields: string[]): string | undefined {
  const fixes: string[] = [];
  for (const { path, message } of problem.errors) {
    const credential = path.match(/^\/body\/credentials\/(.+)$/)?.[1];
    if (credential && message === 'is required') fixes.push(`add --credential ${credential}=<ENV_VAR>`);
    const key = path.match(/^\/body\/config\/([^/]+)/)?.[1];
    if (key && strings.includes(key)) fixes.push(`${key} was sent as a string; ${CONFIG_SYNTAX}`);
  }
  if (fixes.length === 0 && fields.length > 0)
    fixes.push(`this connector's credentials are ${fields.join(', ')}: --credential FIELD=ENV_VAR`);
  return fixes.length > 0 ? [...new Set(fixes)].join('; ') : undefined;
}

export async function connectionList(flags: SessionFlags & { json?: boolean }, io: RuntimeIo): Promise<void> {
  const api = await openApi(io, flags);
  const { connections } = await api.call<{ connections: ConnectionRecord[] }>('GET', '/connections');
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, connections }, null, 2));
    return;
  }
  if (connections.length === 0) {
    io.out(`No connections in org ${api.session.org}: make one with "svc connection create <connectorKey>".`);
    return;
  }
  const rows = connections.map((c) => [
    String(c.id),
    c.connectorKey,
    c.status,
    cell(c.credentialKeys.join(',')),
    when(c.createdAt),
    cell(c.displayName),
    short(c.errorMessage, 80),
  ]);
  for (const line of table(['ID', 'CONNECTOR', 'STATUS', 'CREDENTIALS', 'CREATED', 'NAME', 'ERROR'], rows))
    io.out(line);
}

/** `pause` stops every feed's syncs and every action of the connection; `resume` starts them again. */
export async function connectionSetStatus(
  id: string,
  status: 'paused' | 'active',
  flags: SessionFlags,
  io: RuntimeIo,
): Promise<void> {
  checkId('connection', id, '"svc connection list" shows them');
  const api = await openApi(io, flags);
  const hints: Hints = {
    not_found: `org ${api.session.org} has no connection ${id}: "svc connection list" shows them`,
    conflict: `give it new credentials: svc connection credentials ${id} --credential FIELD=ENV_VAR ...`,
  };
  const { result, connection } = await api.call<{
    result: 'updated' | 'unchanged';
    connection: ConnectionRecord;
  }>('PATCH', `/connections/${id}`, { status }, hints);
  const word = status === 'paused' ? 'paused' : 'resumed';
  io.out(
    result === 'updated'
      ? `${word} connection ${connection.id} (${connection.connectorKey}): it is ${connection.status}`
      : `connection ${connection.id} (${connection.connectorKey}) is ${connection.status} already: nothing to do`,
  );
}

/** New credentials for a connection, read from the environment: they replace all of its old ones. */
export async function connectionCredentials(
  id: string,
  flags: SessionFlags & { credential?: string[] },
  io: RuntimeIo,
): Promise<void> {
  checkId('connection', id, '"svc connection list" shows them');
  const credentials = credentialsFromEnv(flags.credential, io.env);
  if (!credentials) {
    throw new Error(
      'give the new credentials: --credential FIELD=ENV_VAR (repeatable), each value read from ENV_VAR',
    );
  }
  const api = await openApi(io, flags);
  const { connection } = await api.call<{ connection: ConnectionRecord }>(
    'PATCH',
    `/connections/${id}`,
    { credentials },
    { not_found: `org ${api.session.org} has no connection ${id}: "svc connection list" shows them` },
  );
  io.out(
    `connection ${connection.id} (${connection.connectorKey}) has new credentials (${connection.credentialKeys.join(', ')}): it is ${connection.status}`,
  );
}

/**
 * Deletes a connection and its feeds. The server refuses one that holds events (they would go with
 * it): `svc connection revoke` stops such a connection and keeps its events.
 */
export async function connectionDelete(
  id: string,
  flags: SessionFlags & { json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  checkId('connection', id, '"svc connection list" shows them');
  const api = await openApi(io, flags);
  const answer = await api.call<{ result: 'deleted'; connectionId: number }>(
    'DELETE',
    `/connections/${id}`,
    undefined,
    {
      not_found: `org ${api.session.org} has no connection ${id}: "svc connection list" shows them`,
      conflict: ({ detail }) =>
        /event/.test(detail)
          ? `to stop it and keep its events: svc connection revoke ${id}`
          : `"svc runs list --connection ${id}" shows its runs; svc runs cancel <id>`,
    },
  );
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
    return;
  }
  io.out(`deleted connection ${id} with its feeds`);
}
