/**
 * What `svc import lobu` did with each Lobu key, and what the user must still do. Entries name keys
 * and references, never values: a Lobu project may hold a secret written as a literal.
 */

import { VariableNames } from './secrets.js';

export type Outcome = 'translated' | 'kept' | 'dropped' | 'added';

export interface ImportEntry {
  outcome: Outcome;
  /** `lobu.toml:12` or `models/company.yaml:3`: where the Lobu key is written. */
  at: string;
  /** The Lobu key, e.g. `agents.crm.providers[0].key`. */
  lobu: string;
  /** Where it went in the svc project, e.g. `svc.toml agents.crm.providers[0].secret_ref`. */
  svc?: string;
  why?: string;
}

export interface ImportStep {
  /** `secret`: a value to store; `command`: a line to run; `note`: something to decide or check. */
  kind: 'secret' | 'command' | 'note';
  text: string;
  /** The line to run, when there is one. */
  command?: string;
}

export class ImportReport {
  readonly entries: ImportEntry[] = [];
  readonly steps: ImportStep[] = [];
  /** The variables the import names, unique per owner. */
  readonly variables = new VariableNames();
  // Sets, not searches of the lists: a lobu.toml of 100k keys is 100k entries.
  private readonly entryKeys = new Set<string>();
  private readonly stepKeys = new Set<string>();
  private readonly commands = new Set<string>();

  add(outcome: Outcome, at: string, lobu: string, svc?: string, why?: string): void {
    // Two schedules falling back on one default channel say the same thing once.
    const key = JSON.stringify([outcome, at, lobu, why]);
    if (this.entryKeys.has(key)) return;
    this.entryKeys.add(key);
    this.entries.push({
      outcome,
      at,
      lobu,
      ...(svc !== undefined ? { svc } : {}),
      ...(why !== undefined ? { why } : {}),
    });
  }

  translated(at: string, lobu: string, svc: string, why?: string): void {
    this.add('translated', at, lobu, svc, why);
  }

  kept(at: string, lobu: string, svc: string): void {
    this.add('kept', at, lobu, svc);
  }

  dropped(at: string, lobu: string, why: string): void {
    this.add('dropped', at, lobu, undefined, why);
  }

  /** One step per distinct text: five platforms naming one variable ask for it once. */
  step(step: ImportStep): void {
    const key = JSON.stringify([step.text, step.command]);
    if (this.stepKeys.has(key)) return;
    this.stepKeys.add(key);
    if (step.command !== undefined) this.commands.add(step.command);
    this.steps.push(step);
  }

  /** `svc secrets set NAME`, once per name, saying where the reference is written. */
  secret(name: string, why: string): void {
    const command = `svc secrets set ${name}`;
    if (this.commands.has(command)) return;
    this.step({ kind: 'secret', text: `${name}: ${why}`, command });
  }
}

/** The report as the terminal shows it: entries grouped by outcome, then the steps. */
export function formatReport(report: ImportReport, written: string[], out: string): string[] {
  const lines: string[] = [];
  const count = (o: Outcome) => report.entries.filter((e) => e.outcome === o).length;
  lines.push(
    `Wrote ${written.length} files to ${out}: ${count('translated')} translated, ${count('kept')} kept, ` +
      `${count('added')} added, ${count('dropped')} dropped.`,
  );
  for (const outcome of ['translated', 'kept', 'added', 'dropped'] as const) {
    const entries = report.entries.filter((e) => e.outcome === outcome);
    if (entries.length === 0) continue;
    lines.push('', `${outcome[0]?.toUpperCase()}${outcome.slice(1)}:`);
    for (const e of entries) {
      const target = e.svc ? ` -> ${e.svc}` : '';
      lines.push(`  ${e.at}: ${e.lobu}${target}${e.why ? ` (${e.why})` : ''}`);
    }
  }
  if (report.steps.length > 0) {
    lines.push('', 'To do before svc apply:');
    report.steps.forEach((s, i) => {
      lines.push(`  ${i + 1}. ${s.text}`);
      if (s.command) lines.push(`     ${s.command}`);
    });
  }
  return lines;
}
