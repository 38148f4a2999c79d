/** `svc action run`: one action of a connection, as a run on the server. */

import { checkId, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { followRun } from './logs.js';
import { parseJsonObject } from './pairs.js';
import type { RunRecord } from './run-record.js';

/** Queues the action and prints the run's id, or follows it to the end with `--follow`. Answers the exit code. */
export async function actionRun(
  connectionId: string,
  actionKey: string,
  flags: SessionFlags & { input?: string; follow?: boolean },
  io: RuntimeIo,
): Promise<number> {
  checkId('connection', connectionId, '"svc connection list" shows them');
  const input = parseJsonObject('--input', flags.input);
  const api = await openApi(io, flags);
  const { run } = await api.call<{ run: RunRecord }>(
    'POST',
    `/connections/${connectionId}/actions/${encodeURIComponent(actionKey)}`,
    { input: input ?? {} },
    {
      // 404 is either: the server's detail names the actions the connector has when it is the action.
      not_found: ({ detail }) =>
        /has no action/.test(detail) ? undefined : `"svc connection list" shows the org's connections`,
      conflict: `resume it first: svc connection resume ${connectionId}`,
      validation_failed: `give --input as the action's inputSchema asks ("svc connector list --json" shows it)`,
    },
  );
  const waits = run.approvalStatus === 'pending';
  io.err(
    waits
      ? `action run ${run.id} waits for approval: svc runs approve ${run.id} (or svc runs reject ${run.id})`
      : `queued action run ${run.id}: ${actionKey} of connection ${connectionId}`,
  );
  if (flags.follow) return followRun(api, String(run.id), io);
  io.out(String(run.id));
  io.err(`follow it: svc runs logs ${run.id} --follow`);
  return 0;
}
