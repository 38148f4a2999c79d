import { isMcpShell } from '@svc/core';
import { type EgressPolicy, parseEgressAllow } from './policy.js';

/** What the deployment lets orgs reach and run, from the server's environment (read once at start). */
export interface DeploymentEgress {
  /** `SVC_EGRESS_ALLOW`. */
  policy: EgressPolicy;
  /** `SVC_MCP_COMMANDS`: the executables a stdio MCP server may name, as names or absolute paths. */
  mcpCommands: readonly string[];
}

const COMMAND = /^([A-Za-z0-9_+-][A-Za-z0-9._+-]*|\/[^\s\0,]+)$/;

/** `SVC_MCP_COMMANDS`: a comma list of executable names (found on the server's PATH) or absolute paths. */
export function parseMcpCommands(raw: string | undefined): string[] {
  const commands = (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const command of commands) {
    if (!COMMAND.test(command)) {
      throw new Error(
        `SVC_MCP_COMMANDS entry "${command}" is not an executable name (such as npx) or an absolute path`,
      );
    }
    if (isMcpShell(command)) {
      throw new Error(
        `SVC_MCP_COMMANDS names the shell "${command}": a shell runs any command line an org writes, so svc never runs one as an MCP server; name the MCP servers' executables instead`,
      );
    }
  }
  return commands;
}

/** Both variables, or an error naming the malformed entry. */
export function deploymentEgressFromEnv(env: Record<string, string | undefined>): DeploymentEgress {
  return {
    policy: parseEgressAllow(env.SVC_EGRESS_ALLOW),
    mcpCommands: parseMcpCommands(env.SVC_MCP_COMMANDS),
  };
}
