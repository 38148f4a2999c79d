import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, expect } from 'vitest';
import {
  ADMIN_PASSWORD,
  startTestServer,
  type TestServer,
  type TestServerOverrides,
} from '../../server/test/harness.js';

/**
 * The console in a real browser (Debian's Chromium, driven by playwright-core) against a real
 * gateway serving the built console (`npm run test:e2e` builds it first). Every page a test opens
 * is watched: a request to any host but the server fails the test, and so does an error in the
 * page's console (a CSP refusal shows there).
 */

export const CHROMIUM = process.env.SVC_CHROMIUM_PATH || '/usr/bin/chromium';
const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
/** Where screenshots of each page are kept for people to look at (CI keeps test-results/). */
export const ARTEFACTS = fileURLToPath(new URL('../../../test-results/console/', import.meta.url));

export { ADMIN_PASSWORD };

export interface ConsoleServer extends TestServer {
  /** The server's origin: the only host the console may reach. */
  origin: string;
}

/** A gateway serving the built console, over a fresh database. */
export async function startConsoleServer(overrides: TestServerOverrides = {}): Promise<ConsoleServer> {
  if (!existsSync(join(DIST, 'index.html'))) {
    throw new Error(`the console is not built at ${DIST}: run npm run build (npm run test:e2e does)`);
  }
  const server = await startTestServer({ consoleDir: DIST, ...overrides });
  return Object.assign(server, { origin: new URL(server.url).origin });
}

export interface ConsoleBrowser {
  browser: Browser;
  /** A new, empty browser profile (no cookie) with its pages watched. */
  newContext(): Promise<BrowserContext>;
  /** A page of a new context, watched. */
  newPage(): Promise<Page>;
  /** Requests that went to another host than the server, and errors the pages logged. */
  foreignRequests: string[];
  pageErrors: string[];
}

/** Chromium as these machines run it (the flags keep it off the network it has no business on). */
export async function openBrowser(server: ConsoleServer): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  afterAll(() => browser.close());
  const foreignRequests: string[] = [];
  const pageErrors: string[] = [];
  const watch = (context: BrowserContext) => {
    context.on('request', (request) => {
      const url = request.url();
      if (url.startsWith('data:') || url.startsWith('blob:')) return;
      if (new URL(url).origin !== server.origin) foreignRequests.push(url);
    });
    context.on('page', (page) => {
      page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
      page.on('console', (message) => {
        // A refused request (a 401 before sign-in, a 403 a test provokes) is logged by the browser
        // as an error too: only CSP refusals and script errors count here.
        if (message.type() === 'error' && /Content Security Policy|Uncaught|TypeError/.test(message.text())) {
          pageErrors.push(`${page.url()}: ${message.text()}`);
        }
      });
    });
  };
  const newContext = async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    watch(context);
    return context;
  };
  return {
    browser,
    newContext,
    newPage: async () => (await newContext()).newPage(),
    foreignRequests,
    pageErrors,
  };
}

/** Signs in through the sign-in form, as a person does, and waits for the first page. */
export async function signIn(
  page: Page,
  server: ConsoleServer,
  credential: string,
  path = '/',
): Promise<void> {
  await page.goto(`${server.url}${path}`);
  await page.getByLabel('Admin password or API token').fill(credential);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** An API token of the org, made with the admin password. */
export async function createToken(server: ConsoleServer, scopes: string[], org = 'default'): Promise<string> {
  const created = await server.call('POST', `/api/${org}/tokens`, {
    body: { name: `console-${scopes.join('-')}-${Math.random().toString(36).slice(2, 8)}`, scopes },
  });
  expect(created.status).toBe(201);
  return created.body.secret as string;
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * The page checked with axe-core (WCAG 2.1 A and AA rules) and kept as a screenshot. Serious and
 * critical violations fail the test, each named with the elements it found. axe is evaluated
 * through the DevTools protocol, which the page's CSP does not govern.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  await page.evaluate(await axeSource);
  // A string: it runs in the page, where `document` and `axe` are.
  const violations = (await page.evaluate(
    `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((r) => r.violations)`,
  )) as AxeViolation[];
  await mkdir(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTEFACTS, `${name}.png`), fullPage: true });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  await writeFile(join(ARTEFACTS, `${name}.axe.json`), JSON.stringify(violations, null, 2));
  expect(
    serious.map(
      (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    ),
    `accessibility of ${name}`,
  ).toEqual([]);
}

/** A page in a new browser profile, 360 px wide: a small phone. */
export async function narrowPage(browser: ConsoleBrowser): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.setViewportSize({ width: 360, height: 740 });
  return page;
}

/** Fails when the page is wider than its window (it would scroll sideways). */
export async function expectFits(page: Page, what?: string): Promise<void> {
  const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow, what).toBeLessThanOrEqual(0);
}

/** A temporary folder removed when the file's tests end. */
export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  afterAll(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
