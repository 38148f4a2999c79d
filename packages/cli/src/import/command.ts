/**
 * `svc import lobu [--dir .] [--out <dir>-svc] [--json] [--force]`: converts, writes, then loads
 * the result with svc's own loader, so a conversion svc would not accept is said at once.
 */

import { basename, dirname, join, resolve } from 'node:path';
import { loadProject } from '../project/load.js';
import { formatProblem, ProjectError, type ProjectProblem } from '../project/problems.js';
import { convertLobuProject } from './convert.js';
import { ImportError } from './lobu-toml.js';
import { formatReport } from './report.js';
import { shellWord } from './shell.js';
import { PartialWriteError, writeFiles } from './write.js';

export interface ImportFlags {
  dir?: string;
  out?: string;
  json?: boolean;
  force?: boolean;
}

export interface ImportIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

/** `<dir>-svc` beside the Lobu project: the Lobu files stay as they were. */
export function defaultOut(dir: string): string {
  const full = resolve(dir);
  return join(dirname(full), `${basename(full)}-svc`);
}

/**
 * Exit codes: 0 written and loadable, 1 nothing written (the reason on stderr) or, when the disk
 * failed half-way, the files written named; 2 written but svc's loader has problems.
 */
export async function importLobu(flags: ImportFlags, terminal: ImportIo): Promise<number> {
  const io = visibleIo(terminal, flags.json ?? false);
  const dir = flags.dir ?? '.';
  const out = flags.out ?? defaultOut(dir);
  let written: string[];
  let converted: Awaited<ReturnType<typeof convertLobuProject>>;
  try {
    converted = await convertLobuProject(dir, out);
    written = await writeFiles(dir, out, converted.files, flags.force ?? false);
  } catch (error) {
    if (error instanceof PartialWriteError) {
      io.err(`svc import lobu: ${error.message}`);
      return 1;
    }
    if (!(error instanceof ImportError)) throw error;
    io.err(`svc import lobu: ${error.message}`);
    io.err('Nothing was written.');
    return 1;
  }
  let problems: ProjectProblem[] = [];
  try {
    // Secrets are the user's to set (the report's steps): only the files are checked here.
    await loadProject(out, {}, { requireSecrets: false });
  } catch (error) {
    if (!(error instanceof ProjectError)) throw error;
    problems = error.problems;
  }
  const { report } = converted;
  if (flags.json) {
    io.out(
      JSON.stringify(
        {
          format_version: 1,
          lobu: resolve(dir),
          out: resolve(out),
          files: written,
          entries: report.entries,
          steps: report.steps,
          problems,
        },
        null,
        2,
      ),
    );
  } else {
    for (const line of formatReport(report, written, out)) io.out(line);
    if (problems.length > 0) {
      io.out('');
      io.out(`svc's loader still finds ${problems.length} problem(s) in ${out}; fix them before svc apply:`);
      for (const p of problems) io.out(`  ${formatProblem(p)}`);
    } else {
      io.out('');
      io.out(`Then: svc apply --dir ${shellWord(out)}`);
    }
  }
  return problems.length > 0 ? 2 : 0;
}

/**
 * Keys, names and paths come from the Lobu project, which may be hostile: a control character in
 * one (an ESC or CSI sequence) must not reach the terminal as one, where it could rewrite what the
 * report says. Shown escaped instead: `\u{1b}` in text; in `--json`, JSON's own `\u009b` for the
 * C1 controls that JSON.stringify leaves as they are.
 */
function visibleIo(io: ImportIo, json: boolean): ImportIo {
  const code = (c: string) => (c.codePointAt(0) ?? 0).toString(16);
  const visible = (line: string) => line.replace(/\p{Cc}/gu, (c) => `\\u{${code(c)}}`);
  const jsonVisible = (text: string) => text.replace(/[\u007f-\u009f]/g, (c) => `\\u00${code(c)}`);
  return {
    out: (line) => io.out(json ? jsonVisible(line) : visible(line)),
    err: (line) => io.err(visible(line)),
  };
}
