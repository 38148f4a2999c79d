import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

// Each test file's process loads fastify, the AI SDK, pg... from node_modules anew: on Node 24 (the
// newest CI runs), Node keeps their compiled code here for the next (a third less CPU for that load;
// each entry is checked against its file's source). Written when a file ends (compile-cache.ts).
if (Number(process.versions.node.split('.')[0]) >= 24) {
  process.env.NODE_COMPILE_CACHE ??= fileURLToPath(
    new URL('./node_modules/.cache/node-compile-cache', import.meta.url),
  );
}

export default defineConfig({
  resolve: {
    // Tests run the sources; `npm run build` is for the shipped binaries.
    alias: {
      '@svc/core': src('core'),
      '@svc/server': src('server'),
      '@svc/connector-sdk': src('sdk'),
    },
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'connectors/*/src/**/*.test.ts'],
    globalSetup: ['packages/server/test/global-setup.ts'],
    setupFiles: ['packages/server/test/compile-cache.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // What tests import outside vite (a connector file through tsx, say) resolves our packages to
    // their sources too, as it does through the aliases: a clean clone has no dist/ yet.
    execArgv: ['--conditions=svc-source'],
  },
});
