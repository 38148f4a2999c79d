import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeMcpHttp } from '../../server/test/fakes/mcp-http.js';
import {
  ADMIN_PASSWORD,
  checkPage,
  createToken,
  expectFits,
  narrowPage,
  openBrowser,
  signIn,
  startConsoleServer,
} from './console.js';

/**
 * Connectors without code in the console, in Chromium against a real gateway: one installed from
 * an OpenAPI description's URL, its generated actions and what was left out, the description
 * changed and read again with Refresh, and pasted definitions, one of them refused at its paths.
 */

const operations = {
  list: `  /pets:
    get:
      operationId: listPets
      summary: List the pets
      responses: { '200': { description: the pets } }`,
  create: `    post:
      operationId: createPet
      summary: Add a pet
      requestBody:
        content: { application/json: { schema: { type: object, properties: { name: { type: string } } } } }
      responses: { '201': { description: created } }`,
  photo: `  /pets/{petId}/photo:
    post:
      operationId: uploadPhoto
      parameters:
        - { name: petId, in: path, required: true, schema: { type: string } }
        - { name: session, in: cookie, required: true, schema: { type: string } }
      responses: { '200': { description: uploaded } }`,
  remove: `  /pets/{petId}:
    delete:
      operationId: deletePet
      summary: Remove a pet
      parameters: [{ name: petId, in: path, required: true, schema: { type: string } }]
      responses: { '204': { description: gone } }`,
};
const spec = (...paths: string[]) =>
  `openapi: 3.0.3\ninfo: { title: Petstore, version: 1.0.0 }\nservers: [{ url: https://pets.example/v1 }]\npaths:\n${paths.join('\n')}\n`;

describe('connectors without code in the console', async () => {
  let description = spec(operations.list, operations.create, operations.photo);
  const upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/yaml' });
    res.end(description);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));
  const specUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/openapi.yaml`;
  const server = await startConsoleServer();
  const browser = await openBrowser(server);

  it('installs one from an OpenAPI URL, shows its actions and what was left out, and refreshes it', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/connectors');
    await page.getByRole('heading', { name: 'Install from a definition' }).waitFor();
    await page.getByLabel('An OpenAPI description (URL)').check();
    await page.getByLabel('Description URL').fill(specUrl);
    await page.getByLabel('Key').fill('petstore');
    await page.getByLabel('Name', { exact: true }).fill('Petstore');
    await page.getByRole('button', { name: 'Install definition' }).click();

    await page.getByRole('heading', { name: 'Petstore', level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/orgs\/default\/connectors\/petstore$/);
    await page.getByText('no code: generated from an OpenAPI description').waitFor();
    const actions = page.getByRole('table', { name: 'Actions of petstore' });
    await expect(actions.ariaSnapshot()).resolves.toMatchFileSnapshot('aria/codeless-actions.aria.yml');
    const skipped = page.getByRole('table', { name: 'Operations that did not become actions' });
    await expect(
      skipped.getByRole('row', { name: /uploadPhoto cookie parameter "session"/ }).count(),
    ).resolves.toBe(1);
    await checkPage(page, 'connector-codeless');

    // The API changed: Refresh reads it again and says what came and went.
    description = spec(operations.list, operations.remove);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('status').getByText('Refreshed: added deletePet; removed createPet.').waitFor();
    await actions
      .getByRole('row', { name: /^deletePet .*needs approval destructive, idempotent, open world/ })
      .waitFor();
    expect(await actions.getByText('createPet').count()).toBe(0);
    expect(await page.getByRole('table', { name: 'Operations that did not become actions' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('status').getByText('Refreshed: no change.').waitFor();

    // Listed with the others, as a connector without code.
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('link', { name: 'Petstore' }).waitFor();
    await page.getByText(/no code: OpenAPI/).waitFor();
    await page.context().close();
  });

  it('installs a pasted YAML definition with its approvals, and shows where a pasted one is wrong', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/connectors');
    await page.getByLabel('A definition (JSON or YAML)').check();
    const text = page.getByLabel('Definition', { exact: true });
    const install = page.getByRole('button', { name: 'Install definition' });
    const alert = page.getByRole('alert');

    await text.fill('key: broken\nname: [Broken\nversion: 1.0.0\n');
    await install.click();
    await alert.getByText(/^The definition could not be read: YAML, line 3, column 1: /).waitFor();

    await text.fill(
      `key: feedy\nname: Feedy\nversion: 1.0.0\nopenapiConfig:\n  specUrl: ${specUrl}\nfeeds:\n  items: { key: items, name: Items }\n`,
    );
    await install.click();
    await alert
      .getByRole('listitem')
      .getByText(/^line 6: \/definition\/feeds: feeds are synced by code/)
      .waitFor();
    await checkPage(page, 'connectors-definition-refused');

    await text.fill(
      `key: pets-yaml\nname: Pets from YAML\nversion: 1.0.0\nopenapiConfig:\n  specUrl: ${specUrl}\nrequiresApproval:\n  listPets: true\n`,
    );
    await install.click();
    await page.getByRole('heading', { name: 'Pets from YAML', level: 1 }).waitFor();
    await page
      .getByRole('table', { name: 'Actions of pets-yaml' })
      .getByRole('row', { name: /^listPets .*needs approval/ })
      .waitFor();
    await page.context().close();
  });

  it("installs one from an MCP server's URL: its tools, the destructive one needing approval", async () => {
    const mcp = await startFakeMcpHttp();
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/connectors');
    await page.getByLabel('An MCP server (URL)').check();
    await page.getByLabel('MCP server URL').fill(mcp.url);
    await page.getByLabel('Key').fill('tools');
    await page.getByLabel('Name', { exact: true }).fill('Tools');
    await page.getByRole('button', { name: 'Install definition' }).click();
    await page.getByRole('heading', { name: 'Tools', level: 1 }).waitFor();
    await page.getByText("no code: generated from an MCP server's tools").waitFor();
    const actions = page.getByRole('table', { name: 'Actions of tools' });
    await actions.getByRole('row', { name: /^wipe needs approval destructive/ }).waitFor();
    await actions.getByRole('row', { name: /^lookup none / }).waitFor();
    await page.context().close();
  });

  it('shows a read token the actions, but no install form and no Refresh', async () => {
    const page = await browser.newPage();
    await signIn(page, server, await createToken(server, ['read']), '/orgs/default/connectors/petstore');
    await page.getByRole('table', { name: 'Actions of petstore' }).waitFor();
    expect(await page.getByRole('button', { name: 'Refresh' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('heading', { name: 'Bundled with this server' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Install from a definition' }).count()).toBe(0);
    await page.context().close();
  });

  it('fits a 360 px wide screen', async () => {
    const page = await narrowPage(browser);
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/connectors/petstore');
    await page.getByRole('table', { name: 'Actions of petstore' }).waitFor();
    await expectFits(page);
    await page.getByRole('link', { name: 'Connectors' }).click();
    await page.getByRole('heading', { name: 'Install from a definition' }).waitFor();
    await expectFits(page);
    await page.context().close();
  });

  it('reached no host but the server, and logged no script or CSP error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
