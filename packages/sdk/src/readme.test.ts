import { once } from 'node:events';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connector, runSync, validateDefinition } from './index.js';

const README = new URL('../README.md', import.meta.url);

/** The block under the readme-example marker, as a reader would copy it. */
async function readmeExample(): Promise<string> {
  const text = await readFile(README, 'utf8');
  const match = /<!-- readme-example[^>]*-->\s*```ts\n([\s\S]*?)```/.exec(text);
  if (!match?.[1]) throw new Error('README.md has no readme-example block');
  return match[1];
}

const posts = [
  { id: 1, title: 'Hello', body: 'First post', author: 'ada', created_at: '2026-11-20T09:00:00Z', likes: 3 },
  { id: 2, title: 'Again', body: 'Second post', author: 'bob', created_at: '2026-11-21T09:00:00Z', likes: 0 },
];
const server = createServer((_req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(posts));
});
let url: string;
beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/posts.json`;
});
afterAll(() => server.close());

describe('the README', () => {
  it('shows a complete connector in under 40 lines, and it works as written', async () => {
    const code = await readmeExample();
    expect(code.trimEnd().split('\n').length).toBeLessThan(40);
    const file = join(await mkdtemp(join(tmpdir(), 'svc-readme-')), 'posts.ts');
    await writeFile(file, code);
    const connector = (await import(file)).default as Connector;
    expect(validateDefinition(connector)).toEqual({ valid: true, problems: [] });

    const first = await runSync(connector, { feedKey: 'posts', config: { url } });
    expect(first.events.map((e) => [e.origin_id, e.title, e.author_name])).toEqual([
      ['1', 'Hello', 'ada'],
      ['2', 'Again', 'bob'],
    ]);
    expect(first.events[0]?.score).toBeGreaterThan(first.events[1]?.score ?? 100);
    expect(first.checkpoint).toEqual({ since: '2026-11-21T09:00:00Z' });
    const again = await runSync(connector, {
      feedKey: 'posts',
      config: { url },
      checkpoint: first.checkpoint,
    });
    expect(again.events).toEqual([]);
  });
});
