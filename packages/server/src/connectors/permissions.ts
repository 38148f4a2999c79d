/**
 * What connector code may touch on the machine, as flags of Node's permission model for the
 * child it runs in: a layer inside the OS sandbox (bubblewrap.ts), and the one file layer for
 * bundled connectors on a host without it. The child reads svc's code and its dependencies and
 * the connector given to it, and no other file: not the server's data directory (its admin
 * password, PostgreSQL's files), not /etc, not a home directory. It writes no file and starts no
 * process and no worker thread. Node 20's model is experimental: a layer, not a wall.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * svc's packages as the child loads them, and every `node_modules` from here up to the root (the
 * dependencies; from the sources, the children's build is in one of them). A workspace package is
 * its `dist/` and its `package.json` only: not the rest of the folder, where an operator might
 * have put a data directory. Read once: a few stat calls.
 */
let readable: string[] | undefined;
function codePaths(): string[] {
  if (readable) return readable;
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
  for (const pkg of packages)
    for (const part of ['dist', 'package.json', 'node_modules']) paths.add(join(pkg, part));
  // Node 20's permission tree aborts the process on a path inside another one: keep the outer.
  const all = [...paths].filter((path) => existsSync(path));
  readable = all.filter((path) => !all.some((other) => other !== path && path.startsWith(`${other}/`)));
  return readable;
}

/** The flags, and `slot`: the folder of the connector the child is given. */
export function permissionFlags(slot: string): string[] {
  const flag = process.allowedNodeEnvironmentFlags.has('--permission')
    ? '--permission'
    : '--experimental-permission';
  return [
    flag,
    '--disable-warning=ExperimentalWarning',
    ...codePaths().map((path) => `--allow-fs-read=${path}`),
    `--allow-fs-read=${slot}`,
  ];
}
