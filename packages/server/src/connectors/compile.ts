/**
 * A posted connector's source as a file a sandboxed child can import: compiled to JavaScript here
 * (esbuild), with `@svc/connector-sdk` resolvable next to it, in a folder of svc's own.
 *
 * Compiled here rather than in the child: a child that needs no TypeScript loader starts in a
 * third of the time (the loader's hooks slow every import, the SDK's included).
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readlink, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { version as esbuildVersion, type Message, transform } from 'esbuild';
import { ConnectorCodeError } from './errors.js';
import { sourceBuild } from './source-build.js';

/**
 * Where compiled connectors live: a folder of this user's in the temporary directory, 0700, so
 * that no other local user can put code there for svc to run, or read it. Its path is what the
 * children may read (permissions.ts).
 */
export const connectorsRoot = () => join(tmpdir(), `svc-connectors-${userInfo().uid}`);

async function ownRoot(): Promise<string> {
  const root = connectorsRoot();
  await mkdir(root, { recursive: true, mode: 0o700 });
  await checkOwnFolder(root);
  return root;
}

/** Throws unless `dir` belongs to this user and is closed to others. */
export async function checkOwnFolder(dir: string): Promise<void> {
  const info = await stat(dir);
  if (info.uid !== userInfo().uid || (info.mode & 0o077) !== 0) {
    throw new Error(
      `${dir} is not svc's own (it must belong to this user and be closed to others, mode 0700): remove it, and svc makes it again`,
    );
  }
}

/** The folder of the SDK package, for a connector's source to import it from anywhere. */
let sdk: Promise<string> | undefined;
function sdkFolder(): Promise<string> {
  // From the sources, the SDK as the children load it: bundled to JavaScript (source-build.ts).
  if (import.meta.url.endsWith('.ts')) {
    sdk ??= sourceBuild().then((built) => built.sdkFolder);
    return sdk;
  }
  sdk ??= (async () => {
    let dir = dirname(fileURLToPath(import.meta.resolve('@svc/connector-sdk')));
    for (;;) {
      const manifest = await readFile(join(dir, 'package.json'), 'utf8').catch(() => null);
      if (manifest && JSON.parse(manifest).name === '@svc/connector-sdk') return dir;
      const parent = dirname(dir);
      if (parent === dir) throw new Error('cannot find the folder of @svc/connector-sdk');
      dir = parent;
    }
  })();
  return sdk;
}

const SDK_LINK = join('node_modules', '@svc', 'connector-sdk');

/** Types are erased, not checked. A syntax error is the author's: it says where. */
async function compileSource(source: string): Promise<string> {
  try {
    const { code } = await transform(source, {
      loader: 'ts',
      format: 'esm',
      target: 'node20',
      sourcefile: 'connector.ts',
      sourcemap: 'inline',
    });
    return code;
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    if (!errors?.length) throw error;
    throw new ConnectorCodeError(
      errors
        .map(({ text, location }) =>
          location ? `line ${location.line}:${location.column + 1}: ${text}` : text,
        )
        .join('; '),
    );
  }
}

/**
 * A connector's source as a file the child can import, in a fresh folder removed by `cleanup`.
 * ConnectorCodeError when it does not compile.
 */
export async function materializeSource(source: string): Promise<{ file: string; cleanup(): Promise<void> }> {
  const code = await compileSource(source);
  const dir = await mkdtemp(join(await ownRoot(), 'tmp-'));
  await mkdir(dirname(join(dir, SDK_LINK)), { recursive: true });
  await symlink(await sdkFolder(), join(dir, SDK_LINK), 'dir');
  const file = join(dir, 'connector.mjs');
  await writeFile(file, code);
  return { file, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Whether a kept folder is whole and made by this svc: its module there, its link to our SDK. */
async function sound(dir: string): Promise<boolean> {
  const [module, link] = await Promise.all([
    stat(join(dir, 'connector.mjs')).catch(() => null),
    readlink(join(dir, SDK_LINK)).catch(() => null),
  ]);
  return module !== null && link === (await sdkFolder());
}

/**
 * The same, kept for the runs of an installed source: one folder per content, written once and
 * renamed into place, so that replicas and concurrent runs share it and a child that outlives a
 * run still finds the files it imported. The name covers the source, the SDK it links to and the
 * compiler. A folder that is not whole (a temp cleaner took part of it) is never removed, since
 * another process may be creating or using it: the next name (`-1`, `-2`, ...) is used instead.
 */
export async function installedSourceFile(source: string): Promise<string> {
  const hash = createHash('sha256')
    .update(`compiled/2\n${await sdkFolder()}\n${esbuildVersion}\n`)
    .update(source)
    .digest('hex')
    .slice(0, 24);
  const root = await ownRoot();
  for (let attempt = 0; attempt < 5; attempt++) {
    const dir = join(root, attempt === 0 ? hash : `${hash}-${attempt}`);
    if (await sound(dir)) return join(dir, 'connector.mjs');
    if (await stat(dir).catch(() => null)) continue; // broken, or being made: not touched
    const { file: written } = await materializeSource(source);
    // Atomic: fails if another process put its folder there first; the same content, so theirs serves.
    const placed = await rename(dirname(written), dir).then(
      () => true,
      async () => {
        await rm(dirname(written), { recursive: true, force: true });
        return false;
      },
    );
    if (placed || (await sound(dir))) return join(dir, 'connector.mjs');
  }
  throw new Error(
    `cannot make a folder for a compiled connector in ${root}: remove the folders named ${hash}*`,
  );
}
