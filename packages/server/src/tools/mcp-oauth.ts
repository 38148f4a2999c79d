import { createHash } from 'node:crypto';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AgentConfig } from '@svc/core';

type McpOAuth = NonNullable<NonNullable<AgentConfig['mcpServers']>[string]['oauth']>;

/** A server left out of a turn for a reason of ours, which the log may say in full. */
export class McpRefusedError extends Error {
  override name = 'McpRefusedError';
}

/**
 * Access tokens this process got, by server and credentials: a turn reuses the last one instead
 * of asking the authorization server each time. The key holds a hash of the secret, so a rotated
 * secret gets a token of its own; a token that has expired is answered 401 by the MCP server, and
 * the SDK then asks for a new one.
 */
const tokens = new Map<string, OAuthTokens>();
const MAX_CACHED = 1000;

/**
 * An MCP server's `oauth` as the SDK's client: the `client_credentials` grant (machine to machine,
 * RFC 6749 section 4.4), which is the one a server can run without a person. The authorization
 * server is the one the MCP server names in its protected-resource metadata (RFC 9728), reached
 * through the same guarded fetch as the server itself, and the credentials go to it only if it is
 * `oauth.issuer` (by default the MCP server's own origin): a server cannot send them elsewhere. A client without a secret would need a
 * person to sign in: it is refused with a reason.
 */
export function oauthClientOf(
  url: string,
  oauth: McpOAuth,
): { provider: ClientCredentialsProvider; keep(): void } {
  if (!oauth.client_secret) {
    throw new McpRefusedError(
      'oauth without client_secret needs a person to sign in, which svc does not do for MCP servers; ' +
        'give the client a secret (client_credentials grant)',
    );
  }
  const key = createHash('sha256')
    .update(JSON.stringify([url, oauth.client_id, oauth.client_secret, oauth.scopes ?? []]))
    .digest('hex');
  const provider = new ClientCredentialsProvider({
    clientId: oauth.client_id,
    clientSecret: oauth.client_secret,
    clientName: 'svc',
    // Only to this authorization server, whatever the MCP server's metadata names.
    expectedIssuer: oauth.issuer ?? new URL(url).origin,
    ...(oauth.scopes?.length ? { scope: oauth.scopes.join(' ') } : {}),
  });
  const cached = tokens.get(key);
  if (cached) provider.saveTokens(cached);
  return {
    provider,
    keep() {
      const current = provider.tokens();
      if (!current) return;
      tokens.delete(key);
      tokens.set(key, current);
      if (tokens.size > MAX_CACHED) tokens.delete(tokens.keys().next().value as string);
    },
  };
}
