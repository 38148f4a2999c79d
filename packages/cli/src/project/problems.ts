import type { Project } from './types.js';

/** Problems found while loading a project: all of them are collected, then thrown together. */

export interface ProjectProblem {
  /** Relative to the project directory, e.g. `svc.toml` or `models/crm.yaml`. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  col: number;
  message: string;
  hint?: string;
  /** Set on a reference whose variable is unset or empty here: the org's secrets may still hold it. */
  variable?: string;
}

export function formatProblem(p: ProjectProblem): string {
  return `${p.file}:${p.line}:${p.col}: ${p.message}${p.hint ? ` (${p.hint})` : ''}`;
}

/** A warning's line: the problem's, with `warning:` before the message. */
export function formatWarning(p: ProjectProblem): string {
  return formatProblem({ ...p, message: `warning: ${p.message}` });
}

export class ProjectError extends Error {
  constructor(
    readonly problems: ProjectProblem[],
    /** Found alongside the problems; shown with them, since fixing those will not make these go. */
    readonly warnings: ProjectProblem[] = [],
  ) {
    super(
      `the project has ${problems.length} problem${problems.length === 1 ? '' : 's'}:\n${formatProblems(problems)}`,
    );
    this.name = 'ProjectError';
  }

  /** One line per problem, in file and line order. */
  format(): string {
    return formatProblems(this.problems);
  }
}

/**
 * The project is right but for variables unset here. `svc apply` then asks the org which of them
 * are its secrets, which the server resolves first: the project is the one to apply if all are.
 */
export class UnsetVariablesError extends ProjectError {
  constructor(
    problems: ProjectProblem[],
    readonly project: Project,
  ) {
    super(problems, project.warnings);
    this.name = 'UnsetVariablesError';
  }
}

function formatProblems(problems: ProjectProblem[]): string {
  return sortProblems(problems).map(formatProblem).join('\n');
}

export function sortProblems(problems: ProjectProblem[]): ProjectProblem[] {
  // svc.toml first: the bundles and agent files it names are read after it.
  const rank = (p: ProjectProblem) => (p.file === 'svc.toml' ? 0 : 1);
  return [...problems].sort(
    (a, b) => rank(a) - rank(b) || a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col,
  );
}

/** Levenshtein distance, small inputs only (keys). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The allowed key closest to `key`, as a hint, when it is close enough to be a likely typo.
 * `allowedDomains` and `allowed-domains` match `allowed_domains` too: camelCase habits from JSON.
 */
export function didYouMean(key: string, allowed: readonly string[]): string | undefined {
  const loose = (s: string) => s.toLowerCase().replace(/[_-]/g, '');
  const same = allowed.find((k) => loose(k) === loose(key));
  if (same) return `did you mean "${same}"?`;
  // A shortened key (`max_input` for `max_input_chars`) is too far by edit distance, yet obvious.
  const longer = key.length >= 3 ? allowed.filter((k) => k.startsWith(key)) : [];
  if (longer.length === 1) return `did you mean "${longer[0]}"?`;
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(key.length / 3)) + 1;
  for (const candidate of allowed) {
    const d = editDistance(key, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best === undefined ? undefined : `did you mean "${best}"?`;
}
