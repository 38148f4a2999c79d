/**
 * `svc runs list|show|cancel|approve|reject`: connector runs, syncs and actions (`svc run` is
 * the local gateway). A run's log is in logs.ts.
 */

import { checkId, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import { getRun, isOpen, RUN_IDS, type RunRecord, subject } from './run-record.js';
import { cell, short, table, when } from './table.js';

export interface ListFlags extends SessionFlags {
  feed?: string;
  connection?: string;
  status?: string;
  type?: string;
  limit?: number;
  cursor?: string;
  json?: boolean;
}

export async function runsList(flags: ListFlags, io: RuntimeIo): Promise<void> {
  if (flags.feed !== undefined) checkId('feed', flags.feed, '"svc feed list <connectionId>" shows them');
  if (flags.connection !== undefined)
    checkId('connection', flags.connection, '"svc connection list" shows them');
  const query = new URLSearchParams();
  if (flags.feed !== undefined) query.set('feedId', flags.feed);
  if (flags.connection !== undefined) query.set('connectionId', flags.connection);
  if (flags.status !== undefined) query.set('status', flags.status);
  if (flags.type !== undefined) query.set('runType', flags.type);
  query.set('limit', String(flags.limit ?? 20));
  if (flags.cursor !== undefined) query.set('cursor', flags.cursor);
  const api = await openApi(io, flags);
  const { runs, nextCursor } = await api.call<{ runs: RunRecord[]; nextCursor: string | null }>(
    'GET',
    `/runs?${query}`,
    undefined,
    { validation_failed: 'a --cursor comes from the previous page: "svc runs list" prints the next one' },
  );
  if (flags.json) {
    io.out(JSON.stringify({ org: api.session.org, runs, nextCursor }, null, 2));
    return;
  }
  if (runs.length === 0) {
    const filtered = flags.feed ?? flags.connection ?? flags.status ?? flags.type;
    io.out(
      filtered
        ? 'No runs match: try fewer filters.'
        : `No runs in org ${api.session.org} yet: "svc feed sync <feedId>" starts one.`,
    );
    return;
  }
  const rows = runs.map((r) => [
    String(r.id),
    r.runType,
    subject(r),
    r.status,
    r.approvalStatus,
    String(r.itemsCollected),
    when(r.createdAt),
    short(r.errorMessage, 80),
  ]);
  for (const line of table(['ID', 'TYPE', 'OF', 'STATUS', 'APPROVAL', 'ITEMS', 'CREATED', 'ERROR'], rows))
    io.out(line);
  if (nextCursor) io.err(`more: svc runs list --cursor ${nextCursor}${sameFilters(flags)}`);
}

function sameFilters(flags: ListFlags): string {
  const parts = [
    flags.feed && `--feed ${flags.feed}`,
    flags.connection && `--connection ${flags.connection}`,
    flags.status && `--status ${flags.status}`,
    flags.type && `--type ${flags.type}`,
    flags.limit && `--limit ${flags.limit}`,
  ];
  return parts
    .filter(Boolean)
    .map((part) => ` ${part}`)
    .join('');
}

export async function runsShow(
  id: string,
  flags: SessionFlags & { json?: boolean },
  io: RuntimeIo,
): Promise<void> {
  checkId('run', id, RUN_IDS);
  const api = await openApi(io, flags);
  const run = await getRun(api, id);
  if (flags.json) {
    io.out(JSON.stringify({ run }, null, 2));
    return;
  }
  const fields: [string, string][] = [
    ['run', String(run.id)],
    ['type', run.runType],
    ['status', run.status],
    ['approval', run.approvalStatus],
    ['connector', run.connectorKey ? `${run.connectorKey} ${cell(run.connectorVersion)}` : '-'],
    ['connection', cell(run.connectionId)],
    ['feed', cell(run.feedId)],
  ];
  if (run.actionKey) {
    fields.push(['action', run.actionKey], ['input', JSON.stringify(run.actionInput ?? {})]);
    fields.push(['output', run.actionOutput ? JSON.stringify(run.actionOutput) : '-']);
  } else {
    fields.push(['items', `${run.itemsCollected} collected, ${run.itemsRejected ?? 0} rejected`]);
    fields.push(['checkpoint', run.checkpoint ? JSON.stringify(run.checkpoint) : '-']);
  }
  fields.push(
    ['error', cell(run.errorMessage)],
    ['worker', cell(run.claimedBy)],
    ['created', when(run.createdAt)],
    ['started', when(run.claimedAt)],
    ['ended', when(run.completedAt)],
    ['log lines', String(run.logLines ?? 0)],
  );
  const width = Math.max(...fields.map(([name]) => name.length));
  for (const [name, value] of fields) io.out(`${`${name}:`.padEnd(width + 1)}  ${value}`);
  const next = nextStep(run);
  if (next) io.err(next);
}

/** What the person looking at a run can do about it now. */
function nextStep(run: RunRecord): string | null {
  if (run.status === 'pending' && run.approvalStatus === 'pending')
    return `it waits for approval: svc runs approve ${run.id}, or svc runs reject ${run.id}`;
  if (isOpen(run.status)) return `follow it: svc runs logs ${run.id} --follow`;
  if ((run.logLines ?? 0) > 0 && run.status !== 'completed') return `why: svc runs logs ${run.id}`;
  return null;
}

const DECISIONS = {
  cancel: { done: 'cancelled', conflict: 'it has ended already: nothing to stop' },
  approve: { done: 'approved', conflict: 'only an action run waiting for approval can be approved' },
  reject: { done: 'rejected', conflict: 'only an action run waiting for approval can be rejected' },
} as const;

/** `cancel`, `approve` or `reject` one run. */
export async function runsDecide(
  verb: keyof typeof DECISIONS,
  id: string,
  flags: SessionFlags,
  io: RuntimeIo,
): Promise<void> {
  checkId('run', id, RUN_IDS);
  const api = await openApi(io, flags);
  const { run } = await api.call<{ run: RunRecord }>('POST', `/runs/${id}/${verb}`, undefined, {
    not_found: `org ${api.session.org} has no run ${id}: ${RUN_IDS}`,
    conflict: `${DECISIONS[verb].conflict} ("svc runs show ${id}" shows it)`,
  });
  const what = run.actionKey ? `action ${run.actionKey} of connection ${run.connectionId}` : subject(run);
  io.out(`${DECISIONS[verb].done} run ${run.id} (${what}): it is ${run.status}`);
  if (verb === 'approve') io.err(`a worker runs it now; follow it: svc runs logs ${run.id} --follow`);
  if (verb === 'cancel' && run.runType === 'sync')
    io.err('what it committed before stays; the feed syncs again at its usual interval');
}
