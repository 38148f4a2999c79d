import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOwnFolder, connectorsRoot, installedSourceFile } from './compile.js';

/** The folders a posted connector is compiled into: reused only when whole and made by this svc. */

const SOURCE = `import { defineConnector } from '@svc/connector-sdk';
const key: string = 'compiled-${randomBytes(8).toString('hex')}';
export default defineConnector({ key, name: 'Compiled', version: '1.0.0' });
`;
const linkOf = (file: string) => join(dirname(file), 'node_modules', '@svc', 'connector-sdk');

describe('installedSourceFile', () => {
  it('compiles once, and uses another folder when one is broken, never removing it', async () => {
    const file = await installedSourceFile(SOURCE);
    expect(await readFile(file, 'utf8')).toMatch(/const key = "compiled-/);
    const sdk = await readlink(linkOf(file));
    expect(await installedSourceFile(SOURCE)).toBe(file);

    // A temp cleaner took the link: the next run would not find the SDK. Another process may be
    // using what is left, so it stays; the next name serves.
    await rm(linkOf(file));
    const next = await installedSourceFile(SOURCE);
    expect(next).toBe(join(`${dirname(file)}-1`, 'connector.mjs'));
    expect(await readlink(linkOf(next))).toBe(sdk);
    expect(await readFile(file, 'utf8')).toMatch(/const key = "compiled-/);
    expect(await installedSourceFile(SOURCE)).toBe(next);

    // Left by another install of svc: linked to its SDK, which this one's children may not read.
    await rm(linkOf(next));
    await symlink('/nonexistent/svc/packages/sdk', linkOf(next), 'dir');
    const third = await installedSourceFile(SOURCE);
    expect(third).toBe(join(`${dirname(file)}-2`, 'connector.mjs'));
    expect(await readlink(linkOf(third))).toBe(sdk);
  });

  it('gives concurrent callers one folder, whole', async () => {
    const source = SOURCE.replace('compiled-', 'concurrent-');
    const files = await Promise.all(Array.from({ length: 8 }, () => installedSourceFile(source)));
    expect(new Set(files).size).toBe(1);
    expect(await readlink(linkOf(files[0] as string))).toBeTruthy();
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
