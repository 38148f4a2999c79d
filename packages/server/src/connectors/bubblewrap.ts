/**
 * The OS sandbox for connector code (DESIGN.md section 10, layer 1): bubblewrap (`bwrap`) gives
 * each child its own user, mount, PID, network, IPC and UTS namespaces. Inside it sees, read-only,
 * Node and the libraries it links, svc's packages that a child loads and their dependencies (each
 * at its real path, so `..` through a link leads nowhere), and the one compiled folder of the run's
 * connector; a private /proc and /dev; nothing else: no host file, no other process, no network
 * interface but its own loopback. Its one way out is the egress socket of its parent
 * (egress-proxy.ts), bound in at a fixed path.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** Where the parent's egress socket appears inside the sandbox. */
export const SANDBOX_EGRESS_SOCKET = '/run/svc/egress.sock';

/** `bwrap` on this host and able to make the namespaces, or null with why not. */
export interface Bubblewrap {
  path: string | null;
  /** Why there is no usable sandbox, for the operator and for a refused install. */
  missing: string | null;
}

/** Tried once per binary: a host can have one and still refuse the namespaces. */
const tried = new Map<string, Bubblewrap>();

/**
 * Finds `bwrap` (SVC_BWRAP_PATH, else the PATH) and tries it once: a host can have the binary and
 * still refuse the namespaces (unprivileged user namespaces turned off).
 */
export function findBubblewrap(env: Record<string, string | undefined> = process.env): Bubblewrap {
  const key = env.SVC_BWRAP_PATH ?? '';
  const known = tried.get(key);
  if (known) return known;
  const found = probeBubblewrap(env);
  tried.set(key, found);
  return found;
}

function probeBubblewrap(env: Record<string, string | undefined>): Bubblewrap {
  const path =
    env.SVC_BWRAP_PATH ||
    (env.PATH ?? '/usr/bin:/bin')
      .split(delimiter)
      .map((dir) => join(dir, 'bwrap'))
      .find((candidate) => existsSync(candidate)) ||
    null;
  if (!path || !existsSync(path)) {
    return {
      path: null,
      missing: path
        ? `bubblewrap is not at ${path} (SVC_BWRAP_PATH)`
        : 'bubblewrap (bwrap) is not installed on this host; install it (Debian and Ubuntu: apt-get install bubblewrap)',
    };
  }
  const node = realpathSync(process.execPath);
  const probe = spawnSync(path, [...namespaceArgs(), ...systemMounts(node), '--', node, '-e', '0'], {
    encoding: 'utf8',
    timeout: 10_000,
  });
  return probe.status === 0
    ? { path, missing: null }
    : {
        path: null,
        missing: `bubblewrap (${path}) cannot make a sandbox on this host: ${
          (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split('\n')[0]
        } (it needs user namespaces: sysctl kernel.unprivileged_userns_clone=1, or run svc as root)`,
      };
}

/** What the server says of connector code at start: where it runs, and what is missing. */
export function connectorSandboxLine(installs: 'off' | 'on' | 'unsandboxed'): string {
  const { missing } = findBubblewrap();
  const where = missing ? `without the OS sandbox (${missing})` : 'in the OS sandbox (bubblewrap)';
  if (installs === 'off') return `bundled only, ${where}`;
  if (!missing) return 'bundled and posted source, in the OS sandbox (bubblewrap)';
  return installs === 'unsandboxed'
    ? `bundled and posted source, WITHOUT the OS sandbox: posted code can read this host's files (${missing})`
    : `bundled only, ${where}: posted source is refused until bubblewrap works`;
}

function namespaceArgs(): string[] {
  return [
    '--unshare-user',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--unshare-pid',
    '--unshare-net',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    '--hostname',
    'connector',
    // The sandbox ends with this process; no terminal to push keystrokes into.
    '--die-with-parent',
    '--new-session',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--chdir',
    '/',
  ];
}

/** The Node binary and the shared libraries it links, each at the path the loader asks for. */
let libraries: string[][] | undefined;
function systemMounts(node: string): string[] {
  libraries ??= linkedLibraries(node);
  return [...bind(node, node), ...libraries.flat()];
}

function linkedLibraries(node: string): string[][] {
  let listing = '';
  try {
    listing = execFileSync('ldd', [node], { encoding: 'utf8', timeout: 10_000 });
  } catch {
    // A static binary (ldd says "not a dynamic executable" and fails), or no ldd: the usual places.
    return ['/usr/lib', '/lib', '/lib64', '/usr/lib64']
      .filter((dir) => existsSync(dir))
      .map((dir) => bind(realpathSync(dir), dir));
  }
  const paths = [...listing.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((match) => match[1] as string);
  return [...new Set(paths)].filter((path) => existsSync(path)).map((path) => bind(realpathSync(path), path));
}

const bind = (source: string, target: string) => ['--ro-bind', source, target];

export interface SandboxMounts {
  /** Folders and files to show read-only, each at its own (real) path. */
  readable: string[];
  /** Links to recreate: node_modules entries of the workspace packages, as Node resolves them. */
  links: { path: string; target: string }[];
  /** The child's own folder for the connector it is given, shown read-only at `at`. */
  slot: { path: string; at: string };
  /** The egress socket on the host, shown at SANDBOX_EGRESS_SOCKET. */
  egressSocket: string;
}

/** The arguments of `bwrap` for a child, up to (and without) the `--` before the command. */
export function bubblewrapArgs(mounts: SandboxMounts, env: Record<string, string>): string[] {
  const node = realpathSync(process.execPath);
  const args = [...namespaceArgs(), ...systemMounts(node)];
  for (const path of mounts.readable) args.push(...bind(path, path));
  for (const { path, target } of mounts.links) args.push('--symlink', target, path);
  args.push(...bind(mounts.slot.path, mounts.slot.at));
  args.push('--bind', mounts.egressSocket, SANDBOX_EGRESS_SOCKET);
  // A deployment's own CA (NODE_EXTRA_CA_CERTS), so that TLS through the egress socket verifies.
  const ca = env.NODE_EXTRA_CA_CERTS;
  if (ca && existsSync(ca)) args.push(...bind(realpathSync(ca), ca));
  return args;
}

/**
 * The packages `names` as Node finds them from `from` (the nearest `node_modules` up the tree),
 * and every dependency they declare, each given by real path; the links Node passes through on the
 * way (workspace packages) are recreated. A workspace package (not under a node_modules) shows
 * only what `parts` names (`dist` and `package.json` when built); a dependency, its whole folder.
 */
export function packageClosure(
  from: string,
  names: string[],
  parts: (dir: string) => string[],
): Pick<SandboxMounts, 'readable' | 'links'> {
  const readable = new Set<string>();
  const links = new Map<string, string>();
  const seen = new Set<string>();
  const visit = (dir: string) => {
    const real = realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    const workspace = !real.split('/').includes('node_modules');
    for (const part of workspace ? parts(real) : [real]) if (existsSync(part)) readable.add(part);
    const manifest = JSON.parse(readFileSync(join(real, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const names = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.optionalDependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    for (const name of names) follow(real, name);
  };
  const follow = (dir: string, name: string) => {
    const found = resolvePackage(dir, name);
    if (!found) return; // an optional dependency not installed on this platform
    const target = realpathSync(found);
    if (target !== found) links.set(found, target);
    visit(found);
  };
  for (const name of names) follow(from, name);
  return { readable: [...readable], links: [...links].map(([path, target]) => ({ path, target })) };
}

function resolvePackage(from: string, name: string): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}
