/**
 * `svc memory browser-auth --connection <id>`: a person logs in to a `browser` connector's service
 * in a local Chromium, and the cookies of its `requiredDomains` become the connection's session on
 * the server (DESIGN.md section 10, "Auth flows"). The browser runs with a fresh temporary profile
 * (never the person's own, which holds every other site's cookies) and remote debugging on a free
 * local port; the cookies are read over CDP on this machine, kept to the required domains, uploaded
 * in the body of one POST, and never printed. The profile is removed afterwards.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { constants, rmSync } from 'node:fs';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { checkId, openApi, type RuntimeIo, type SessionFlags } from './api.js';
import type { ConnectionRecord } from './connections.js';
import type { ConnectorRecord } from './connectors.js';

export interface BrowserAuthFlags extends SessionFlags {
  connection: string;
  /** `--headless`: no window (a page that sets its cookies on load, or tests). */
  headless?: boolean;
  /** `--no-wait` makes this false: read the cookies once the pages are open, without asking. */
  wait?: boolean;
  /** `--open <url>`: what to open instead of https://<domain>/ for each required domain. */
  open?: string[];
  /** `--browser-arg <arg>`: more Chromium flags (a proxy, --host-resolver-rules). */
  browserArg?: string[];
  json?: boolean;
}

export interface BrowserAuthIo extends RuntimeIo {
  /** Resolves when the person pressed Enter; rejects when stdin ends first. */
  waitForEnter(): Promise<void>;
}

/** The io of the real command: Enter read from stdin. */
export function browserAuthIo(base: RuntimeIo): BrowserAuthIo {
  return {
    ...base,
    waitForEnter: () =>
      new Promise<void>((resolve, reject) => {
        const lines = createInterface({ input: process.stdin });
        let answered = false;
        lines.once('line', () => {
          answered = true;
          lines.close();
          resolve();
        });
        lines.once('close', () => {
          if (!answered)
            reject(
              new Error(
                'stdin closed before Enter was pressed: nothing was captured (--no-wait skips the wait)',
              ),
            );
        });
      }),
  };
}

export const CHROMIUM_PATH_ENV = 'SVC_CHROMIUM_PATH';

/** Where a Chromium or Chrome usually is, when SVC_CHROMIUM_PATH names none; Debian's first. */
const USUAL_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
];

const executable = async (path: string) =>
  access(path, constants.X_OK).then(
    () => true,
    () => false,
  );

/** SVC_CHROMIUM_PATH, else the first usual path that is there; an error that says how to get one. */
export async function findChromium(env: Record<string, string | undefined>): Promise<string> {
  const named = env[CHROMIUM_PATH_ENV];
  if (named) {
    if (await executable(named)) return named;
    throw new Error(
      `${CHROMIUM_PATH_ENV} is ${named}, which is not an executable: point it at a Chromium or Chrome binary ` +
        "(or unset it to use Debian's /usr/bin/chromium: apt-get install chromium)",
    );
  }
  for (const path of USUAL_PATHS) if (await executable(path)) return path;
  throw new Error(
    `no Chromium found (looked at ${USUAL_PATHS.join(', ')}): install Debian's package (apt-get install chromium) ` +
      `or set ${CHROMIUM_PATH_ENV} to a Chromium or Chrome binary`,
  );
}

/** What the person sees: one line per required domain, the number of its cookies (never their names or values). */
interface Captured {
  connection: ConnectionRecord;
  session: { capturedAt: string; cookies: number; domains: { domain: string; cookies: number }[] };
}

export async function browserAuth(flags: BrowserAuthFlags, io: BrowserAuthIo): Promise<void> {
  const id = checkId('connection', flags.connection, 'svc connection list');
  // Checked before any request: a machine without a browser sends nothing.
  const chromium = await findChromium(io.env);
  const api = await openApi(io, flags);
  const { connection } = await api.call<{ connection: ConnectionRecord }>(
    'GET',
    `/connections/${id}`,
    undefined,
    { not_found: `connection ${id} is not in org ${api.session.org}: svc connection list` },
  );
  const { connector } = await api.call<{ connector: ConnectorRecord }>(
    'GET',
    `/connectors/${encodeURIComponent(connection.connectorKey)}`,
  );
  const method = (
    connector.definition.authSchema?.methods as { type: string; requiredDomains?: string[] }[] | undefined
  )?.find((m) => m.type === 'browser');
  if (!method) {
    throw new Error(
      `connector ${connection.connectorKey} does not connect with a browser session (its authSchema has no browser method): nothing to capture`,
    );
  }
  // The server's own rules for domains and cookies (connections/browser-cookies.ts), loaded only here.
  const { keepRequiredCookies, normaliseDomain, readCdpCookies } = await import('@svc/server');
  const domains = (method.requiredDomains ?? []).map(normaliseDomain).filter((d) => d !== '');
  if (domains.length === 0) {
    throw new Error(
      `connector ${connection.connectorKey} names no requiredDomains: svc keeps only the cookies of named domains`,
    );
  }
  const urls = flags.open?.length ? flags.open : domains.map((domain) => `https://${domain}/`);

  const profile = await mkdtemp(join(tmpdir(), 'svc-browser-auth-'));
  let browser: ChildProcess | undefined;
  // Ctrl-C while the person logs in: the browser and its profile go too, as on any other end.
  const interrupted = () => {
    browser?.kill('SIGKILL');
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    process.exit(130);
  };
  process.once('SIGINT', interrupted);
  try {
    browser = spawn(chromium, chromiumArgs(profile, flags, urls[0] as string), {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const port = await devToolsPort(profile, browser);
    const local = `http://127.0.0.1:${port}`;
    // One page per domain (a headless Chromium starts with one).
    for (const url of urls.slice(1)) {
      await fetch(`${local}/json/new?${encodeURI(url)}`, { method: 'PUT' }).catch(() => {});
    }
    if (flags.wait !== false) {
      io.err(
        `Chromium is open with a fresh profile at ${urls.join(', ')}. Log in there, then press Enter here to capture ` +
          `the cookies of ${domains.join(', ')} for connection ${id}.`,
      );
      await io.waitForEnter();
      if (browser.exitCode !== null || browser.signalCode !== null)
        throw new Error(
          'Chromium was closed before Enter was pressed: keep it open until then. Nothing was sent',
        );
    }
    const cookies = await readCdpCookies(local, { fetch });
    const { kept } = keepRequiredCookies(cookies, domains);
    if (kept.length === 0) {
      throw new Error(
        `no cookie of ${domains.join(', ')} was in the browser: log in to ${domains.length === 1 ? 'it' : 'them'} before pressing Enter, then run this again. Nothing was sent`,
      );
    }
    const answer = await api.call<Captured>('POST', `/connections/${id}/browser-session`, { cookies: kept });
    if (flags.json) {
      io.out(JSON.stringify({ connection: answer.connection, session: answer.session }));
    } else {
      for (const { domain, cookies: count } of answer.session.domains)
        io.out(`${domain}\t${count} cookie${count === 1 ? '' : 's'}`);
      io.err(
        `Captured ${answer.session.cookies} cookie${answer.session.cookies === 1 ? '' : 's'} for connection ${id} ` +
          `(now ${answer.connection.status}); its syncs get them as ctx.sessionState.`,
      );
    }
  } finally {
    process.removeListener('SIGINT', interrupted);
    await stopBrowser(browser);
    await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

function chromiumArgs(profile: string, flags: BrowserAuthFlags, first: string): string[] {
  return [
    `--user-data-dir=${profile}`,
    '--remote-debugging-port=0',
    '--remote-debugging-address=127.0.0.1',
    '--no-first-run',
    '--no-default-browser-check',
    '--disable-sync',
    '--disable-background-networking',
    '--disable-component-update',
    // Chromium refuses to start as root with its sandbox (containers, CI).
    ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
    ...(flags.headless ? ['--headless', '--disable-gpu'] : []),
    ...(flags.browserArg ?? []),
    first,
  ];
}

/** The port Chromium chose: the first line of DevToolsActivePort in its profile. */
async function devToolsPort(profile: string, browser: ChildProcess): Promise<number> {
  let said = '';
  browser.stderr?.on('data', (chunk: Buffer) => {
    said = (said + chunk.toString()).slice(-4000);
  });
  let exited: number | null | undefined;
  browser.once('exit', (code) => {
    exited = code;
  });
  const errored = new Promise<never>((_, reject) => browser.once('error', reject));
  errored.catch(() => {});
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const text = await readFile(join(profile, 'DevToolsActivePort'), 'utf8').catch(() => '');
    const port = Number(text.split('\n')[0]);
    if (Number.isInteger(port) && port > 0) return port;
    if (exited !== undefined)
      throw new Error(`Chromium exited (${exited}) before it opened remote debugging: ${lastLines(said)}`);
    await Promise.race([new Promise((resolve) => setTimeout(resolve, 100)), errored]);
  }
  throw new Error(`Chromium did not open remote debugging within 30 s: ${lastLines(said)}`);
}

const lastLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '' && !/dbus|unexpected operator/.test(line))
    .slice(-3)
    .join(' / ') || 'it said nothing';

async function stopBrowser(browser: ChildProcess | undefined): Promise<void> {
  if (!browser || browser.exitCode !== null || browser.signalCode !== null) return;
  const gone = new Promise((resolve) => browser.once('exit', resolve));
  browser.kill('SIGTERM');
  const timer = setTimeout(() => browser.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(timer);
}
