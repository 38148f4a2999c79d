/**
 * `svc connection auth <id>`: interactive connector auth from the terminal. Starts an auth run (or
 * follows the one open), follows its event stream (resuming with Last-Event-ID when it drops),
 * draws a QR code, shows a code or a link, asks a prompt's fields (hidden for passwords and
 * one-time codes; from standard input, a line per field, when it is not a terminal) and posts them
 * as the signal the connector awaits. What is typed is sent once, in the body of that POST, and
 * never printed.
 */

import { createInterface } from 'node:readline';
import { isCancel, password, text } from '@clack/prompts';
import QRCode from 'qrcode';
import { checkId, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import type { RunRecord } from './run-record.js';

export type PromptField = {
  key: string;
  label: string;
  kind: 'text' | 'password' | 'otp';
  required?: boolean;
};

export type AuthArtifact =
  | { type: 'qr' | 'code'; value: string; expiresAt?: string; instructions?: string }
  | { type: 'redirect'; url: string; mode: 'popup' | 'same-tab'; awaitSignal: string; instructions?: string }
  | { type: 'prompt'; fields: PromptField[]; submitSignal: string; instructions?: string }
  | { type: 'status'; message: string };

export interface AuthEvent {
  id: number;
  event: 'artifact' | 'status';
  data: { seq: number; artifact?: AuthArtifact; status?: string; errorMessage?: string | null };
}

/** Asks one field of a prompt; answers what was typed. */
export type Ask = (field: PromptField) => Promise<string>;

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const FINAL = new Set(['completed', 'failed', 'cancelled', 'timeout']);
/** Times the stream may drop in a row before the command gives up. */
const RECONNECTS = 5;

/**
 * The terminal's way of asking: @clack/prompts on a TTY (hidden for `password` and `otp`), else a
 * line of standard input per field (piped input: `printf '123456\n' | svc connection auth 7`).
 */
export function terminalAsk(): Ask {
  if (process.stdin.isTTY) {
    return async (field) => {
      const hidden = field.kind !== 'text';
      const answer = hidden
        ? await password({ message: field.label })
        : await text({ message: field.label, ...(field.required ? { validate: requiredValue } : {}) });
      if (isCancel(answer)) throw new Error('cancelled');
      return String(answer ?? '');
    };
  }
  let lines: AsyncIterator<string> | null = null;
  return async (field) => {
    lines ??= createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY })[
      Symbol.asyncIterator
    ]();
    process.stderr.write(`${field.label}: (reading a line of standard input)\n`);
    const next = await lines.next();
    if (next.done) throw new Error(`standard input ended before "${field.label}" was answered`);
    return next.value;
  };
}

const requiredValue = (value: string | undefined) => (value ? undefined : 'required');

export interface AuthFlags extends SessionFlags {
  json?: boolean;
}

/**
 * Runs the flow to the auth run's end: 0 when it completed (the connection has its credentials),
 * 2 when it failed, timed out or was cancelled (its error on stderr). Other failures throw.
 */
export async function connectionAuth(
  id: string,
  flags: AuthFlags,
  io: RuntimeIo,
  ask: Ask = terminalAsk(),
): Promise<number> {
  checkId('connection', id, '"svc connection list" shows them');
  const api = await openApi(io, flags);
  const { run, created } = await api.call<{ run: RunRecord; created: boolean }>(
    'POST',
    `/connections/${id}/auth-runs`,
    undefined,
    {
      not_found: `org ${api.session.org} has no connection ${id}: "svc connection list" shows them`,
      validation_failed:
        'this connector does not authenticate interactively: give its credentials with "svc connection credentials"',
    },
  );
  const runId = String(run.id);
  // Joining a run under way: from the artifact it shows now, not replaying prompts answered before.
  let after = 0;
  if (!created) {
    const shown = await api.call<{ artifactSeq: number | null }>('GET', `/auth-runs/${runId}`);
    after = Math.max(0, (shown.artifactSeq ?? 1) - 1);
  }
  io.err(
    created
      ? `auth run ${runId} started for connection ${id} (cancel it: svc runs cancel ${runId})`
      : `following the auth run already open for connection ${id}: ${runId}`,
  );
  // Ctrl-C cancels the run (the connector is stopped at once); the stream then says `cancelled`.
  let interrupted = false;
  const interrupt = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    io.err(`cancelling auth run ${runId}... (Ctrl-C again to leave it running)`);
    api.call('POST', `/runs/${runId}/cancel`).catch((error: Error) => io.err(error.message));
  };
  process.on('SIGINT', interrupt);
  try {
    return await follow(api, runId, id, flags, io, ask, after);
  } finally {
    process.off('SIGINT', interrupt);
  }
}

async function follow(
  api: Awaited<ReturnType<typeof openApi>>,
  runId: string,
  id: string,
  flags: AuthFlags,
  io: RuntimeIo,
  ask: Ask,
  from: number,
): Promise<number> {
  const streamUrl = `${api.session.url.replace(/\/+$/, '')}/api/${encodeURIComponent(api.session.org)}/auth-runs/${runId}/events`;
  let last = from;
  let drops = 0;
  let final: { status: string; errorMessage: string | null } | null = null;
  while (!final) {
    let response: Response;
    try {
      response = await fetch(streamUrl, {
        headers: {
          authorization: `Bearer ${api.session.token}`,
          accept: 'text/event-stream',
          ...(last > 0 ? { 'last-event-id': String(last) } : {}),
        },
      });
    } catch (error) {
      if (++drops > RECONNECTS) throw new Error(`lost the auth run's stream: ${(error as Error).message}`);
      await io.sleep(io.pollMs);
      continue;
    }
    if (!response.ok || !response.body) {
      throw new Error(`GET ${streamUrl}: HTTP ${response.status} ${await response.text().catch(() => '')}`);
    }
    for await (const event of sseEvents(response.body)) {
      drops = 0;
      last = event.id;
      if (flags.json) io.out(JSON.stringify(event));
      if (event.event === 'status') {
        const status = String(event.data.status);
        if (!flags.json)
          io.err(`status: ${status}${event.data.errorMessage ? ` (${event.data.errorMessage})` : ''}`);
        if (FINAL.has(status)) {
          final = { status, errorMessage: event.data.errorMessage ?? null };
          break;
        }
        continue;
      }
      const artifact = event.data.artifact;
      if (!artifact) continue;
      await show(artifact, flags, io);
      if (artifact.type === 'prompt') {
        const answers: Record<string, string> = {};
        for (const field of artifact.fields) answers[field.key] = await ask(field);
        await api.call(
          'POST',
          `/auth-runs/${runId}/signals/${encodeURIComponent(artifact.submitSignal)}`,
          answers,
          {
            conflict: 'the auth run ended before the answer reached it',
          },
        );
        if (!flags.json) io.err('sent; waiting for the connector');
      }
      if (artifact.type === 'redirect') {
        // The landing page of a terminal's sign-in is the person: the address they end up on is
        // what the connector awaits (its code, its token), posted as `{url}`.
        const url = await ask({
          key: 'url',
          label: 'Paste the address the sign-in sent you to',
          kind: 'text',
          required: true,
        });
        await api.call(
          'POST',
          `/auth-runs/${runId}/signals/${encodeURIComponent(artifact.awaitSignal)}`,
          { url },
          {
            conflict: 'the auth run ended before the address reached it',
          },
        );
        if (!flags.json) io.err('sent; waiting for the connector');
      }
    }
    if (!final && ++drops > RECONNECTS) throw new Error("lost the auth run's stream");
  }
  if (final.status === 'completed') {
    if (!flags.json) io.out(`connection ${id} is authenticated (auth run ${runId} completed)`);
    return 0;
  }
  io.err(`auth run ${runId} ended ${final.status}${final.errorMessage ? `: ${final.errorMessage}` : ''}`);
  return 2;
}

/** Shows an artifact: on stdout, unless --json (then on stderr, beside the JSON lines). */
async function show(artifact: AuthArtifact, flags: AuthFlags, io: RuntimeIo): Promise<void> {
  const say = flags.json ? io.err : io.out;
  const instructions = 'instructions' in artifact && artifact.instructions ? artifact.instructions : null;
  switch (artifact.type) {
    case 'qr': {
      const drawing = await QRCode.toString(artifact.value, { type: 'terminal', small: true });
      say(instructions ?? 'Scan this QR code:');
      // The drawing's last line is colour codes alone: not printed.
      for (const line of drawing.split('\n')) if (line.replace(ANSI, '').length > 0) say(line);
      if (artifact.expiresAt) say(`(expires ${artifact.expiresAt})`);
      return;
    }
    case 'code':
      say(instructions ?? 'Enter this code:');
      say(`  ${artifact.value}`);
      if (artifact.expiresAt) say(`(expires ${artifact.expiresAt})`);
      return;
    case 'redirect':
      say(instructions ?? 'Open this address to sign in:');
      say(`  ${artifact.url}`);
      say('once signed in, paste the address your browser ends up on.');
      return;
    case 'prompt':
      say(instructions ?? 'The connector asks:');
      return;
    case 'status':
      say(artifact.message);
      return;
  }
}

/** The events of an SSE body, as they come; comments and the `retry:` line are skipped. */
export async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<AuthEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true }).replace(/\r\n?/g, '\n');
    let at = buffer.indexOf('\n\n');
    while (at >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      at = buffer.indexOf('\n\n');
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
      }
      if (fields.id === undefined || fields.data === undefined) continue;
      yield {
        id: Number(fields.id),
        event: fields.event === 'status' ? 'status' : 'artifact',
        data: JSON.parse(fields.data),
      };
    }
  }
}
