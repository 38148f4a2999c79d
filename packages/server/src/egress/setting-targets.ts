import { isIP } from 'node:net';
import type { AgentConfigPatch } from '@svc/core';
import { type ProblemDetail, ProblemError } from '../http/problem.js';
import { pointer } from '../http/validation.js';
import type { DeploymentEgress } from './deployment.js';
import { bareHost, checkAddress } from './policy.js';

/**
 * Write-time rules of agent settings that depend on the deployment (DESIGN.md section 6): an
 * address the guarded client would refuse, written as a literal IP (or `localhost`), and a stdio MCP
 * command that SVC_MCP_COMMANDS does not name. Host names are decided when connecting, since what
 * they resolve to changes. Throws 422 `setting_refused` listing every refused value.
 */
export function checkSettingTargets(patch: AgentConfigPatch, egress: DeploymentEgress): void {
  const errors: NonNullable<ProblemDetail> = [];
  const refuse = (path: PropertyKey[], message: string) =>
    errors.push({ path: pointer(['body', ...path]), message });
  const checkUrl = (path: PropertyKey[], url: string | undefined) => {
    const message = url === undefined ? null : literalRefusal(url, egress);
    if (message) refuse(path, message);
  };

  checkUrl(['egressConfig', 'proxyUrl'], patch.egressConfig?.proxyUrl);
  for (const [id, server] of Object.entries(patch.mcpServers ?? {})) {
    checkUrl(['mcpServers', id, 'url'], server.url);
    if (server.command !== undefined && !egress.mcpCommands.includes(server.command)) {
      refuse(['mcpServers', id, 'command'], commandRefusal(server.command, egress.mcpCommands));
    }
  }
  for (const [i, skill] of (patch.skillsConfig?.skills ?? []).entries()) {
    if (skill.source?.includes(':')) checkUrl(['skillsConfig', 'skills', i, 'source'], skill.source);
  }

  if (errors.length > 0) {
    const detail =
      errors.length === 1
        ? `${errors[0]?.path}: ${errors[0]?.message}`
        : `this server refuses ${errors.length} values: ${errors.map((e) => e.path).join(', ')}`;
    throw new ProblemError(422, 'setting_refused', detail, errors);
  }
}

function literalRefusal(url: string, egress: DeploymentEgress): string | null {
  let host: string;
  try {
    host = bareHost(new URL(url).hostname);
  } catch {
    return null; // e.g. a secret reference in the host: decided when connecting
  }
  // RFC 6761: `localhost` and its subdomains always name this host.
  const address = isIP(host) ? host : /(^|\.)localhost\.?$/.test(host) ? '127.0.0.1' : null;
  return address === null ? null : (checkAddress(egress.policy, host, address)?.message ?? null);
}

function commandRefusal(command: string, allowed: readonly string[]): string {
  if (allowed.length === 0) {
    return `this server runs no stdio MCP servers (SVC_MCP_COMMANDS is unset): set SVC_MCP_COMMANDS=${command} on the server (a comma list of executable names or absolute paths, such as npx,uvx) to allow it, or connect to the MCP server by "url"`;
  }
  return `"${command}" is not an MCP command this server runs (SVC_MCP_COMMANDS=${allowed.join(',')}): add ${command} to SVC_MCP_COMMANDS on the server to allow it`;
}
