/** `runAction`: one action on your machine, without a server, with its input and result checked. */

import { schemaProblems } from '../definition/json-schema.js';
import { assertValidDefinition } from '../definition/validate.js';
import { createConnectorLogger, type LogEntry, type LogSink } from '../logging/index.js';
import type { Connector } from '../runtime/connector.js';
import { withRunLogger } from '../runtime/log.js';
import { actionResultSchema } from '../runtime/schema.js';
import type { ActionResult, SyncCredentials } from '../runtime/types.js';
import { notWireSafe } from './check.js';
import { checkAgainst, credentialValues, findByKey, HarnessError } from './inputs.js';

export interface RunActionOptions {
  actionKey: string;
  input?: Record<string, unknown>;
  credentials?: SyncCredentials | null;
  config?: Record<string, unknown>;
  /** Where log lines go as they are written, besides the run's `logs`. */
  logSink?: LogSink;
}

export interface ActionRun {
  result: ActionResult;
  /** On a server, this run would have waited for someone to approve it. */
  requiresApproval: boolean;
  /** Where `output` does not match the action's outputSchema; empty when it does. */
  outputProblems: string[];
  logs: LogEntry[];
  durationMs: number;
}

export async function runAction(connector: Connector, options: RunActionOptions): Promise<ActionRun> {
  assertValidDefinition(connector);
  const { definition } = connector;
  const action = findByKey(definition, 'action', options.actionKey);
  const input = options.input ?? {};
  checkAgainst(action.inputSchema, input, `input does not match action "${action.key}"'s inputSchema`);
  const config = options.config ?? {};
  const logger = createConnectorLogger({
    connectorKey: definition.key,
    secrets: credentialValues(definition, config, options.credentials, null),
    ...(options.logSink ? { sink: options.logSink } : {}),
  });
  const started = performance.now();
  const result: unknown = await withRunLogger(logger, () =>
    connector.execute({ actionKey: action.key, input, credentials: options.credentials ?? null, config }),
  );
  const parsed = actionResultSchema.safeParse(result);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .map((i) => `${i.path.join('.') || '(result)'}: ${i.message}`)
      .join('; ');
    throw new HarnessError(`action "${action.key}" returned no valid ActionResult: ${detail}`);
  }
  const wire = notWireSafe(parsed.data.output, 'output');
  if (wire) throw new HarnessError(`action "${action.key}" returned ${wire}`);
  const outputProblems =
    parsed.data.success && action.outputSchema && parsed.data.output
      ? schemaProblems(action.outputSchema, parsed.data.output)
      : [];
  return {
    result: parsed.data,
    requiresApproval: action.requiresApproval,
    outputProblems,
    logs: logger.entries(),
    durationMs: performance.now() - started,
  };
}
