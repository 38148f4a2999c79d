import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeChatCompletions } from '../../server/test/fakes/chat-completions.js';
import { exited, svc, waitFor } from '../test/run-svc.js';

const quickstart = fileURLToPath(new URL('../../../examples/quickstart', import.meta.url));
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('svc run', () => {
  it('brings up a server with the example project applied, and stops on Ctrl-C', async () => {
    const data = await mkdtemp(join(tmpdir(), 'svc-run-'));
    dirs.push(data);
    const run = svc(['run', '--dir', quickstart, '--port', '0'], {
      SVC_DATA_DIR: data,
      OPENAI_API_KEY: '',
      ANTHROPIC_API_KEY: '',
    });
    await waitFor(run, /Agents: assistant\. Send a message:/, 60_000);
    const url = /svc is running at (http:\/\/\S+) /.exec(run.output())?.[1];
    // No key anywhere: it says exactly what to set.
    expect(run.output()).toContain(
      'assistant has no model key yet: set OPENAI_API_KEY or ANTHROPIC_API_KEY in this terminal and run it again',
    );
    const password = (await readFile(join(data, 'admin-password'), 'utf8')).trim();
    expect(run.output()).toContain(`Bearer $(cat ${join(data, 'admin-password')})`);

    const res = await fetch(`${url}/api/default/agents?include=config`, {
      headers: { authorization: `Bearer ${password}` },
    });
    const { agents } = (await res.json()) as any;
    expect(agents.map((a: { agentId: string }) => a.agentId)).toEqual(['assistant']);
    expect(agents[0].config['SOUL.md']).toMatch(/Be brief/);
    const schema = await fetch(`${url}/api/default/operations/manage_entity_schema`, {
      method: 'POST',
      headers: { authorization: `Bearer ${password}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'list', kind: 'watcher' }),
    });
    expect(((await schema.json()) as any).watchers[0].agent).toBe('assistant');

    // A message sent anyway fails at once, with that sentence, instead of staying queued.
    const message = await fetch(`${url}/api/v1/agents/assistant/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${password}`, 'content-type': 'application/json', prefer: 'wait=20' },
      body: JSON.stringify({ platform: 'api', content: 'hello?' }),
    });
    const failed = (await message.json()) as any;
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('secret_missing');
    expect(failed.error.detail).toContain('OPENAI_API_KEY');

    run.kill('SIGINT');
    expect(await exited(run)).toBe(0);
  });

  it('with a model key in the environment, shows the agent answering a first message', async () => {
    const fake = await startFakeChatCompletions();
    const data = await mkdtemp(join(tmpdir(), 'svc-run-'));
    dirs.push(data);
    const run = svc(['run', '--dir', quickstart, '--port', '0'], {
      SVC_DATA_DIR: data,
      OPENAI_API_KEY: 'sk-first-reply',
      SVC_PROVIDER_OPENAI_BASE_URL: fake.url,
    });
    await waitFor(run, /Agents: assistant\. Send a message:/, 60_000);
    expect(run.output()).toContain('assistant (openai/gpt-4.1-mini): Hello from gpt-4.1-mini');
    expect(fake.requests[0]?.headers.authorization).toBe('Bearer sk-first-reply');
    run.kill('SIGINT');
    expect(await exited(run)).toBe(0);
  });
});
