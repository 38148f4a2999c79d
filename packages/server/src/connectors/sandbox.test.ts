import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBubblewrap } from './bubblewrap.js';
import { materializeSource } from './compile.js';
import { BUNDLED_CONNECTORS, ConnectorCodeError, runInSandbox } from './sandbox.js';

/** Connector code runs in a child process: bounded in time and memory, with none of our environment. */

const inspect = async (source: string, limits = { timeoutMs: 15_000, memoryMb: 128 }) => {
  const { file, cleanup } = await materializeSource(source);
  try {
    return await runInSandbox<{ definition: { key: string; description?: string } }>(
      { task: 'definition', module: { file, name: 'connector.ts' } },
      { ...limits, unsandboxedSource: true },
      dirname(file),
    );
  } finally {
    await cleanup();
  }
};

const definedAs = (body: string) => `
import { defineConnector } from '@svc/connector-sdk';
${body}
export default defineConnector({ key: 'probe', name: 'Probe', version: '1.0.0', description: DESCRIPTION });
`;

describe('the connector sandbox', () => {
  it('reads a bundled connector, and a TypeScript source that imports the SDK', async () => {
    const rss = await runInSandbox<{ definition: { key: string } }>(
      { task: 'definition', module: { package: BUNDLED_CONNECTORS.rss as string } },
      { timeoutMs: 15_000, memoryMb: 128 },
    );
    expect(rss.definition.key).toBe('rss');
    const typed = await inspect(definedAs("const DESCRIPTION: string = 'typed';"));
    expect(typed.definition).toMatchObject({ key: 'probe', description: 'typed' });
  });

  it('gives the code none of the server environment', async () => {
    process.env.SVC_SANDBOX_PROBE = 'server-secret';
    try {
      const { definition } = await inspect(
        definedAs('const DESCRIPTION = JSON.stringify(Object.keys(process.env));'),
      );
      // The egress socket's path, and a deployment's own CA file: nothing else of the server's.
      expect(JSON.parse(definition.description as string).sort()).toEqual(
        [
          'NODE_ENV',
          'PATH',
          'TZ',
          'SVC_EGRESS_SOCKET',
          ...(process.env.NODE_EXTRA_CA_CERTS ? ['NODE_EXTRA_CA_CERTS'] : []),
          ...(process.env.TMPDIR && findBubblewrap().missing ? ['TMPDIR'] : []),
        ].sort(),
      );
    } finally {
      delete process.env.SVC_SANDBOX_PROBE;
    }
  });

  it("reads svc's code and no other file of the machine, and writes none", async () => {
    // As the server's data directory holds its admin password.
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-sandbox-data-'));
    await writeFile(join(dataDir, 'admin-password'), 'server-secret');
    try {
      const { definition } = await inspect(
        definedAs(`
import { readFileSync, writeFileSync } from 'node:fs';
const attempt = (work: () => unknown) => { try { work(); return 'allowed'; } catch (error) { return (error as { code?: string }).code; } };
const DESCRIPTION = JSON.stringify({
  secret: attempt(() => readFileSync(${JSON.stringify(join(dataDir, 'admin-password'))}, 'utf8')),
  etc: attempt(() => readFileSync('/etc/passwd', 'utf8')),
  write: attempt(() => writeFileSync(${JSON.stringify(join(dataDir, 'dropped'))}, 'x')),
});`),
      );
      expect(JSON.parse(definition.description as string)).toEqual({
        secret: 'ERR_ACCESS_DENIED',
        etc: 'ERR_ACCESS_DENIED',
        write: 'ERR_ACCESS_DENIED',
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('says why the code could not run: a throw, the time limit, the memory limit', async () => {
    await expect(inspect("throw new Error('no config file');")).rejects.toThrow(/no config file/);
    await expect(inspect('while (true) {}', { timeoutMs: 1500, memoryMb: 128 })).rejects.toThrow(
      /ran longer than 1.5 s/,
    );
    const hog = 'const kept = []; for (;;) kept.push(new Array(1e6).fill(Math.random()));';
    const error = await inspect(hog, { timeoutMs: 30_000, memoryMb: 64 }).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectorCodeError);
    expect(error.message).toMatch(/used more than 64 MB/);
  }, 60_000);
});
