import type { ConnectorDefinition } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';

/** How a feed paused for want of scopes says so; the prefix is how a later grant finds it. */
const NEEDS_SCOPES = 'needs the OAuth scope';

export const missingScopesMessage = (connectionId: string, missing: string[]) =>
  `${NEEDS_SCOPES}${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, which the grant lacks: connect again and grant ${
    missing.length === 1 ? 'it' : 'them'
  } (\`svc connection connect ${connectionId} ${missing.map((scope) => `--scope ${scope}`).join(' ')}\`)`;

/**
 * Fits the connections' feeds to the scopes granted, in the caller's transaction: a feed whose
 * `requiredScopes` are not all granted is paused with `lastError` naming them; a feed paused for
 * that reason whose scopes are now granted is active again and due at once (a reconnect with more
 * scopes unlocks it, lobu-ai/lobu#3491). Feeds paused by a person or for their config are left.
 */
export async function fitFeedsToScopes(
  client: PoolClient,
  connectionIds: string[],
  definition: ConnectorDefinition,
  granted: string[],
): Promise<void> {
  const held = new Set(granted);
  const { rows } = await client.query<{
    id: string;
    connection_id: string;
    feed_key: string;
    status: string;
    last_error: string | null;
  }>(
    'SELECT id, connection_id, feed_key, status, last_error FROM feeds WHERE connection_id = ANY ($1) ORDER BY id FOR UPDATE',
    [connectionIds],
  );
  for (const feed of rows) {
    const required = definition.feeds?.[feed.feed_key]?.requiredScopes ?? [];
    const missing = required.filter((scope) => !held.has(scope));
    const pausedForScopes = feed.status === 'paused' && feed.last_error?.startsWith(NEEDS_SCOPES) === true;
    if (missing.length > 0 && (feed.status !== 'paused' || pausedForScopes)) {
      await client.query(
        `UPDATE feeds SET status = 'paused', last_error = $2, next_sync_at = NULL, updated_at = now() WHERE id = $1`,
        [feed.id, missingScopesMessage(feed.connection_id, missing)],
      );
    } else if (missing.length === 0 && pausedForScopes) {
      await client.query(
        `UPDATE feeds SET status = 'active', last_error = NULL, next_sync_at = now(), updated_at = now() WHERE id = $1`,
        [feed.id],
      );
    }
  }
}
