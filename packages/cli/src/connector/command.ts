/**
 * `svc connector sync` and `svc connector action`: run a connector on this machine through the
 * SDK's harness, with no server. Events go to stdout as JSON lines, one per event, as they arrive;
 * the summary and the connector's log lines go to stderr, so stdout pipes cleanly into `jq`.
 */

import {
  type ActionRun,
  type ConnectorDefinition,
  type LogEntry,
  type OAuthAuthMethod,
  runAction,
  runSync,
  type SyncCredentials,
  SyncFailedError,
  type SyncRun,
} from '@svc/connector-sdk';
import { parseJsonObject } from '../runtime/pairs.js';
import { loadConnector } from './load.js';

export interface ConnectorIo {
  env: NodeJS.ProcessEnv;
  out: (line: string) => void;
  err: (line: string) => void;
}

export interface SyncFlags {
  feed: string;
  config?: string;
  checkpoint?: string;
  tokenEnv?: string;
  /** `field=VARIABLE` pairs: an env_keys value read from the environment, never from argv. */
  envKey?: string[];
}

export interface ActionFlags {
  action: string;
  input?: string;
  config?: string;
  tokenEnv?: string;
  envKey?: string[];
  approve?: boolean;
}

/** The access token is read from the environment: a flag's value would show in `ps` and shell history. */
export const DEFAULT_TOKEN_ENV = 'SVC_CONNECTOR_ACCESS_TOKEN';

export async function connectorSync(file: string, flags: SyncFlags, io: ConnectorIo): Promise<number> {
  const config = withEnvKeys(parseJsonObject('--config', flags.config) ?? {}, flags.envKey, io.env);
  // `null` is a checkpoint too: what a sync returns when it has nothing to resume from.
  const checkpoint =
    flags.checkpoint?.trim() === 'null' ? null : (parseJsonObject('--checkpoint', flags.checkpoint) ?? null);
  const connector = await loadConnector(file);
  const credentials = oauthCredentials(connector.definition, flags.tokenEnv, io.env);
  let run: SyncRun;
  try {
    run = await runSync(connector, {
      feedKey: flags.feed,
      config,
      checkpoint,
      credentials,
      onEvents: (events) => {
        for (const event of events) io.out(JSON.stringify(event));
      },
      logSink: (entry) => io.err(logLine(entry)),
    });
  } catch (error) {
    if (error instanceof SyncFailedError) reportPartialSync(error, io);
    throw error;
  }
  const duplicates = run.duplicateOriginIds.length;
  io.err(
    `synced feed "${flags.feed}" of ${connector.definition.key}: ${run.events.length} event${run.events.length === 1 ? '' : 's'}` +
      `${duplicates > 0 ? ` (${duplicates} origin_id${duplicates === 1 ? '' : 's'} seen twice: the server keeps one row each)` : ''}` +
      ` in ${Math.round(run.durationMs)} ms`,
  );
  if (Object.keys(run.metadata).length > 0) io.err(`metadata: ${JSON.stringify(run.metadata)}`);
  if (run.auth_update)
    io.err('auth_update: returned (the server would store it on the auth profile; not shown)');
  io.err(`checkpoint: ${JSON.stringify(run.checkpoint)}`);
  if (run.checkpoint !== null)
    io.err(`next: --checkpoint ${shellQuote(JSON.stringify(run.checkpoint))} to sync from here`);
  return 0;
}

export async function connectorAction(file: string, flags: ActionFlags, io: ConnectorIo): Promise<number> {
  const input = parseJsonObject('--input', flags.input) ?? {};
  const config = withEnvKeys(parseJsonObject('--config', flags.config) ?? {}, flags.envKey, io.env);
  const connector = await loadConnector(file);
  const action = connector.definition.actions?.[flags.action];
  // An action that needs approval on a server is a real change somewhere: locally too, ask for it.
  if (action?.requiresApproval && !flags.approve) {
    io.err(
      `action "${flags.action}" requires approval: on a server it waits until someone approves it. Re-run with --approve to run it now; nothing was done`,
    );
    return 1;
  }
  const credentials = oauthCredentials(connector.definition, flags.tokenEnv, io.env);
  const run: ActionRun = await runAction(connector, {
    actionKey: flags.action,
    input,
    config,
    credentials,
    logSink: (entry) => io.err(logLine(entry)),
  });
  io.out(JSON.stringify(run.result));
  for (const problem of run.outputProblems) io.err(`output does not match the outputSchema: ${problem}`);
  const verdict = run.result.success ? 'succeeded' : `failed: ${run.result.error ?? 'no error text'}`;
  io.err(
    `action "${flags.action}" of ${connector.definition.key} ${verdict} in ${Math.round(run.durationMs)} ms`,
  );
  return run.result.success && run.outputProblems.length === 0 ? 0 : 1;
}

/** Events already printed stand, as they would on a server; the last checkpoint is where to resume. */
function reportPartialSync(error: SyncFailedError, io: ConnectorIo): void {
  io.err(
    `before failing, the sync emitted ${error.events.length} event(s) and committed ${error.checkpointUpdates.length} checkpoint(s)`,
  );
  const last = error.lastCheckpoint;
  if (last) io.err(`resume with: --checkpoint ${shellQuote(JSON.stringify(last))}`);
}

/**
 * Merges `--env-key api_key=SHOP_API_KEY` values into config, as the server merges a connection's
 * env_keys values: a secret typed into `--config` would stay in `ps` and the shell's history.
 */
function withEnvKeys(
  config: Record<string, unknown>,
  pairs: string[] | undefined,
  env: NodeJS.ProcessEnv,
): Record<string, unknown> {
  const merged = { ...config };
  for (const pair of pairs ?? []) {
    const match = /^([^=\s]+)=([A-Za-z_][A-Za-z0-9_]*)$/.exec(pair);
    if (!match) throw new Error(`--env-key "${pair}": write it as field=VARIABLE, e.g. api_key=SHOP_API_KEY`);
    const [, field = '', variable = ''] = match;
    const value = env[variable];
    if (!value) throw new Error(`--env-key ${pair}: ${variable} is not set or is empty`);
    merged[field] = value;
  }
  return merged;
}

/** Single quotes, with any single quote inside closed, escaped and reopened: safe to paste into sh. */
const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * For a connector with an oauth method: its provider, and the token from the environment. Missing,
 * it is an error only when OAuth is required: the only method, or not marked `required: false`.
 */
function oauthCredentials(
  definition: ConnectorDefinition,
  tokenEnv: string | undefined,
  env: NodeJS.ProcessEnv,
): SyncCredentials | null {
  const methods = definition.authSchema?.methods ?? [];
  const oauth = methods.find((m): m is OAuthAuthMethod => m.type === 'oauth');
  const variable = tokenEnv ?? DEFAULT_TOKEN_ENV;
  const token = env[variable];
  if (!oauth) return null;
  const optional = oauth.required === false || methods.some((m) => m.type === 'none');
  if (!token && optional && !tokenEnv) return null;
  if (!token) {
    throw new Error(
      `this connector authenticates with OAuth (${oauth.provider}): set ${variable} to an access token${tokenEnv ? '' : ', or name another variable with --token-env'}`,
    );
  }
  return { provider: oauth.provider ?? 'oauth', accessToken: token };
}

function logLine({ level, msg, time: _time, connector: _connector, ...fields }: LogEntry): string {
  const rest = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
  return `[${level}] ${msg}${rest}`;
}
