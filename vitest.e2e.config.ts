import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** What runs built: `npm run test:e2e` (it builds first): browser tests, with Debian's Chromium at /usr/bin/chromium, and the built connector sandbox. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['packages/*/e2e/**/*.e2e.ts'], testTimeout: 60_000 },
});
