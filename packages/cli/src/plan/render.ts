import { structuredPatch } from 'diff';
import pc from 'picocolors';
import { summary } from './diff.js';
import { canonical } from './normalise.js';
import type { Change, Kind, Plan, PlanRow, Verb } from './types.js';

export const FORMAT_VERSION = 1;

const HEADINGS: Record<Kind, string> = {
  agent: 'Agents',
  settings: 'Settings',
  platform: 'Platforms',
  entity_type: 'Entity types',
  relationship_type: 'Relationship types',
  watcher: 'Watchers',
};
const MARKERS: Record<Verb, string> = {
  create: '+ create',
  update: '~ update',
  noop: '= noop  ',
  drift: '? drift ',
};
const MARKDOWN = new Set(['IDENTITY.md', 'SOUL.md', 'USER.md']);
const PREVIEW = 60;
/** Lines of one Markdown file's diff in the plan, past which the rest is counted, not shown. */
const MAX_DIFF_LINES = 80;

type Paint = (text: string) => string;
interface Palette {
  verb: Record<Verb, Paint>;
  dim: Paint;
  warn: Paint;
  added: Paint;
  removed: Paint;
}

function palette(color: boolean): Palette {
  const c = pc.createColors(color);
  return {
    verb: { create: c.green, update: c.yellow, noop: c.dim, drift: c.magenta },
    dim: c.dim,
    warn: c.yellow,
    added: c.green,
    removed: c.red,
  };
}

const previewText = (value: unknown) =>
  value === null || value === undefined
    ? null
    : typeof value === 'string'
      ? JSON.stringify(value)
      : canonical(value);

/**
 * `before -> after`, each cut to PREVIEW characters. When the two differ only past the cut, both
 * windows start a little before the first difference, so the change is always on screen.
 */
function previewPair(before: unknown, after: unknown): string {
  const [a, b] = [previewText(before), previewText(after)];
  let from = 0;
  if (a !== null && b !== null) {
    let same = 0;
    while (same < a.length && same < b.length && a[same] === b[same]) same++;
    if (same > PREVIEW - 10) from = same - 20;
  }
  const cut = (text: string | null) => {
    if (text === null) return '(unset)';
    const head = from > 0 ? `…${text.slice(from)}` : text;
    return head.length > PREVIEW ? `${head.slice(0, PREVIEW - 1)}…` : head;
  };
  return `${cut(a)} -> ${cut(b)}`;
}

/** As `diff -u` writes it: a side with no lines starts at line 0. */
const hunkStart = (start: number, lines: number) => (lines === 0 ? start - 1 : start);

/** A compact unified diff of a Markdown setting: hunks with one line of context, no file headers. */
function markdownDiff(change: Change, paint: Palette): string[] {
  const before = typeof change.before === 'string' ? change.before : '';
  const after = typeof change.after === 'string' ? change.after : '';
  const patch = structuredPatch(change.field, change.field, before, after, undefined, undefined, {
    context: 1,
  });
  const lines = patch.hunks.flatMap((hunk) => [
    paint.dim(
      `@@ -${hunkStart(hunk.oldStart, hunk.oldLines)},${hunk.oldLines} +${hunkStart(hunk.newStart, hunk.newLines)},${hunk.newLines} @@`,
    ),
    ...hunk.lines.map((line) =>
      line.startsWith('+') ? paint.added(line) : line.startsWith('-') ? paint.removed(line) : line,
    ),
  ]);
  // A plan is read by a person: a rewritten 25,000-line file would bury every other row.
  if (lines.length <= MAX_DIFF_LINES) return lines;
  const rest = lines.length - MAX_DIFF_LINES;
  return [
    ...lines.slice(0, MAX_DIFF_LINES),
    paint.dim(`… ${rest} more diff line${rest === 1 ? '' : 's'} (--json has the whole value)`),
  ];
}

function rowLines(row: PlanRow, paint: Palette): string[] {
  const head = `  ${paint.verb[row.verb](MARKERS[row.verb])} ${row.id}`;
  if (row.verb === 'drift')
    return [`${head}  ${paint.dim('on the server, not in the project: left as it is')}`];
  const lines = [head];
  for (const change of row.changes) {
    if (
      MARKDOWN.has(change.field) &&
      (typeof change.before === 'string' || typeof change.after === 'string')
    ) {
      const what = change.after === null ? 'cleared' : change.before === null ? 'set' : 'changed';
      lines.push(`      ${change.field} ${what}`);
      lines.push(...markdownDiff(change, paint).map((l) => `        ${l}`));
    } else {
      lines.push(`      ${change.field}: ${previewPair(change.before, change.after)}`);
    }
  }
  if (row.restartsWorker)
    lines.push(
      `      ${paint.warn('! the live platform worker restarts: its connection drops for a moment')}`,
    );
  return lines;
}

export function renderPlan(plan: Plan, options: { color: boolean }): string[] {
  const paint = palette(options.color);
  const lines: string[] = [`Plan for org ${plan.org}:`];
  let kind: Kind | null = null;
  for (const row of plan.rows) {
    if (row.kind !== kind) {
      kind = row.kind;
      lines.push('', HEADINGS[kind]);
    }
    lines.push(...rowLines(row, paint));
  }
  const counts = summary(plan);
  lines.push(
    '',
    `Plan: ${counts.create} to create, ${counts.update} to update, ${counts.noop} unchanged, ${counts.drift} drift (never deleted).`,
  );
  return lines;
}

/** The machine-readable plan of `--json`; `format_version` changes only when its shape does. */
export function planJson(plan: Plan) {
  return {
    format_version: FORMAT_VERSION,
    org: plan.org,
    summary: summary(plan),
    rows: plan.rows.map((row) => ({
      kind: row.kind,
      id: row.id,
      verb: row.verb,
      changes: row.changes,
      ...(row.restartsWorker === undefined ? {} : { restarts_worker: row.restartsWorker }),
    })),
  };
}
