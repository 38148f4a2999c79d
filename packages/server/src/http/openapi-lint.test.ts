import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test/harness.js';

/**
 * The served document through the two linters a user's tooling is likely to run, each with its
 * recommended rules. Only the rules that ask for a license and a contact are off: a self-hosted
 * server has no one deployment's contact, and its license is the repository's, not the API's.
 * Anything else either of them reports, an error or a warning, fails the test.
 */
const OFF = {
  spectral: ['info-contact', 'info-license', 'license-url'],
  redocly: ['info-contact', 'info-license', 'info-license-strict'],
};
const off = (rules: string[]) => Object.fromEntries(rules.map((rule) => [rule, 'off' as const]));

let server: TestServer;
let text: string;
beforeAll(async () => {
  server = await startTestServer();
  const res = await fetch(`${server.url}/openapi.json`);
  expect(res.status).toBe(200);
  text = await res.text();
});
afterAll(() => server?.close());

describe('the served OpenAPI document', () => {
  it('has no spectral:oas error or warning', async () => {
    const spectral = new Spectral();
    spectral.setRuleset({
      extends: [[oas as never, 'recommended']],
      rules: off(OFF.spectral),
    });
    const results = await spectral.run(new Document(text, Json, 'openapi.json'));
    const found = results.map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`);
    expect(found).toEqual([]);
  });

  it('has no error or warning from redocly recommended', async () => {
    const config = await createConfig({
      extends: ['recommended'],
      rules: off(OFF.redocly),
    });
    const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
    const found = problems.map(
      (p) => `${p.ruleId} at ${p.location[0]?.pointer ?? ''}: ${p.message} (${p.severity})`,
    );
    expect(found).toEqual([]);
  });
});
