/**
 * From the sources only (tests, and development before `npm run build`; a clean clone has no
 * dist/): the child and what it loads (the SDK, the bundled connectors) bundled once with esbuild
 * into plain JavaScript, as `npm run build` makes them. So a child runs as a built server runs it:
 * no TypeScript loader (it tripled a child's start-up) and Node's permission model with the built
 * flags. Third-party packages stay imports of the repository's node_modules.
 *
 * Kept in `node_modules/.cache/svc-connector-child/<hash of the sources>`, where those imports
 * resolve; made once, renamed into place whole, reused by every process of the same sources.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, version as esbuildVersion } from 'esbuild';

export interface SourceBuild {
  dir: string;
  /** The child's entry. */
  child: string;
  /** A package folder of the SDK, for compiled posted source to import. */
  sdkFolder: string;
  /** The bundled connectors' modules, by package name. */
  packages: Record<string, string>;
}

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const ENTRIES: Record<string, string> = {
  child: 'packages/server/src/connectors/child.ts',
  'connector-sdk/index': 'packages/sdk/src/index.ts',
  'connector-rss': 'connectors/rss/src/index.ts',
  'connector-code-host': 'connectors/code-host/src/index.ts',
};
const SOURCES = [
  'packages/sdk/src',
  'connectors/rss/src',
  'connectors/code-host/src',
  'packages/server/src/connectors',
];

let made: Promise<SourceBuild> | undefined;

export function sourceBuild(): Promise<SourceBuild> {
  made ??= makeSourceBuild();
  return made;
}

async function makeSourceBuild(): Promise<SourceBuild> {
  const hash = createHash('sha256').update(`${esbuildVersion}\n`);
  for (const folder of SOURCES) {
    for (const file of (await readdir(join(root, folder), { recursive: true })).sort()) {
      if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
      hash.update(`${folder}/${file}\n`).update(await readFile(join(root, folder, file)));
    }
  }
  const cache = join(root, 'node_modules', '.cache', 'svc-connector-child');
  const dir = join(cache, hash.digest('hex').slice(0, 24));
  const described: SourceBuild = {
    dir,
    child: join(dir, 'child.js'),
    sdkFolder: join(dir, 'connector-sdk'),
    packages: {
      '@svc/connector-rss': join(dir, 'connector-rss.js'),
      '@svc/connector-code-host': join(dir, 'connector-code-host.js'),
    },
  };
  if (existsSync(join(dir, 'complete'))) return described;
  const temporary = join(cache, `tmp-${randomBytes(6).toString('hex')}`);
  await mkdir(temporary, { recursive: true });
  try {
    await build({
      entryPoints: Object.fromEntries(
        Object.entries(ENTRIES).map(([name, path]) => [name, join(root, path)]),
      ),
      outdir: temporary,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      conditions: ['svc-source'],
      sourcemap: 'inline',
      logLevel: 'silent',
      // undici is CommonJS: its require() of Node's modules needs a require in ES modules.
      banner: {
        js: "import { createRequire as svcCreateRequire } from 'node:module'; const require = svcCreateRequire(import.meta.url);",
      },
      plugins: [
        {
          // svc's own packages are bundled (from their sources), and undici, which the server's
          // package has a version of its own of (not in the root node_modules, where the build
          // is); every other package stays an import.
          name: 'third-party-external',
          setup(on) {
            on.onResolve({ filter: /^[^./]/ }, (args) =>
              args.path.startsWith('@svc/') || args.path === 'undici' || args.path.startsWith('undici/')
                ? undefined
                : { path: args.path, external: true },
            );
          },
        },
      ],
    });
    await writeFile(join(temporary, 'package.json'), '{"type": "module"}\n');
    await writeFile(
      join(temporary, 'connector-sdk', 'package.json'),
      '{"name": "@svc/connector-sdk", "type": "module", "exports": "./index.js"}\n',
    );
    await writeFile(join(temporary, 'complete'), '');
    // Another process may have put the same build there first: theirs serves.
    await rename(temporary, dir).catch(() => rm(temporary, { recursive: true, force: true }));
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
  if (!existsSync(join(dir, 'complete')))
    throw new Error(`the connector child's build in ${dirname(dir)} is not whole`);
  return described;
}
