import type { ConnectorDefinition } from '@svc/connector-sdk';
import type { Generated } from './types.js';

/**
 * The hosts a code-less connector's calls go to: the MCP server, or each operation's server (the
 * definition's `serverUrl`, else the description's `servers`: whoever serves the description at
 * `specUrl` chooses them, and the admin chose that description). A connection's credentials are
 * granted for these when they are set (connections/grants.ts), never for where a later upgrade or
 * refresh moves them; the egress policy still decides whether an address may be reached at all.
 */
export function upstreamHosts(definition: ConnectorDefinition, generated: Generated | null): string[] {
  if (!generated) return [];
  const urls = [
    definition.mcpConfig?.upstreamUrl,
    ...Object.values(generated.operations ?? {}).map((operation) => operation.serverUrl),
  ];
  const hosts = new Set<string>();
  for (const url of urls) {
    if (!url) continue;
    try {
      hosts.add(new URL(url).hostname.replace(/^\[|\]$/g, ''));
    } catch {
      // An operation without a usable server fails at its call, saying so.
    }
  }
  return [...hosts];
}
