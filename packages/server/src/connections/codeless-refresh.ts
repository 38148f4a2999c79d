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
 * OAuth completed) while the server has listed no tool yet: they are listed with them, since many
 * servers list nothing to a request without. Best effort: a failure is logged, never the connect's.
 */
export async function refreshOnConnect(
  options: RefreshOnConnectOptions,
  log: FastifyBaseLogger,
  orgId: string,
  connectorKey: string,
  connectionId: string,
): Promise<void> {
  try {
    // Only a server that has listed no tool yet: a connect (a write token's, of one account) then
    // only adds tools, and an admin's refresh is what can take some away from every agent.
    const { rows } = await options.pool.query(
      `SELECT 1 FROM connector_definitions
        WHERE org_id = $1 AND connector_key = $2 AND generated->>'kind' = 'mcp'
          AND coalesce(generated->'tools', '{}') = '{}'`,
      [orgId, connectorKey],
    );
    if (rows.length === 0) return;
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
