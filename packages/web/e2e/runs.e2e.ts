import { afterAll, describe, expect, it } from 'vitest';
import { startTestRunWorkers } from '../../server/test/runtime.js';
import { until } from '../../server/test/until.js';
import { tickerConnector } from './connector-sources.js';
import {
  ADMIN_PASSWORD,
  checkPage,
  expectFits,
  narrowPage,
  openBrowser,
  signIn,
  startConsoleServer,
} from './console.js';

/**
 * Feeds and runs in the console, with run workers running the connector sandboxed: a sync asked
 * for from the feed's card, its log followed live to the end, runs listed with filters in the
 * URL, an action approved from its run's page, a run cancelled.
 */
describe('feeds and runs in the console', async () => {
  const server = await startConsoleServer({ connectorSourceInstalls: true });
  const browser = await openBrowser(server);
  const installed = await server.call('POST', '/api/default/connectors', {
    body: { source: tickerConnector },
  });
  expect(installed.status, JSON.stringify(installed.body)).toBe(201);
  const made = await server.call('POST', '/api/default/connections', {
    body: { connectorKey: 'ticker', displayName: 'Ticker' },
  });
  expect(made.status).toBe(201);
  const connectionId = made.body.connection.id as number;
  // Its feed syncs when the test asks, not when the scheduler finds it due.
  await server.pool.query(
    `UPDATE feeds SET next_sync_at = now() + interval '1 day' WHERE connection_id = $1`,
    [connectionId],
  );
  const workers = await startTestRunWorkers(server, {
    leaseMs: 10_000,
    limits: { timeoutMs: 60_000, memoryMb: 128 },
  });
  afterAll(() => workers.close(1000));

  const runStatus = async (id: string) =>
    (await server.call('GET', `/api/default/runs/${id}`)).body.run.status as string;

  it("follows a sync's log live, line by line, to its final status", async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, `/orgs/default/connections/${connectionId}`);
    await page.getByRole('heading', { name: 'Ticker', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Sync now: ticks' }).click();
    await page.getByRole('link', { name: /^run #\d+$/ }).click();
    await page.getByRole('heading', { name: /^Run #\d+$/ }).waitFor();
    const runId = /\/runs\/(\d+)$/.exec(page.url())?.[1] as string;
    const log = page.getByRole('log');

    // Lines show while the run still runs: the log is followed, not read once at the end.
    await log.getByText('tick 1', { exact: true }).waitFor();
    expect(await runStatus(runId)).toBe('running');
    expect(await log.textContent()).not.toContain('tick 30');
    await page.getByTestId('run-status').getByText('running').waitFor();

    // Then the run ends, every line is there in order, and the final status shows.
    await page.getByText(/^The run has ended: \d+ lines\.$/).waitFor({ timeout: 20_000 });
    await page.getByTestId('run-status').getByText('completed').waitFor();
    const lines = await log.locator('.msg').allTextContents();
    const ticks = lines.filter((line) => /^tick \d+$/.test(line));
    expect(ticks).toEqual(Array.from({ length: 30 }, (_, i) => `tick ${i + 1}`));
    // Following, the newest line is in view.
    const gap = await log.evaluate(
      (element) => element.scrollHeight - element.scrollTop - element.clientHeight,
    );
    expect(gap).toBeLessThan(8);
    await expect(page.getByLabel('Follow the newest line').isChecked()).resolves.toBe(true);
    await checkPage(page, 'run');

    // The runs of the feed, from the run's page: the filter is in the URL.
    await page.getByRole('link', { name: /^Every run of feed/ }).click();
    await page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
    expect(page.url()).toMatch(/\/orgs\/default\/runs\?feedId=\d+$/);
    await page.getByRole('link', { name: `#${runId}`, exact: true }).waitFor();
    await checkPage(page, 'runs');
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No run matches these filters.').waitFor();
    expect(page.url()).toMatch(/status=failed/);
    await page.context().close();
  });

  it('approves an action run from its page, and cancels a sync', async () => {
    const page = await browser.newPage();
    await signIn(page, server, ADMIN_PASSWORD, `/orgs/default/connections/${connectionId}`);
    await page.getByRole('heading', { name: 'Actions' }).waitFor();
    await page.getByLabel('Message (required)').fill('hello from the console');
    await page.getByRole('button', { name: 'Run Announce' }).click();
    await page.getByText('Waiting for approval:').waitFor();
    await page.getByRole('link', { name: /^run #\d+$/ }).click();
    await page.getByRole('heading', { name: /^Run #\d+$/ }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByTestId('run-status').getByText('completed').waitFor({ timeout: 20_000 });
    await page.getByText('"said": "hello from the console"').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    // Rejected, it never runs.
    await page.goBack();
    await page.getByRole('heading', { name: 'Actions' }).waitFor();
    await page.getByLabel('Message (required)').fill('never said');
    await page.getByRole('button', { name: 'Run Announce' }).click();
    await page.getByText('Waiting for approval:').waitFor();
    await page.getByRole('link', { name: /^run #\d+$/ }).click();
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByTestId('run-status').getByText('cancelled').waitFor();
    await page.getByText('rejected').first().waitFor();
    expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(0);

    await page.goto(`${server.url}/orgs/default/connections/${connectionId}`);
    await page.getByRole('button', { name: 'Sync now: ticks' }).click();
    await page.getByRole('link', { name: /^run #\d+$/ }).click();
    const runId = /\/runs\/(\d+)$/.exec(page.url())?.[1] as string;
    await page.getByRole('log').getByText('tick 1', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await page.getByTestId('run-status').getByText('cancelled').waitFor();
    await until('the run cancelled', async () => (await runStatus(runId)) === 'cancelled');
    await page.getByText(/^The run has ended/).waitFor({ timeout: 20_000 });
    expect(await page.getByRole('button', { name: 'Cancel run' }).count()).toBe(0);
    await page.context().close();
  });

  it('fits a 360 px wide screen', async () => {
    const page = await narrowPage(browser);
    await signIn(page, server, ADMIN_PASSWORD, '/orgs/default/runs/1');
    await page.getByText(/^The run has ended/).waitFor();
    await expectFits(page);
    await checkPage(page, 'run-360');
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.getByRole('link', { name: '#1', exact: true }).waitFor();
    await expectFits(page);
    await page.context().close();
  });

  it('reached no host but the server, and logged no script or CSP error', () => {
    expect(browser.foreignRequests).toEqual([]);
    expect(browser.pageErrors).toEqual([]);
  });
});
