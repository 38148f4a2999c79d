import { setTimeout as sleep } from 'node:timers/promises';
import type { ActionDefinition, JsonSchema } from '@svc/connector-sdk';
import type { AgentConfig } from '@svc/core';
import { dynamicTool, jsonSchema } from 'ai';
import type { Pool } from 'pg';
import { ProblemError } from '../http/problem.js';
import type { OrgRef } from '../http/types.js';
import { createActionRun, type RunRow, runById } from '../runs/actions.js';
import type { AgentTool } from './mcp.js';
import { toolAllowed } from './policy.js';

/** How long a call waits for its run to end before answering that it is still running. */
export const DEFAULT_ACTION_WAIT_MS = 60_000;
const ENDED = new Set(['completed', 'failed', 'cancelled', 'timeout']);

/** What the model gets back: the connector's ActionResult, and the run that holds it. */
export interface ActionToolResult {
  success: boolean;
  output?: Record<string, unknown>;
  error?: string;
  runId?: number;
  /** Set while the run has not ended: it goes on, and its result lands on the run. */
  status?: 'pending' | 'running';
}

interface ActionConnection {
  id: string;
  connector_key: string;
  connector_name: string;
  display_name: string | null;
  actions: Record<string, ActionDefinition>;
}

export interface ConnectorActionDeps {
  pool: Pool;
  org: OrgRef;
  agentId: string;
  /** The message whose turn calls the tools, for the run's log. */
  messageId: string;
  config: Partial<AgentConfig>;
  /** Tools the turn has already (MCP): a connector action never shadows one of them. */
  taken: AgentTool[];
  waitMs?: number;
}

const modelNameOf = (connectorKey: string, actionKey: string) =>
  `${connectorKey}__${actionKey}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

/**
 * Every action of every active connection of the org, as tools its agents call by
 * `<connectorKey>.<actionKey>`, filtered by `toolsConfig`; one that `requiresApproval` pauses the
 * turn for a person (unless in `preApprovedTools`). Connectors that run on devices are left out:
 * no worker here would ever take their runs. An org with several connections of one connector
 * keeps the same tool names (so allow-lists and pre-approvals do not change when a second one is
 * added): each tool then takes a required `connectionId` naming which one.
 */
export async function connectorActionTools(
  deps: ConnectorActionDeps,
): Promise<{ tools: AgentTool[]; problems: string[] }> {
  const { rows } = await deps.pool.query<ActionConnection>(
    `SELECT c.id, c.connector_key, d.definition->>'name' AS connector_name, c.display_name,
            d.definition->'actions' AS actions
       FROM connections c
       JOIN connector_definitions d ON d.org_id = c.org_id AND d.connector_key = c.connector_key
      WHERE c.org_id = $1 AND c.status = 'active' AND NOT d.runs_on_device
        AND jsonb_typeof(d.definition->'actions') = 'object'
      ORDER BY c.connector_key, c.id`,
    [deps.org.id],
  );
  const byConnector = new Map<string, ActionConnection[]>();
  for (const row of rows)
    byConnector.set(row.connector_key, [...(byConnector.get(row.connector_key) ?? []), row]);

  const names = new Set(deps.taken.map((t) => t.name));
  const modelNames = new Set(deps.taken.map((t) => t.modelName));
  const tools: AgentTool[] = [];
  const problems: string[] = [];
  for (const [connectorKey, connections] of byConnector) {
    const actions = Object.values((connections[0] as ActionConnection).actions);
    for (const action of actions.sort((a, b) => a.key.localeCompare(b.key))) {
      const name = `${connectorKey}.${action.key}`;
      if (!toolAllowed(name, deps.config.toolsConfig)) continue;
      const modelName = modelNameOf(connectorKey, action.key);
      if (names.has(name) || modelNames.has(modelName)) {
        problems.push(`connector action "${name}": another tool of the agent has its name (${modelName})`);
        continue;
      }
      names.add(name);
      modelNames.add(modelName);
      tools.push({
        name,
        modelName,
        needsApproval: action.requiresApproval,
        tool: actionTool(deps, connectorKey, action, connections),
      });
    }
  }
  return { tools, problems };
}

/** The input property that picks the connection when there are several: `connectionId`, unless the action has one. */
const pickerOf = (schema: JsonSchema | undefined) =>
  (schema?.properties as Record<string, unknown> | undefined)?.connectionId === undefined
    ? 'connectionId'
    : 'svcConnectionId';

function actionTool(
  deps: ConnectorActionDeps,
  connectorKey: string,
  action: ActionDefinition,
  connections: ActionConnection[],
) {
  const several = connections.length > 1;
  const one = connections[0] as ActionConnection;
  const picker = pickerOf(action.inputSchema);
  const base: JsonSchema = action.inputSchema ?? { type: 'object', properties: {} };
  const list = connections.map((c) => `${c.id}${c.display_name ? ` (${c.display_name})` : ''}`).join(', ');
  const schema: JsonSchema = several
    ? {
        ...base,
        type: 'object',
        properties: {
          ...((base.properties as Record<string, unknown> | undefined) ?? {}),
          [picker]: {
            type: 'integer',
            enum: connections.map((c) => Number(c.id)),
            description: `Which ${one.connector_name} connection to act on: ${list}`,
          },
        },
        required: [...((base.required as string[] | undefined) ?? []), picker],
      }
    : base;
  const where =
    !several && one.display_name ? `${one.connector_name}: ${one.display_name}` : one.connector_name;
  return dynamicTool({
    description: `${action.name} (${where})${action.description ? `. ${action.description}` : ''}`,
    inputSchema: jsonSchema(schema as Parameters<typeof jsonSchema>[0]),
    execute: async (raw, { abortSignal, toolCallId }): Promise<ActionToolResult> => {
      const input = { ...((raw ?? {}) as Record<string, unknown>) };
      let connectionId = one.id;
      if (several) {
        const chosen = String(input[picker] ?? '');
        delete input[picker];
        const connection = connections.find((c) => c.id === chosen);
        if (!connection) {
          return { success: false, error: `"${picker}" must name one of the connections: ${list}` };
        }
        connectionId = connection.id;
      }
      let run: RunRow;
      try {
        run = await createActionRun(deps.pool, {
          orgId: deps.org.id,
          connectionId,
          actionKey: action.key,
          input,
          // The person approved this very call in the turn, or the agent's preApprovedTools did.
          approvalStatus: action.requiresApproval ? 'approved' : 'auto',
          createdBy: `agent ${deps.agentId} (message ${deps.messageId}, tool call ${toolCallId})`,
          inputPath: '',
        });
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error;
        // Told to the model, which may correct its input and call again: nothing ran.
        const details = (error.errors ?? []).map((e) => `${e.path || '(input)'}: ${e.message}`);
        return { success: false, error: [error.detail, ...details].join('; ') };
      }
      const ended = await waitForEnd(
        deps.pool,
        deps.org.id,
        run.id,
        deps.waitMs ?? DEFAULT_ACTION_WAIT_MS,
        abortSignal,
      );
      return resultOf(ended ?? run, connectorKey);
    },
  });
}

/**
 * The run once it ended, or as it is when `waitMs` ran out. Polled: nothing announces a run's
 * end, and a short action ends within a few polls. Throws when the turn is stopped meanwhile (the
 * run goes on; its result lands on the run).
 */
async function waitForEnd(
  pool: Pool,
  orgId: string,
  runId: string,
  waitMs: number,
  signal: AbortSignal | undefined,
): Promise<RunRow | null> {
  const deadline = Date.now() + waitMs;
  let delay = 50;
  for (;;) {
    const row = await runById(pool, orgId, runId);
    const left = deadline - Date.now();
    if (!row || ENDED.has(row.status) || left <= 0) return row;
    await sleep(Math.min(delay, left), undefined, signal ? { signal } : {});
    delay = Math.min(delay * 2, 1000);
  }
}

function resultOf(run: RunRow, connectorKey: string): ActionToolResult {
  const runId = Number(run.id);
  const output = run.action_output ?? undefined;
  switch (run.status) {
    case 'completed':
      return { success: true, ...(output ? { output } : {}), runId };
    case 'pending':
    case 'running':
      return {
        success: false,
        status: run.status,
        runId,
        error:
          `the ${connectorKey} action has not finished yet (run ${runId} is ${run.status}); it goes on by itself ` +
          'and its result will be on the run: do not call the action again for this',
      };
    default:
      return {
        success: false,
        ...(output ? { output } : {}),
        error: run.error_message ?? `the run ended ${run.status}`,
        runId,
      };
  }
}
