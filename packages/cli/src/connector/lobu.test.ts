/**
 * Connectors written for Lobu's SDK, installed through `svc connector install` against a real
 * server and synced on a real run worker: a folder's connector with a relative import and no
 * `execute`, members linked under `code_host_login` through `IDENTITY.GITHUB_LOGIN`, Owletto-era
 * envelopes mapped with a warning in the run's log, and a namespace that is undefined refused.
 */

import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunWorkers } from '../../../server/src/runs/worker.js';
import { createToken, startTestServer, type TestServer } from '../../../server/test/harness.js';
import { startTestRunWorkers } from '../../../server/test/runtime.js';
import { exited, svc } from '../../test/run-svc.js';
import type { RuntimeIo } from '../runtime/api.js';
import { connectionCreate } from '../runtime/connections.js';
import { connectorInstall } from '../runtime/connectors.js';
import { feedSync } from '../runtime/feeds.js';

let server: TestServer;
let workers: RunWorkers;
let admin: string;
let dir: string;

beforeAll(async () => {
  server = await startTestServer({ connectorSourceInstalls: true });
  admin = (await createToken(server, 'default', ['admin'])).secret;
  dir = await mkdtemp(join(tmpdir(), 'svc-lobu-'));
  await cp(fileURLToPath(new URL('./test/lobu-stars', import.meta.url)), join(dir, 'stars'), {
    recursive: true,
  });
  workers = await startTestRunWorkers(server);
}, 60_000);

afterAll(async () => {
  await workers?.close(1000);
  await rm(dir, { recursive: true, force: true });
});

const env = () => ({ SVC_URL: server.url, SVC_API_TOKEN: admin, XDG_CONFIG_HOME: dir });

function io(): RuntimeIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: env(),
    out: (line) => lines.push(line),
    err: (line) => errors.push(line),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    pollMs: 100,
    lines,
    errors,
  };
}

async function failure(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the command to fail');
}

/** A connection of `connectorKey` and a sync of its feed `feedKey`, followed to its end. */
async function syncOnce(connectorKey: string, feedKey: string) {
  const created = io();
  await connectionCreate(connectorKey, { json: true }, created);
  const { connection, feeds } = JSON.parse(created.lines.join('\n'));
  const feed = feeds.find((f: { feedKey: string }) => f.feedKey === feedKey);
  const sync = io();
  const code = await feedSync(String(feed.id), { follow: true }, sync);
  return { code, connectionId: connection.id as number, text: [...sync.lines, ...sync.errors].join('\n') };
}

describe("a connector written for Lobu's SDK", () => {
  it('installs from a folder through svc connector install, its relative import bundled, and syncs', async () => {
    // Through the CLI itself (from the repository's root, where its TypeScript loader resolves).
    const child = svc(['connector', 'install', join(dir, 'stars', 'connector.ts')], env());
    expect(await exited(child), child.output()).toBe(0);
    expect(child.output()).toMatch(/created connector lobu\.stars 1\.0\.0 \(Stars\)/);

    const { code, connectionId, text } = await syncOnce('lobu.stars', 'stars');
    expect(code, text).toBe(0);
    expect(text).toMatch(/run \d+ completed: 2 items collected/);
    // The Owletto-era fields, mapped, and said so once in the run's log.
    expect(text).toMatch(
      /warn {2}events use the Owletto-era envelope; mapped to the spec's fields: external_id → origin_id, content → payload_text, published_at → occurred_at, url → source_url, author → author_name, kind → origin_type\./,
    );
    expect(text.match(/Owletto-era envelope/g)).toHaveLength(1);
    const events = await server.call('GET', `/api/default/events?connectionId=${connectionId}`);
    const octocat = events.body.events.find((e: { origin_id: string }) => e.origin_id === 'star-Octocat');
    expect(octocat).toMatchObject({
      origin_type: 'star',
      payload_text: 'Octocat starred the repository',
      author_name: 'Octocat',
      source_url: 'https://github.com/Octocat',
      occurred_at: '2026-11-20T09:00:00.000Z',
      metadata: { identities: [{ namespace: 'code_host_login', identifier: 'octocat' }] },
    });

    // IDENTITY.GITHUB_LOGIN linked the stargazers as members under code_host_login.
    const found = await server.call(
      'GET',
      `/api/default/entities?type=member&identity=${encodeURIComponent('code_host_login:octocat')}`,
    );
    expect(found.body.entities).toHaveLength(1);
    expect(found.body.entities[0].identities).toContainEqual(
      expect.objectContaining({ namespace: 'code_host_login', value: 'octocat' }),
    );
  });

  it('refuses an identity whose namespace is undefined, naming its field, and stores the rest', async () => {
    await writeFile(
      join(dir, 'stars', 'undefined.ts'),
      `import { ConnectorRuntime, IDENTITY } from '@svc/connector-sdk';
import { stargazers } from './items.js';
export default class Undefined extends ConnectorRuntime {
  readonly definition = { key: 'lobu.undefined', name: 'Undefined', version: '1.0.0', feeds: { stars: { key: 'stars', name: 'Stars' } } };
  async sync() {
    const [good, bad] = stargazers(['mona', 'lisa']);
    // Lobu's EMAIL_DOMAIN has no equivalent: undefined, as any IDENTITY name svc lacks.
    bad.metadata.identities[0].namespace = (IDENTITY as Record<string, string>).EMAIL_DOMAIN;
    return { events: [good, bad], checkpoint: null };
  }
}
`,
    );
    const installed = io();
    await connectorInstall(join(dir, 'stars', 'undefined.ts'), {}, installed);
    const { code, connectionId, text } = await syncOnce('lobu.undefined', 'stars');
    expect(code, text).toBe(0);
    expect(text).toMatch(/1 item collected/);
    expect(text).toMatch(
      /event rejected: metadata\.identities\[0\]\.namespace: is missing or undefined: an IDENTITY name this SDK does not have is undefined \(Lobu's IDENTITY\.EMAIL_DOMAIN has no equivalent here\).*\{"origin_id":"star-lisa"\}/,
    );
    const events = await server.call('GET', `/api/default/events?connectionId=${connectionId}`);
    expect(events.body.events.map((e: { origin_id: string }) => e.origin_id)).toEqual(['star-mona']);
  });

  it('refuses a package import other than the SDK, naming it and its line, before posting', async () => {
    const file = join(dir, 'stars', 'with-package.ts');
    await writeFile(
      file,
      "import { ConnectorRuntime } from '@svc/connector-sdk';\nimport TurndownService from 'turndown';\nexport default class P extends ConnectorRuntime { t = new TurndownService(); }\n",
    );
    const message = await failure(() => connectorInstall(file, {}, io()));
    expect(message).toMatch(
      new RegExp(
        `${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: imports the package "turndown", which the server does not have`,
      ),
    );
    const lobu = join(dir, 'stars', 'lobu-import.ts');
    await writeFile(
      lobu,
      "import { ConnectorRuntime } from '@lobu/connector-sdk';\nexport default ConnectorRuntime;\n",
    );
    expect(await failure(() => connectorInstall(lobu, {}, io()))).toMatch(
      /imports "@lobu\/connector-sdk": import from "@svc\/connector-sdk" instead/,
    );
  });

  it('posted as one module with a relative import, the server says so without its own paths', async () => {
    const answer = await server.call('POST', '/api/default/connectors', {
      body: {
        source:
          "import { ConnectorRuntime } from '@svc/connector-sdk';\nimport { stargazers } from './items.js';\nexport default class S extends ConnectorRuntime { s = stargazers; }\n",
      },
    });
    expect(answer.status).toBe(422);
    const text = JSON.stringify(answer.body);
    expect(text).toMatch(/\.\/items\.js/);
    expect(text).toMatch(/svc connector install \.\/dir\/connector\.ts, which bundles its relative imports/);
    expect(text).not.toMatch(/svc-connectors-|\/run\/svc\/connector|file:\/\//);
    expect(text).not.toContain(tmpdir());
  });
});
