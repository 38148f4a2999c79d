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

function preview(value: unknown): string {
  if (value === null || value === undefined) return '(unset)';
  const text = typeof value === 'string' ? JSON.stringify(value) : canonical(value);
  return text.length > PREVIEW ? `${text.slice(0, PREVIEW - 1)}…` : text;
}

/** A compact unified diff of a Markdown setting: hunks with one line of context, no file headers. */
function markdownDiff(change: Change, paint: Palette): string[] {
  const before = typeof change.before === 'string' ? change.before : '';
  const after = typeof change.after === 'string' ? change.after : '';
  const patch = structuredPatch(change.field, change.field, before, after, undefined, undefined, {
    context: 1,
  });
  return patch.hunks.flatMap((hunk) => [
    paint.dim(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`),
    ...hunk.lines.map((line) =>
      line.startsWith('+') ? paint.added(line) : line.startsWith('-') ? paint.removed(line) : line,
    ),
  ]);
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
      lines.push(`      ${change.field}: ${preview(change.before)} -> ${preview(change.after)}`);
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
