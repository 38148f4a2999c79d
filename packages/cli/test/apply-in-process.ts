import { type ApplyFlags, type ApplyIo, applyCommand } from '../src/apply/command.js';

export interface ApplyRun {
  code: number;
  out: string;
  err: string;
}

/**
 * `svc apply` in this process, as CI runs it: no terminal, no colour, and a prompt is a test
 * failure. `env` is the whole environment the command sees (token, URL, secrets, XDG_CONFIG_HOME).
 */
export async function applyInProcess(
  dir: string,
  flags: Partial<ApplyFlags>,
  env: Record<string, string>,
): Promise<ApplyRun> {
  const out: string[] = [];
  const err: string[] = [];
  const refuse = async (): Promise<never> => {
    throw new Error('svc apply prompted in a test');
  };
  const io: ApplyIo = {
    env,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    interactive: false,
    color: false,
    ask: refuse,
    confirm: refuse,
  };
  const code = await applyCommand({ dir, ...flags }, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}
