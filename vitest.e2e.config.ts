import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** Browser tests: `npm run test:e2e`, with Debian's Chromium at /usr/bin/chromium. */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ['packages/*/e2e/**/*.e2e.ts'], testTimeout: 60_000 },
});
