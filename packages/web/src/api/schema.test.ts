import { readFile, writeFile } from 'node:fs/promises';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../../../server/test/harness.js';

const FILE = new URL('./schema.d.ts', import.meta.url);
const HEADER =
  "// Generated from the gateway's /openapi.json by openapi-typescript: do not edit.\n" +
  '// Update: SVC_UPDATE_API_TYPES=1 npx vitest run packages/web/src/api/schema.test.ts\n';

/**
 * The console's API types are the served document's: a route or a field that changes makes this
 * test fail until the types are generated again, and the console's type-check then shows every
 * page the change breaks.
 */
describe("the console's API types", async () => {
  const server = await startTestServer();
  it('are generated from the current /openapi.json', async () => {
    const document = await (await fetch(`${server.url}/openapi.json`)).json();
    const generated = HEADER + astToString(await openapiTS(document as never));
    if (process.env.SVC_UPDATE_API_TYPES === '1') await writeFile(FILE, generated);
    const committed = await readFile(FILE, 'utf8').catch(() => '');
    expect(committed === generated, 'schema.d.ts is stale: see its header to update it').toBe(true);
  });
});
