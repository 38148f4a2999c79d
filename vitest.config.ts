import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

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
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // What tests import outside vite (a connector file through tsx, say) resolves our packages to
    // their sources too, as it does through the aliases: a clean clone has no dist/ yet.
    execArgv: ['--conditions=svc-source'],
  },
});
