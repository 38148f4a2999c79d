import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import { refreshCodeless } from '../connectors/codeless/routes.js';
import type { DeploymentEgress } from '../egress/deployment.js';

export interface RefreshOnConnectOptions {
  pool: Pool;
  encryptionKey: Buffer;
  /** What the MCP server's address must pass (SVC_EGRESS_ALLOW), as at install. */
  egress: DeploymentEgress;
}

/**
 * A connection of an MCP connector without code got credentials (made with them, given new ones,
 * OAuth completed): the server's tools are listed again with them, since many list nothing to a
 * request without. Best effort: a failure is logged, never the connect's.
 */
export async function refreshOnConnect(
  options: RefreshOnConnectOptions,
  log: FastifyBaseLogger,
  orgId: string,
  connectorKey: string,
  connectionId: string,
): Promise<void> {
  try {
    const { rows } = await options.pool.query<{ kind: string | null }>(
      `SELECT generated->>'kind' AS kind FROM connector_definitions WHERE org_id = $1 AND connector_key = $2`,
      [orgId, connectorKey],
    );
    if (rows[0]?.kind !== 'mcp') return;
    const refreshed = await refreshCodeless(
      { pool: options.pool, encryptionKey: options.encryptionKey, egress: options.egress },
      orgId,
      connectorKey,
      connectionId,
    );
    log.info(
      { connectorKey, connectionId, added: refreshed.added, removed: refreshed.removed },
      "read the MCP server's tools with the connection's credentials",
    );
  } catch (error) {
    log.warn(
      { connectorKey, connectionId, err: error },
      "could not read the MCP server's tools with the connection's credentials",
    );
  }
}
