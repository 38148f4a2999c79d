import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FakeChatCompletions,
  type RecordedRequest,
  startFakeChatCompletions,
} from '../../../server/test/fakes/chat-completions.js';
import { type FakeMcpHttp, startFakeMcpHttp } from '../../../server/test/fakes/mcp-http.js';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { exited, svc, waitFor } from '../../test/run-svc.js';

/**
 * `svc chat` in a pseudo-terminal (`script` gives the CLI a pty, as a person's terminal would):
 * the reply streams, a destructive tool call is asked inline and approved, the reply completes.
 */

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(root, 'packages/cli/src/bin.ts');

let server: TestServer;
let model: FakeChatCompletions;
let mcp: FakeMcpHttp;
let token: string;
let dir: string;

const last = (request: RecordedRequest) => request.body.messages.at(-1);

beforeAll(async () => {
  model = await startFakeChatCompletions();
  mcp = await startFakeMcpHttp();
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-cli-chat' },
    workers: { concurrency: 2, reapMs: 200 },
  });
  token = (await createToken(server, 'default', ['messages', 'read'])).secret;
  dir = await mkdtemp(join(tmpdir(), 'svc-chat-'));
  await server.call('POST', '/api/default/agents', {
    body: { agentId: 'ops', name: 'Ops', providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }] },
  });
  await server.call('PATCH', '/api/default/agents/ops/config', {
    body: { mcpServers: { kit: { url: mcp.url } } },
  });
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ SVC_URL: server.url, SVC_API_TOKEN: token, XDG_CONFIG_HOME: dir });

/** The CLI under `script`: its stdin, stdout and stderr are a terminal; what we write is typed. */
function inTerminal(args: string[]): ChildProcess & { output: () => string; type: (text: string) => void } {
  const command = [process.execPath, '--conditions=svc-source', '--import', 'tsx', bin, ...args]
    .map((part) => `'${part.replaceAll("'", "'\\''")}'`)
    .join(' ');
  const child = spawn('/usr/bin/script', ['-qfec', command, '/dev/null'], {
    cwd: root,
    env: { ...process.env, ...env(), CI: '' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return Object.assign(child, {
    output: () => output.replaceAll('\r', ''),
    type: (text: string) => child.stdin?.write(text),
  });
}

describe('svc chat', () => {
  it('streams the reply, asks an approval inline, and ends on /exit', async () => {
    model.answer = (request) =>
      last(request)?.role === 'tool'
        ? { chunks: ['Wiped ', 'staging ', 'for you.'], delayMs: 400 }
        : { toolCalls: [{ name: 'kit__wipe', arguments: { target: 'staging' } }] };
    const chat = inTerminal(['chat', 'ops']);
    await waitFor(chat, /you> /);
    expect(chat.output()).toContain(
      'talking to agent ops in org default (a private conversation); /exit or Ctrl-D ends',
    );
    chat.type('wipe staging\n');
    await waitFor(
      chat as never,
      /the agent wants to run kit\.wipe \{"target":"staging"\}\napprove\? \[y\/N\] /,
    );
    expect(mcp.calls.filter((call) => call.tool === 'wipe')).toHaveLength(0);
    chat.type('y\n');
    await waitFor(chat, /reason: /);
    chat.type('a test box\n');
    await waitFor(chat, /approved\n/);
    // Streamed: the first words are on the screen before the model has sent the last ones.
    await waitFor(chat, /Wiped /);
    expect(chat.output()).not.toContain('for you.');
    await waitFor(chat, /\napproved\nops> Wiped staging for you\.\nyou> /);
    expect(mcp.calls.filter((call) => call.tool === 'wipe').map((call) => call.input)).toEqual([
      { target: 'staging' },
    ]);
    // The next message continues the same conversation.
    model.answer = () => ({ text: 'Anything else?' });
    chat.type('thanks\n');
    await waitFor(chat, /ops> Anything else\?\nyou> /);
    chat.type('/exit\n');
    expect(await exited(chat)).toBe(0);
    const conversation = chat.output().match(/conversation ([0-9a-f-]{36}): svc conversations show ops/)?.[1];
    const history = await server.call('GET', `/api/v1/agents/ops/conversations/${conversation}/messages`, {
      token,
    });
    expect(history.body.messages.map((m: { content: string }) => m.content)).toEqual([
      'wipe staging',
      'thanks',
    ]);
    const { rows } = await server.pool.query('SELECT status, reason FROM approvals WHERE tool = $1', [
      'kit.wipe',
    ]);
    expect(rows).toEqual([{ status: 'approved', reason: 'a test box' }]);
  }, 90_000);

  it('ends on Ctrl-D, and a rejected call is reported to the model', async () => {
    model.answer = (request) =>
      last(request)?.role === 'tool'
        ? { text: `The tool said: ${JSON.stringify(last(request)?.content)}` }
        : { toolCalls: [{ name: 'kit__wipe', arguments: { target: 'prod' } }] };
    const chat = inTerminal(['chat', 'ops', '--channel', 'ops-room']);
    await waitFor(chat, /you> /);
    chat.type('wipe prod\n');
    await waitFor(chat, /approve\? \[y\/N\] /);
    chat.type('\n');
    await waitFor(chat, /reason: /);
    chat.type('never prod\n');
    await waitFor(chat, /rejected: the model is told so\n[\s\S]*The tool said: [\s\S]*\nyou> /);
    chat.type('\x04');
    expect(await exited(chat)).toBe(0);
    expect(mcp.calls.filter((call) => call.tool === 'wipe').map((call) => call.input)).not.toContainEqual({
      target: 'prod',
    });
  }, 90_000);

  it('--message prints the reply alone and exits 0, or exits 1 with the problem of a failed reply', async () => {
    model.answer = () => ({ text: 'Pong.' });
    const one = svc(['chat', 'ops', '--message', 'ping'], env());
    expect(await exited(one), one.output()).toBe(0);
    expect(one.output()).toBe('Pong.\n');
    model.answer = () => ({ status: 401 });
    const failed = svc(['chat', 'ops', '--message', 'ping'], env());
    expect(await exited(failed), failed.output()).toBe(1);
    expect(failed.output()).toMatch(/the reply failed: .+ \(\w+\)/);
    // Approvals answered from a pipe; with nothing to read, the call is left undecided and says how to decide.
    model.answer = (request) =>
      last(request)?.role === 'tool'
        ? { text: 'Cache wiped.' }
        : { toolCalls: [{ name: 'kit__wipe', arguments: { target: 'cache' } }] };
    const piped = svc(['chat', 'ops', '--message', 'wipe the cache'], env(), root, 'y\nroutine\n');
    expect(await exited(piped), piped.output()).toBe(0);
    expect(piped.output()).toContain('approve? [y/N] reason: approved\nCache wiped.\n');
    const unanswered = svc(['chat', 'ops', '--message', 'wipe the cache'], env());
    expect(await exited(unanswered), unanswered.output()).toBe(1);
    expect(unanswered.output()).toMatch(
      /no reply yet: it waits for approval of kit\.wipe: svc approvals approve [0-9a-f-]{36}, or svc approvals reject/,
    );
    const missing = svc(['chat', 'nope', '--message', 'ping'], env());
    expect(await exited(missing)).toBe(1);
    expect(missing.output()).toContain('"svc agents list" shows them');
  }, 90_000);
});
