/**
 * What connector code may touch on the machine, as flags of Node's permission model for the
 * child it runs in. Connector code is an org's: it reads svc's code and its dependencies, and
 * the connectors' compiled sources, and no other file: not the server's data directory (its admin
 * password, PostgreSQL's files), not /etc, not a home directory. Built, it writes no file and
 * starts no process and no worker thread.
 *
 * What this does not confine: the network, local services included (connectors exist to call
 * APIs), so a database that trusts local connections without a password is open to connector
 * code. And from the sources (tests, development) the TypeScript loader needs a process and a
 * thread. Node 20's model is experimental; it is a layer, not a boundary between tenants.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectorsRoot } from './compile.js';

/**
 * svc's packages as the child loads them, and every `node_modules` from here up to the root (the
 * dependencies). Built, a workspace package is its `dist/` and its `package.json` only: not the
 * rest of the folder, where an operator might have put a data directory. From the sources, whole
 * packages (their `src/`). Read once: a few stat calls.
 */
const readable = new Map<boolean, string[]>();
function codePaths(fromSource: boolean): string[] {
  const known = readable.get(fromSource);
  if (known) return known;
  const own = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/+$/, '');
  const packages = new Set<string>([own]);
  const paths = new Set<string>();
  for (let dir = own; ; dir = dirname(dir)) {
    const modules = join(dir, 'node_modules');
    if (existsSync(modules)) {
      paths.add(modules);
      const scope = join(modules, '@svc');
      for (const name of existsSync(scope) ? readdirSync(scope) : [])
        packages.add(realpathSync(join(scope, name)));
    }
    if (dirname(dir) === dir) break;
  }
  for (const pkg of packages) {
    if (fromSource) paths.add(pkg);
    else for (const part of ['dist', 'package.json', 'node_modules']) paths.add(join(pkg, part));
  }
  // Node 20's permission tree aborts the process on a path inside another one: keep the outer.
  const all = [...paths].filter((path) => existsSync(path));
  const outer = all.filter((path) => !all.some((other) => other !== path && path.startsWith(`${other}/`)));
  readable.set(fromSource, outer);
  return outer;
}

/**
 * The flags. From the sources (tests), the TypeScript loader also keeps its cache in the temporary
 * directory (`tsx-<uid>`), runs its hooks on a worker thread and compiles in esbuild's process:
 * allowed there, never when built. Node 20 calls the model `--experimental-permission`; later ones
 * `--permission`.
 */
export function permissionFlags(fromSource: boolean, tmp: string = tmpdir()): string[] {
  const flag = process.allowedNodeEnvironmentFlags.has('--permission')
    ? '--permission'
    : '--experimental-permission';
  const cache = join(tmp, 'tsx-*');
  return [
    flag,
    '--disable-warning=ExperimentalWarning',
    ...codePaths(fromSource).map((path) => `--allow-fs-read=${path}`),
    `--allow-fs-read=${connectorsRoot()}`,
    // The loader's hooks run on a thread of their own (module.register), and compile with esbuild's
    // binary, a process.
    ...(fromSource
      ? [`--allow-fs-read=${cache}`, `--allow-fs-write=${cache}`, '--allow-worker', '--allow-child-process']
      : []),
  ];
}
