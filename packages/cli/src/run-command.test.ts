import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
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
    const run = svc(['run', '--dir', quickstart, '--port', '0'], { SVC_DATA_DIR: data });
    const [, url] = await waitFor(run, /svc is running at (http:\/\/\S+) /, 60_000);
    expect(run.output()).toMatch(/Agents: assistant\. Send a first message:/);
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

    run.kill('SIGINT');
    expect(await exited(run)).toBe(0);
  });
});
