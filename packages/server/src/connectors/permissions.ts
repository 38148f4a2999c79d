/**
 * What connector code may touch on the machine, as flags of Node's permission model for the
 * child it runs in. Connector code is an org's: it reads svc's code and its dependencies, and
 * the connectors' compiled sources, and nothing else: not the server's data directory (its admin
 * password, PostgreSQL's files), not /etc, not a home directory. It writes no file, starts no
 * process and no worker thread. The network stays open: connectors exist to call APIs (the egress
 * policy of DESIGN.md section 6 applies to what the server itself fetches).
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where compiled connector sources are written (sandbox.ts), one folder each. */
export const CONNECTOR_DIR_PREFIX = 'svc-connector-';

let readable: string[] | undefined;

/**
 * svc's own package (this file's), every `node_modules` from it up to the root, and where each
 * workspace package (`node_modules/@svc/*`) really is: a checkout links them to `packages/` and
 * `connectors/`, which hold code only. Read once: a few stat calls.
 */
function codePaths(): string[] {
  if (readable) return readable;
  const own = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/+$/, '');
  const paths = new Set<string>([own]);
  for (let dir = own; ; dir = dirname(dir)) {
    const modules = join(dir, 'node_modules');
    if (existsSync(modules)) {
      paths.add(modules);
      const scope = join(modules, '@svc');
      for (const name of existsSync(scope) ? readdirSync(scope) : [])
        paths.add(realpathSync(join(scope, name)));
    }
    if (dirname(dir) === dir) break;
  }
  // Node 20's permission tree aborts the process on a path inside another one: keep the outer.
  const all = [...paths];
  readable = all.filter((path) => !all.some((other) => other !== path && path.startsWith(`${other}/`)));
  return readable;
}

/**
 * The flags. From the sources (tests), the TypeScript loader also keeps its cache in the temporary
 * directory (`tsx-<uid>`), runs its hooks on a worker thread and compiles in esbuild's process:
 * allowed there, never when built. Node 20 calls the model `--experimental-permission`; later ones
 * `--permission`.
 */
export function permissionFlags(fromSource: boolean): string[] {
  const flag = process.allowedNodeEnvironmentFlags.has('--permission')
    ? '--permission'
    : '--experimental-permission';
  const cache = join(tmpdir(), 'tsx-*');
  return [
    flag,
    '--disable-warning=ExperimentalWarning',
    ...codePaths().map((path) => `--allow-fs-read=${path}`),
    `--allow-fs-read=${join(tmpdir(), `${CONNECTOR_DIR_PREFIX}*`)}`,
    // The loader's hooks run on a thread of their own (module.register), and compile with esbuild's
    // binary, a process.
    ...(fromSource
      ? [`--allow-fs-read=${cache}`, `--allow-fs-write=${cache}`, '--allow-worker', '--allow-child-process']
      : []),
  ];
}
