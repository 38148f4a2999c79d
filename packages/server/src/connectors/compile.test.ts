import { chmod, mkdtemp, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOwnFolder, connectorsRoot, installedSourceFile } from './compile.js';

/** The folders a posted connector is compiled into: reused only when whole and made by this svc. */

const SOURCE = `import { defineConnector } from '@svc/connector-sdk';
const key: string = 'compiled-${process.pid}';
export default defineConnector({ key, name: 'Compiled', version: '1.0.0' });
`;
const linkOf = (file: string) => join(dirname(file), 'node_modules', '@svc', 'connector-sdk');

describe('installedSourceFile', () => {
  it('compiles once, and makes a folder again when part of it is gone or points elsewhere', async () => {
    const file = await installedSourceFile(SOURCE);
    expect(await readFile(file, 'utf8')).toMatch(/const key = "compiled-/);
    const sdk = await readlink(linkOf(file));
    expect(await installedSourceFile(SOURCE)).toBe(file);

    // A temp cleaner took the link: the next run would not find the SDK.
    await rm(linkOf(file));
    expect(await installedSourceFile(SOURCE)).toBe(file);
    expect(await readlink(linkOf(file))).toBe(sdk);

    // Left by another install of svc: its SDK, which this one's children may not read.
    await rm(linkOf(file));
    await symlink('/nonexistent/svc/packages/sdk', linkOf(file), 'dir');
    expect(await installedSourceFile(SOURCE)).toBe(file);
    expect(await readlink(linkOf(file))).toBe(sdk);
  });

  it('refuses a folder of compiled connectors that others may write to', async () => {
    // Not the real one: other test files compile connectors into it at the same time.
    const dir = await mkdtemp(join(tmpdir(), 'svc-connectors-probe-'));
    try {
      await expect(checkOwnFolder(dir)).resolves.toBeUndefined();
      await chmod(dir, 0o777);
      await expect(checkOwnFolder(dir)).rejects.toThrow(/is not svc's own .* mode 0700/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await expect(checkOwnFolder(connectorsRoot())).resolves.toBeUndefined();
  });
});
