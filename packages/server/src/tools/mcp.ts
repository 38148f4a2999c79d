import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AgentConfig } from '@svc/core';
import { dynamicTool, jsonSchema, type Tool } from 'ai';
import type { FastifyBaseLogger } from 'fastify';
import type { DeploymentEgress } from '../egress/deployment.js';
import type { OrgRef } from '../http/types.js';
import type { SecretResolver } from '../secrets/resolve.js';
import { McpRefusedError, oauthClientOf } from './mcp-oauth.js';
import { toolAllowed } from './policy.js';

type McpServer = NonNullable<AgentConfig['mcpServers']>[string];

/** A tool of an agent: its name as users write it (`server.tool`) and as the model calls it. */
export interface AgentTool {
  name: string;
  /** Model APIs take `[A-Za-z0-9_-]{1,64}`: `server__tool`. */
  modelName: string;
  needsApproval: boolean;
  tool: Tool;
}

export interface McpTools {
  tools: AgentTool[];
  /** Why a server gave no tools (unreachable, refused), for the turn's log. */
  problems: string[];
  close(): Promise<void>;
}

/** A stdio server gets this environment, never the server's own, which holds its secrets. */
function stdioEnvironment(env: Record<string, string> | undefined): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', ...env };
}

function hostAllowed(host: string, network: AgentConfig['networkConfig'] | undefined): boolean {
  // `evil.example.com.` is `evil.example.com`: a trailing dot must not slip past a denied domain.
  const name = host.toLowerCase().replace(/\.+$/, '');
  const matches = (pattern: string) =>
    pattern.startsWith('*.') ? name.endsWith(pattern.slice(1)) : name === pattern;
  if (network?.deniedDomains?.some(matches)) return false;
  return network?.allowedDomains ? network.allowedDomains.some(matches) : true;
}

/**
 * Connects to the agent's MCP servers for one turn: `url` ones through the guarded egress client
 * (so an org cannot reach the server's own network) and the agent's `networkConfig`, `command` ones
 * only when SVC_MCP_COMMANDS names them, each with its secret references resolved for this org.
 * A server that cannot be reached gives no tools and a problem; the turn goes on without it.
 */
export async function connectMcpTools(deps: {
  org: OrgRef;
  config: Partial<AgentConfig>;
  secrets: SecretResolver;
  egress: DeploymentEgress & { fetch: typeof fetch };
  log: FastifyBaseLogger;
}): Promise<McpTools> {
  const { config } = deps;
  const clients: Client[] = [];
  const tools: AgentTool[] = [];
  const problems: string[] = [];
  for (const [id, server] of Object.entries(config.mcpServers ?? {})) {
    try {
      const client = new Client({ name: 'svc', version: '0.1.0' });
      const { transport, connected } = await transportOf(server, deps);
      await client.connect(transport);
      clients.push(client);
      const listed = await client.listTools();
      connected();
      for (const remote of listed.tools) {
        const name = `${id}.${remote.name}`;
        if (!toolAllowed(name, config.toolsConfig)) continue;
        const annotations = remote.annotations ?? {};
        tools.push({
          name,
          modelName: `${id}__${remote.name}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64),
          needsApproval: annotations.destructiveHint === true && annotations.readOnlyHint !== true,
          tool: dynamicTool({
            description: remote.description ?? remote.title ?? name,
            inputSchema: jsonSchema(remote.inputSchema as Parameters<typeof jsonSchema>[0]),
            execute: async (input, { abortSignal }) => {
              const result = await client.callTool(
                { name: remote.name, arguments: input as Record<string, unknown> },
                undefined,
                { signal: abortSignal },
              );
              return result.structuredContent ?? result.content;
            },
          }),
        });
      }
    } catch (error) {
      // Our own reasons in full; of a remote failure, the name and code only: a remote server's
      // answer could echo what we sent it (its headers).
      const { name, code } = error as { name?: string; code?: unknown };
      problems.push(
        `MCP server "${id}": ${
          error instanceof McpRefusedError
            ? error.message
            : `${name ?? 'Error'}${code === undefined ? '' : ` ${String(code)}`}`
        }`,
      );
    }
  }
  return {
    tools,
    problems,
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
    },
  };
}

async function transportOf(
  server: McpServer,
  deps: Parameters<typeof connectMcpTools>[0],
): Promise<{ transport: Transport; connected(): void }> {
  const headers = server.headers ? await deps.secrets.resolve(deps.org, server.headers) : {};
  if (server.url) {
    const host = new URL(server.url).hostname.replace(/^\[|\]$/g, '');
    if (!hostAllowed(host, deps.config.networkConfig)) {
      throw new McpRefusedError(`${host} is outside the agent's networkConfig`);
    }
    const oauth = server.oauth
      ? oauthClientOf(server.url, await deps.secrets.resolve(deps.org, server.oauth))
      : undefined;
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers },
      // The token requests go through it too: an authorization server is an org-written address.
      fetch: deps.egress.fetch,
      ...(oauth ? { authProvider: oauth.provider } : {}),
    });
    return { transport, connected: () => oauth?.keep() };
  }
  const command = server.command as string;
  // Checked again at each turn: the setting may predate the deployment's current list.
  if (!deps.egress.mcpCommands.includes(command)) {
    throw new McpRefusedError(`"${command}" is not in SVC_MCP_COMMANDS on this server`);
  }
  const env = server.env ? await deps.secrets.resolve(deps.org, server.env) : undefined;
  const transport = new StdioClientTransport({
    command,
    args: server.args ?? [],
    env: stdioEnvironment(env),
    stderr: 'ignore',
  });
  return { transport, connected: () => {} };
}
