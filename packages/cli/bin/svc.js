#!/usr/bin/env node
// The `svc` command, linked by `npm ci` (this file exists before any build, so npm can link it):
// it runs the built CLI, which `npm run build` writes to dist/.
import('../dist/bin.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bin.js')) {
    process.stderr.write('svc: the CLI is not built yet; run "npm run build" in the repository first\n');
    process.exit(1);
  }
  throw error;
});
