import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The connector sandbox as a built server runs it (`npm run build`, then `npm start`): the child
 * without the TypeScript loader, under the permission model's built flags. The unit tests run the
 * sources, where the loader needs a process and a thread; this is what production gets.
 */

const dist = (path: string) => fileURLToPath(new URL(`../dist/${path}`, import.meta.url));

type Sandbox = typeof import('../src/connectors/sandbox.js');
type Compile = typeof import('../src/connectors/compile.js');
let sandbox: Sandbox;
let compile: Compile;

beforeAll(async () => {
  if (!existsSync(dist('connectors/sandbox.js'))) {
    throw new Error('no built server: run "npm run build" before "npm run test:e2e"');
  }
  sandbox = (await import(dist('connectors/sandbox.js'))) as Sandbox;
  compile = (await import(dist('connectors/compile.js'))) as Compile;
});

async function definitionOf(source: string): Promise<{ key: string; description?: string }> {
  const { file, cleanup } = await compile.materializeSource(source);
  try {
    const { definition } = await sandbox.runInSandbox<{ definition: { key: string; description?: string } }>(
      { task: 'definition', module: { file, name: 'connector.ts' } },
      { timeoutMs: 20_000, memoryMb: 128, unsandboxedSource: true },
      dirname(file),
    );
    return definition;
  } finally {
    await cleanup();
  }
}

describe('the built connector sandbox', () => {
  it('runs a bundled connector and a posted TypeScript source', async () => {
    const rss = await sandbox.runInSandbox<{ definition: { key: string } }>(
      { task: 'definition', module: { package: sandbox.BUNDLED_CONNECTORS.rss as string } },
      { timeoutMs: 20_000, memoryMb: 128 },
    );
    expect(rss.definition.key).toBe('rss');
    const typed = await definitionOf(`import { defineConnector } from '@svc/connector-sdk';
const description: string = 'typed';
export default defineConnector({ key: 'typed', name: 'Typed', version: '1.0.0', description });`);
    expect(typed).toMatchObject({ key: 'typed', description: 'typed' });
  });

  it('reads no file but code, writes none, starts no process and no thread', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-built-data-'));
    await writeFile(join(dataDir, 'admin-password'), 'server-secret');
    // A package's folder beyond dist/: where an operator might have put a data directory.
    const serverFolder = fileURLToPath(new URL('..', import.meta.url));
    try {
      const { description } = await definitionOf(`import { defineConnector } from '@svc/connector-sdk';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { Worker } from 'node:worker_threads';
const attempt = (work: () => unknown) => { try { work(); return 'allowed'; } catch (error) { return (error as { code?: string }).code; } };
const description = JSON.stringify({
  secret: attempt(() => readFileSync(${JSON.stringify(join(dataDir, 'admin-password'))}, 'utf8')),
  etc: attempt(() => readFileSync('/etc/passwd', 'utf8')),
  packageFolder: attempt(() => readdirSync(${JSON.stringify(serverFolder)})),
  write: attempt(() => writeFileSync(${JSON.stringify(join(dataDir, 'dropped'))}, 'x')),
  process: attempt(() => execSync('id')),
  thread: attempt(() => new Worker('1', { eval: true })),
});
export default defineConnector({ key: 'probe', name: 'Probe', version: '1.0.0', description });`);
      expect(JSON.parse(description as string)).toEqual({
        secret: 'ERR_ACCESS_DENIED',
        etc: 'ERR_ACCESS_DENIED',
        packageFolder: 'ERR_ACCESS_DENIED',
        write: 'ERR_ACCESS_DENIED',
        process: 'ERR_ACCESS_DENIED',
        thread: 'ERR_ACCESS_DENIED',
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('prints what the OS sandbox adds to starting a run (a fresh child, to its first answer)', async () => {
    const startUp = async (osSandbox: boolean) => {
      const times: number[] = [];
      for (let i = 0; i < 7; i++) {
        const started = performance.now();
        await sandbox.runInSandbox(
          { task: 'definition', module: { package: sandbox.BUNDLED_CONNECTORS.rss as string } },
          { timeoutMs: 20_000, memoryMb: 128, osSandbox },
        );
        times.push(performance.now() - started);
      }
      return times.sort((a, b) => a - b)[3] as number;
    };
    const plain = await startUp(false);
    const confined = await startUp(true);
    // A figure for the record, not a timed assertion (bench/ holds those): the aim is under 400 ms.
    console.log(
      `connector sandbox start-up, median of 7 fresh children: ${confined.toFixed(0)} ms in bubblewrap, ${plain.toFixed(0)} ms without (baseline, same run); aim: under 400 ms`,
    );
    expect(confined).toBeGreaterThan(0);
  }, 120_000);
});
