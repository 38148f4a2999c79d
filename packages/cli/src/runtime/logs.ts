/**
 * A run's log lines, as `time level msg {fields}`, read a page at a time after the last `seq`
 * seen. Followed, it polls until the server says the run has ended and no line is new: the server
 * reads the status before the lines, so an ended status with no new lines means none will come.
 */

import { type Api, checkId, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { getRun, isOpen, RUN_IDS, type RunRecord } from './run-record.js';

interface LogLine {
  seq: number;
  level: 'debug' | 'info' | 'warn' | 'error';
  time: string;
  msg: string;
  fields: Record<string, unknown> | null;
}

interface LogPage {
  lines: LogLine[];
  nextAfter: number;
  runStatus: string;
}

/** The most the server gives in one answer. */
const PAGE = 1000;

export function formatLine(line: LogLine): string {
  const fields = line.fields && Object.keys(line.fields).length > 0 ? ` ${JSON.stringify(line.fields)}` : '';
  return `${line.time} ${line.level.padEnd(5)} ${line.msg}${fields}`;
}

/** Every line after `after`; with `follow`, also those still to come, until the run has ended. */
async function printLogs(api: Api, id: string, io: RuntimeIo, follow: boolean): Promise<void> {
  let after = 0;
  let told = false;
  for (;;) {
    const page = await api.call<LogPage>('GET', `/runs/${id}/logs?after=${after}&limit=${PAGE}`, undefined, {
      not_found: `org ${api.session.org} has no run ${id}: ${RUN_IDS}`,
    });
    for (const line of page.lines) {
      // Only the latest lines are kept on a run: a gap is lines let go, not lines lost here.
      if (line.seq > after + 1) io.err(`(${line.seq - after - 1} earlier line(s) not kept by the server)`);
      io.out(formatLine(line));
      after = line.seq;
    }
    after = Math.max(after, page.nextAfter);
    if (page.lines.length === PAGE) continue;
    if (!follow || (!isOpen(page.runStatus) && page.lines.length === 0)) return;
    // Ended with lines just read: one more read, at once, confirms that none follow them.
    if (!isOpen(page.runStatus)) continue;
    if (!told && page.runStatus === 'pending') {
      told = true;
      await tellWhyPending(api, id, io);
    }
    await io.sleep(io.pollMs);
  }
}

/** A pending run may wait for a person, not for a worker: say so once. */
async function tellWhyPending(api: Api, id: string, io: RuntimeIo): Promise<void> {
  const run = await getRun(api, id);
  io.err(
    run.approvalStatus === 'pending'
      ? `run ${id} waits for approval: svc runs approve ${id} (or reject) in another terminal; following until it ends`
      : `run ${id} waits for a worker (svc server and svc worker run them, while its connection is active); following until it ends`,
  );
}

/** `svc runs logs`: the log so far, or with `--follow` until the run has ended. */
export async function runsLogs(
  id: string,
  flags: SessionFlags & { follow?: boolean },
  io: RuntimeIo,
): Promise<number> {
  checkId('run', id, RUN_IDS);
  const api = await openApi(io, flags);
  if (flags.follow) return followRun(api, id, io);
  await printLogs(api, id, io, false);
  return 0;
}

/**
 * The run's log line by line until it has ended, then how it ended on stderr. Exit code 0 when it
 * completed, 2 when it failed, timed out or was cancelled (or rejected).
 */
export async function followRun(api: Api, id: string, io: RuntimeIo): Promise<number> {
  await printLogs(api, id, io, true);
  const run = await getRun(api, id);
  io.err(summary(run));
  return run.status === 'completed' ? 0 : 2;
}

function summary(run: RunRecord): string {
  const ended = `run ${run.id} ${run.status}`;
  if (run.status === 'cancelled' && run.approvalStatus === 'rejected')
    return `${ended}: rejected, it never ran`;
  if (run.actionKey) {
    const output = run.actionOutput ? `, output ${JSON.stringify(run.actionOutput)}` : '';
    return `${ended}${run.errorMessage ? `: ${run.errorMessage}` : ''}${output}`;
  }
  const items = `${run.itemsCollected} item${run.itemsCollected === 1 ? '' : 's'} collected${
    run.itemsRejected ? `, ${run.itemsRejected} rejected (the log says why)` : ''
  }`;
  return `${ended}: ${items}${run.errorMessage ? `; ${run.errorMessage}` : ''}`;
}
