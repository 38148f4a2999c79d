import { confirm, isCancel, password, text } from '@clack/prompts';
import type { ApplyIo } from './apply/command.js';
import type { SecretsIo } from './secrets/command.js';
import type { Io } from './session/commands.js';

/** The real terminal: prompts only when both stdin and stdout are TTYs and CI is not set. */
export function terminalIo(): Io {
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !process.env.CI;
  return {
    env: process.env,
    out: (line) => process.stdout.write(`${line}\n`),
    interactive,
    async ask(question, options) {
      const answer = options.secret
        ? await password({ message: question })
        : await text({ message: question, initialValue: options.initial, placeholder: options.initial });
      if (isCancel(answer)) throw new Error('cancelled');
      return answer;
    },
  };
}

/** The terminal for `svc secrets`: standard input is a value's source when it is not a terminal. */
export function secretsIo(): SecretsIo {
  return { ...terminalIo(), stdin: process.stdin.isTTY ? null : readStdin };
}

/** Standard input to its end, or to `limit` + 1 characters: enough to tell that it is too long. */
async function readStdin(limit: number): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.length > limit) break;
  }
  return text.slice(0, limit + 1);
}

/** The terminal for `svc apply`: colour only on a TTY and never with NO_COLOR; prompts default to No. */
export function applyIo(json: boolean): ApplyIo {
  const io = terminalIo();
  return {
    ...io,
    err: (line) => process.stderr.write(`${line}\n`),
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR && !json,
    async confirm(question) {
      const answer = await confirm({ message: question, initialValue: false });
      return !isCancel(answer) && answer === true;
    },
  };
}

/** Runs a command; any error is one line on stderr and exit code 1. */
export function action<A extends unknown[]>(name: string, run: (...args: A) => Promise<void>) {
  return async (...args: A) => {
    try {
      await run(...args);
    } catch (error) {
      process.stderr.write(`svc ${name}: ${(error as Error).message}\n`);
      process.exitCode = 1;
    }
  };
}
