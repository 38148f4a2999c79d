/**
 * Where a connection's credentials may go (DESIGN.md section 10): the hosts they were granted for,
 * fixed when they are set, from the connector's definition (its schemas' default URLs, its OAuth
 * endpoints) and the connection's and its feeds' config at that moment. A run whose config points
 * at another host fails, saying to set the credentials again; its child can reach only these
 * hosts (connectors/egress-proxy.ts). So a `write` token that changes a feed's `apiUrl` cannot
 * send the connection's token anywhere new.
 */
import type { ConnectorDefinition } from '@svc/connector-sdk';
import type { PoolClient } from 'pg';
import { upstreamHosts } from '../connectors/codeless/hosts.js';
import type { Generated } from '../connectors/codeless/types.js';

/** The host names (lowercase, no port) of every absolute http(s) URL in `value`, however deep. */
export function urlHosts(value: unknown, into = new Set<string>()): Set<string> {
  if (typeof value === 'string') {
    const host = urlHost(value);
    if (host) into.add(host);
  } else if (Array.isArray(value)) {
    for (const item of value) urlHosts(item, into);
  } else if (value && typeof value === 'object') {
    for (const item of Object.values(value)) urlHosts(item, into);
  }
  return into;
}

function urlHost(text: string): string | null {
  if (!/^\s*https?:\/\//i.test(text)) return null;
  try {
    const url = new URL(text.trim());
    return (
      url.hostname
        .replace(/^\[(.*)\]$/, '$1')
        .replace(/\.$/, '')
        .toLowerCase() || null
    );
  } catch {
    return null;
  }
}

/** The `default`s of a JSON Schema, however deep: what a connector uses when the config is silent. */
function schemaDefaults(schema: unknown, into: unknown[] = []): unknown[] {
  if (Array.isArray(schema)) for (const item of schema) schemaDefaults(item, into);
  else if (schema && typeof schema === 'object') {
    for (const [key, item] of Object.entries(schema)) {
      if (key === 'default') into.push(item);
      else schemaDefaults(item, into);
    }
  }
  return into;
}

/** The hosts credentials set now are granted for, given the configs of this moment. */
export function grantedHosts(definition: ConnectorDefinition, configs: unknown[]): string[] {
  const hosts = new Set<string>();
  urlHosts(schemaDefaults(definition.optionsSchema), hosts);
  for (const feed of Object.values(definition.feeds ?? {}))
    urlHosts(schemaDefaults(feed.configSchema), hosts);
  for (const method of definition.authSchema?.methods ?? []) {
    if (method.type === 'oauth')
      urlHosts([method.authorizationUrl, method.tokenUrl, method.userinfoUrl], hosts);
  }
  urlHosts(configs, hosts);
  return [...hosts].sort();
}

/**
 * Fixes the grant of a connection whose credentials were just set, in the caller's transaction:
 * from the definition and the connection's and feeds' config as they are now.
 */
export async function grantCredentialHosts(
  client: PoolClient,
  connectionId: string,
  definition: ConnectorDefinition,
): Promise<string[]> {
  const { rows } = await client.query<{ config: unknown }>(
    `SELECT config FROM connections WHERE id = $1
     UNION ALL SELECT config FROM feeds WHERE connection_id = $1`,
    [connectionId],
  );
  // A connector without code calls the upstream it was installed with: the credentials are for
  // there, as it is now. An upgrade or refresh that moves it does not take them along.
  const { rows: installs } = await client.query<{ generated: Generated | null }>(
    `SELECT d.generated FROM connections c
       JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
      WHERE c.id = $1`,
    [connectionId],
  );
  const hosts = [
    ...new Set([
      ...grantedHosts(
        definition,
        rows.map((row) => row.config),
      ),
      ...upstreamHosts(definition, installs[0]?.generated ?? null),
    ]),
  ].sort();
  await client.query('UPDATE connections SET granted_hosts = $2 WHERE id = $1', [connectionId, hosts]);
  return hosts;
}

/** Why a run whose config is `config` may not use the credentials granted for `granted`, or null. */
export function ungrantedConfig(granted: readonly string[], config: unknown): string | null {
  const allowed = new Set(granted);
  const outside = [...urlHosts(config)].filter((host) => !allowed.has(host));
  if (outside.length === 0) return null;
  return `the config points at ${outside.join(', ')}, where this connection's credentials were not given for (they may reach ${
    granted.length > 0 ? granted.join(', ') : 'no host'
  }); set the connection's credentials again to let them go there`;
}
