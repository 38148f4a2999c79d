/**
 * Connectors without code (an OpenAPI description or an MCP server, issue 22): the install body
 * from a definition file, what the server generated from it, and `svc connector refresh`, which
 * has the server read the upstream again.
 */

import { type DefinitionFile, readDefinitionFile } from '../connector/definition-file.js';
import { checkId, type Hints, type Locate, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import type { ConnectorRecord } from './connectors.js';
import { table } from './table.js';

/** What the server read from the upstream; null for a connector with code. */
export interface Generated {
  kind: 'openapi' | 'mcp';
  refreshedAt: string;
  skipped: { operation: string; reason: string }[];
  warning: string | null;
}

export interface GeneratedAction {
  key: string;
  name?: string;
  requiresApproval?: boolean;
  annotations?: { destructiveHint?: boolean; openWorldHint?: boolean; idempotentHint?: boolean };
}

/** `POST /connectors` for a definition file: `{definition, requiresApproval?}`. */
export async function definitionBody(
  path: string,
): Promise<{ body: Record<string, unknown>; locate: Locate }> {
  const file = await readDefinitionFile(path);
  const body = {
    definition: file.definition,
    ...(file.requiresApproval ? { requiresApproval: file.requiresApproval } : {}),
  };
  return { body, locate: (pointer) => locateProblem(file, pointer) };
}

/**
 * The server names paths of the body (`/body/definition/feeds`, `/body/requiresApproval/x`) or of
 * the definition (`/definition/feeds`); the file holds the definition with `requiresApproval`
 * beside its fields.
 */
function locateProblem(file: DefinitionFile, pointer: string): string | undefined {
  const keys = pointer
    .split('/')
    .filter(Boolean)
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (keys[0] === 'body') keys.shift();
  if (keys[0] === 'definition') keys.shift();
  return file.locate(keys.map((key) => (/^\d+$/.test(key) ? Number(key) : key)));
}

export const definitionHints = (path: string): Hints => ({
  validation_failed: ({ errors }) =>
    errors.some((error) => UPSTREAM.test(error.path))
      ? `check the upstream's URL in ${path}, and that the server may reach it (its operator's SVC_EGRESS_ALLOW); then install it again`
      : `fix the definition in ${path} and install it again (svc connector install ${path})`,
});

/** The fields naming where a code-less connector's actions come from. */
const UPSTREAM = /mcpConfig|openapiConfig/;

const FROM: Record<Generated['kind'], string> = {
  openapi: 'its OpenAPI description',
  mcp: "its MCP server's tools",
};

/** The generated actions (stdout: data), then what was skipped and why (stderr: what happened). */
export function printGenerated(connector: ConnectorRecord, io: RuntimeIo): void {
  const generated = connector.generated;
  if (!generated) return;
  const actions = Object.values(connector.definition.actions ?? {}) as GeneratedAction[];
  if (actions.length > 0) {
    const rows = actions.map((action) => [
      action.key,
      action.requiresApproval ? 'required' : '-',
      hints(action),
    ]);
    for (const line of table(['ACTION', 'APPROVAL', 'HINTS'], rows)) io.out(line);
  }
  io.err(`${actions.length} action${actions.length === 1 ? '' : 's'} generated from ${FROM[generated.kind]}`);
  for (const { operation, reason } of generated.skipped) io.err(`skipped ${operation}: ${reason}`);
  if (generated.warning) {
    io.err(`warning: ${generated.warning}`);
    io.err(
      `once a connection has its credentials: svc connector refresh ${connector.connectorKey} --connection <id> reads it again with them`,
    );
  }
}

/** The annotations an agent's client reads, as words: why an action may need approval. */
function hints(action: GeneratedAction): string {
  const { destructiveHint, idempotentHint, openWorldHint } = action.annotations ?? {};
  const words = [
    destructiveHint && 'destructive',
    idempotentHint && 'idempotent',
    openWorldHint && 'open-world',
  ].filter(Boolean);
  return words.join(',') || '-';
}

interface RefreshAnswer {
  result: 'updated' | 'unchanged';
  connector: ConnectorRecord;
  added: string[];
  removed: string[];
}

/** `svc connector refresh <key> [--connection <id>]`: the upstream read again, actions replaced. */
export async function connectorRefresh(
  key: string,
  flags: SessionFlags & { connection?: string; json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  const connectionId = flags.connection
    ? Number(checkId('connection', flags.connection, 'svc connection list'))
    : undefined;
  const api = await openApi(io, flags);
  const answer = await api.call<RefreshAnswer>(
    'POST',
    `/connectors/${encodeURIComponent(key)}/refresh`,
    connectionId === undefined ? {} : { connectionId },
    {
      forbidden: ({ detail }) =>
        /scope/.test(detail)
          ? 'refreshing a connector needs an admin token: svc login --token <ADMIN_TOKEN>'
          : undefined,
      not_found: `svc connector list shows the org's connectors${connectionId === undefined ? '' : ', svc connection list its connections'}`,
      validation_failed: ({ errors }) => {
        if (errors.some((error) => /connection/i.test(error.path)))
          return `give a connection of ${key} (svc connection list)`;
        if (errors.some((error) => UPSTREAM.test(error.path)))
          return `if the upstream wants credentials to answer, give a connection that has them: svc connector refresh ${key} --connection <id>`;
        return 'only a connector installed from a definition (openapiConfig or mcpConfig) is refreshed; one with code changes when its code is installed again (svc connector install ./connector.ts)';
      },
    },
  );
  if (flags.json) {
    io.out(JSON.stringify(answer, null, 2));
    return;
  }
  const { connector, added, removed } = answer;
  io.out(
    `${answer.result} connector ${connector.connectorKey} ${connector.version} (${connector.name}): ` +
      `${added.length} action${added.length === 1 ? '' : 's'} added, ${removed.length} removed`,
  );
  for (const action of added) io.out(`added    ${action}`);
  for (const action of removed) io.out(`removed  ${action}`);
  if (answer.result === 'updated' && added.length + removed.length === 0)
    io.err('the same actions, with changed names, descriptions, schemas or approvals');
  for (const { operation, reason } of connector.generated?.skipped ?? [])
    io.err(`skipped ${operation}: ${reason}`);
  if (connector.generated?.warning) io.err(`warning: ${connector.generated.warning}`);
}
