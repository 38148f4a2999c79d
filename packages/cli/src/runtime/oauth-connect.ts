/**
 * `svc connection connect <id>`: the OAuth flow from a terminal. The server answers the provider's
 * authorization URL; the person opens it in any browser (this machine's or another), consents, and
 * lands on the server's callback page; this command waits for that outcome and reports it. The
 * tokens never pass through the CLI. `svc connection revoke <id>` forgets them.
 */

import { checkId, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import type { ConnectionRecord } from './connections.js';

interface Attempt {
  id: number;
  status: 'pending' | 'connected' | 'denied' | 'failed' | 'expired';
  message: string | null;
}

export interface ConnectFlags extends SessionFlags {
  scope?: string[];
  /** Print the URL and exit without waiting for the person (`--no-wait`). */
  wait?: boolean;
  json?: boolean;
}

export async function connectionConnect(id: string, flags: ConnectFlags, io: RuntimeIo): Promise<void> {
  checkId('connection', id, '"svc connection list" shows them');
  const api = await openApi(io, flags);
  const missing = `org ${api.session.org} has no connection ${id}: "svc connection list" shows them`;
  const started = await api.call<{
    authorizationUrl: string;
    expiresAt: string;
    attemptId: number;
    redirectUri: string;
    scopes: string[];
  }>('POST', `/connections/${id}/oauth/start`, flags.scope?.length ? { scopes: flags.scope } : {}, {
    not_found: missing,
    oauth_client_missing: `register an OAuth app at the provider whose redirect URL is ${api.session.url.replace(/\/+$/, '')}/api/v1/oauth/callback (or under SVC_PUBLIC_URL), then set its id and secret as said`,
  });
  if (flags.json && flags.wait === false) {
    io.out(JSON.stringify(started, null, 2));
    return;
  }
  io.err(`Open this URL in a browser, sign in and consent (valid until ${started.expiresAt}):`);
  io.out(started.authorizationUrl);
  io.err(
    `asking for: ${started.scopes.join(' ') || '(no scope)'}; the provider sends you back to ${started.redirectUri}`,
  );
  if (flags.wait === false) return;
  io.err('waiting for the provider to send you back...');
  const deadline = Date.parse(started.expiresAt) + 5_000;
  let attempt: Attempt = { id: started.attemptId, status: 'pending', message: null };
  while (attempt.status === 'pending' && Date.now() < deadline) {
    await io.sleep(io.pollMs);
    ({ attempt } = await api.call<{ attempt: Attempt }>(
      'GET',
      `/connections/${id}/oauth/attempts/${started.attemptId}`,
      undefined,
      { not_found: missing },
    ));
  }
  const { connection } = await api.call<{ connection: ConnectionRecord & { displayName: string | null } }>(
    'GET',
    `/connections/${id}`,
    undefined,
    { not_found: missing },
  );
  if (flags.json) io.out(JSON.stringify({ attempt, connection }, null, 2));
  if (attempt.status !== 'connected') {
    throw new Error(
      `connection ${id} was not connected: ${attempt.status === 'pending' ? 'nobody came back from the provider in 10 minutes' : (attempt.message ?? attempt.status)}; run "svc connection connect ${id}" again`,
    );
  }
  if (!flags.json)
    io.out(
      `connection ${id} (${connection.connectorKey}): ${attempt.message ?? 'connected'}; it is ${connection.status}`,
    );
}

export async function connectionRevoke(
  id: string,
  flags: SessionFlags & { reason?: string; json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  checkId('connection', id, '"svc connection list" shows them');
  const api = await openApi(io, flags);
  const { connection } = await api.call<{ connection: ConnectionRecord }>(
    'POST',
    `/connections/${id}/revoke`,
    flags.reason ? { reason: flags.reason } : {},
    { not_found: `org ${api.session.org} has no connection ${id}: "svc connection list" shows them` },
  );
  if (flags.json) {
    io.out(JSON.stringify({ connection }, null, 2));
    return;
  }
  io.out(
    `connection ${connection.id} (${connection.connectorKey}) forgot its credentials: it is ${connection.status}`,
  );
  if (connection.errorMessage) io.err(connection.errorMessage);
}
