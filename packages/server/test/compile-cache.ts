import module from 'node:module';
import { afterAll } from 'vitest';

// Node writes what it compiled to NODE_COMPILE_CACHE (vitest.config.ts, Node 24) only at a
// normal exit, which a test file's process does not get: written when the file ends.
afterAll(() => {
  (module as { flushCompileCache?: () => void }).flushCompileCache?.();
});
