/**
 * `svc secrets set|list|unset`: the org's secrets, which references (`$NAME`) resolve to first
 * (DESIGN.md section 6). A value travels in the body of one PUT and nowhere else: never in a flag or
 * an argument (they show in `ps` and shell history), never in the output.
 */

import {
  isReservedSecretName,
  RESERVED_SECRET_RULE,
  SECRET_VALUE_MAX_CHARS,
  type Secret,
  secretNameSchema,
} from '@svc/core';
import { ApiError, createClient } from '../session/client.js';
import type { Io } from '../session/commands.js';
import { resolveSession, type Session } from '../session/resolve.js';

export interface SecretsIo extends Io {
  /**
   * Standard input, read to its end, when it is not a terminal (a pipe, a file, /dev/null); `null`
   * when it is one. Reads at most `limit` characters plus one, so an endless pipe still ends.
   */
  stdin: ((limit: number) => Promise<string>) | null;
}

export interface SessionFlags {
  url?: string;
  org?: string;
  context?: string;
}

/** The rule of `readValue`, as `svc secrets set --help` prints it (the README says the same). */
export const VALUE_SOURCES = [
  'The value comes from stdin when something is piped in (one trailing newline',
  'removed), otherwise from the environment variable NAME, otherwise from a hidden',
  'prompt on the terminal. It is never taken from a flag or an argument, and never',
  'printed. In CI: NAME=... svc secrets set NAME </dev/null, or pipe the value in.',
].join('\n');

/** A name the server would refuse is refused here, before anything is read or sent. */
function checkName(name: string): void {
  const parsed = secretNameSchema.safeParse(name);
  if (!parsed.success) {
    throw new Error(`"${name}" is not a secret name: ${parsed.error.issues[0]?.message}`);
  }
  // The server's own words (422 secret_reserved), so that both say the same thing.
  if (isReservedSecretName(name))
    throw new Error(`"${name}" cannot be an org secret: ${RESERVED_SECRET_RULE}`);
}

/** The value, by the rule of VALUE_SOURCES. */
async function readValue(name: string, io: SecretsIo): Promise<string> {
  let value: string;
  let from: string;
  // An empty stdin that is not a terminal is what CI gives (/dev/null, a closed pipe): the
  // environment variable is then the source, as it is on a terminal.
  const piped = io.stdin ? (await io.stdin(SECRET_VALUE_MAX_CHARS + 2)).replace(/\r?\n$/, '') : '';
  if (piped !== '') {
    value = piped;
    from = 'stdin';
  } else if (io.env[name] !== undefined) {
    value = io.env[name] as string;
    from = `the environment variable ${name}`;
    if (value === '') throw new Error(`the environment variable ${name} is empty: nothing to store`);
  } else if (io.stdin) {
    throw new Error(
      `stdin is empty and the environment variable ${name} is not set: nothing to store. ` +
        `Pipe the value in (printf '%s' "$VALUE" | svc secrets set ${name}) or set ${name}`,
    );
  } else if (io.interactive) {
    value = await io.ask(`Value of ${name}`, { secret: true });
    from = 'the prompt';
    if (value === '') throw new Error('no value typed: nothing stored');
  } else {
    throw new Error(
      `no value for ${name}: pipe it on stdin (printf '%s' "$VALUE" | svc secrets set ${name}), ` +
        `or set the environment variable ${name}`,
    );
  }
  if (value.length > SECRET_VALUE_MAX_CHARS) {
    throw new Error(`the value from ${from} is longer than ${SECRET_VALUE_MAX_CHARS} characters`);
  }
  return value;
}

const secretPath = (session: Session, name?: string) =>
  `/api/${encodeURIComponent(session.org)}/secrets${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;

export async function secretsSet(name: string, flags: SessionFlags, io: SecretsIo): Promise<void> {
  checkName(name);
  const session = await resolveSession(io.env, flags);
  const value = await readValue(name, io);
  const client = createClient(session.url, session.token);
  const answer = await client.request<{ result: 'created' | 'updated' | 'unchanged'; secret: Secret }>(
    'PUT',
    secretPath(session, name),
    { value },
  );
  io.out(`${answer.result} secret ${name} in org ${session.org}`);
}

export async function secretsList(flags: SessionFlags & { json?: boolean }, io: Io): Promise<void> {
  const session = await resolveSession(io.env, flags);
  const client = createClient(session.url, session.token);
  const { secrets } = await client.request<{ secrets: Secret[] }>('GET', secretPath(session));
  if (flags.json) {
    io.out(JSON.stringify({ org: session.org, secrets }, null, 2));
    return;
  }
  if (secrets.length === 0) {
    io.out(`No secrets in org ${session.org}: add one with "svc secrets set NAME".`);
    return;
  }
  const width = Math.max('NAME'.length, ...secrets.map((s) => s.name.length));
  io.out(`${'NAME'.padEnd(width)}  UPDATED`);
  for (const secret of secrets) io.out(`${secret.name.padEnd(width)}  ${secret.updatedAt}`);
}

export async function secretsUnset(name: string, flags: SessionFlags, io: Io): Promise<void> {
  checkName(name);
  const session = await resolveSession(io.env, flags);
  const client = createClient(session.url, session.token);
  try {
    await client.request<{ result: 'deleted'; name: string }>('DELETE', secretPath(session, name));
  } catch (error) {
    if (error instanceof ApiError && error.problem?.code === 'not_found') {
      throw new Error(
        `org ${session.org} has no secret ${name}: nothing to unset ("svc secrets list" shows them)`,
      );
    }
    throw error;
  }
  io.out(`deleted secret ${name} from org ${session.org}`);
}
