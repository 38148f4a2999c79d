import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireBrowser,
  type BrowserHandle,
  browserNetworkSync,
  DEFAULT_CHROMIUM_PATH,
  launchBrowser,
  launchStealthBrowser,
  probeCdp,
} from '../src/browser/index.js';

const PAGES = 5;
const PER_PAGE = 10;
const hits = new Map<number, number>();

const HOME = `<!doctype html><title>home</title>
<p id="out">before</p><button id="go" onclick="document.getElementById('out').textContent = 'after'">go</button>
<script>setTimeout(() => { const d = document.createElement('div'); d.id = 'late'; document.body.append(d); }, 300);</script>`;

// Loads the next page when the bottom comes near, as feeds do. Page 1 is fetched twice (a "refresh"
// on load) to check that identical responses are collected once; the banner is matching non-JSON.
const FEED = `<!doctype html><title>feed</title><style>.item { height: 100px; border: 1px solid #ccc; }</style>
<div id="list"></div><p id="end" hidden>end</p>
<script>
  let next = 1, loading = false;
  async function load() {
    if (loading || next === null) return;
    loading = true;
    const data = await (await fetch('/api/items?page=' + next)).json();
    for (const item of data.items) {
      const div = document.createElement('div');
      div.className = 'item';
      div.textContent = item.title;
      document.getElementById('list').append(div);
    }
    next = data.next;
    if (next === null) document.getElementById('end').hidden = false;
    loading = false;
  }
  addEventListener('scroll', () => {
    if (innerHeight + scrollY >= document.documentElement.scrollHeight - 300) load();
  });
  fetch('/api/items/banner');
  load().then(() => fetch('/api/items?page=1'));
</script>`;

function route(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const send = (type: string, body: string) => {
    res.setHeader('content-type', type);
    res.end(body);
  };
  if (url.pathname === '/') {
    res.setHeader('set-cookie', [
      'sid=s3cret; Path=/; HttpOnly; SameSite=Lax',
      'theme=dark; Path=/; Max-Age=3600; SameSite=Strict',
    ]);
    return send('text/html', HOME);
  }
  if (url.pathname === '/feed') return send('text/html', FEED);
  if (url.pathname === '/api/items/banner') return send('text/html', '<b>welcome</b>');
  if (url.pathname === '/api/items') {
    const page = Number(url.searchParams.get('page'));
    hits.set(page, (hits.get(page) ?? 0) + 1);
    const items = Array.from({ length: PER_PAGE }, (_, i) => ({ id: (page - 1) * PER_PAGE + i + 1 }));
    const body = { page, items: items.map((it) => ({ ...it, title: `item ${it.id}` })) };
    // A little latency, so that bodies are still in flight while the sync scrolls.
    setTimeout(
      () => send('application/json', JSON.stringify({ ...body, next: page < PAGES ? page + 1 : null })),
      30,
    );
    return;
  }
  if (url.pathname === '/headers') return send('application/json', JSON.stringify(req.headers));
  res.statusCode = 404;
  res.end();
}

let server: Server;
let origin: string;

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

const freePort = async (): Promise<number> => {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, '127.0.0.1', done));
  const { port } = probe.address() as AddressInfo;
  await new Promise((done) => probe.close(done));
  return port;
};

const until = async (check: () => Promise<boolean>, what: string, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('launchBrowser and CdpPage', () => {
  let handle: BrowserHandle;
  beforeAll(async () => {
    handle = await launchBrowser();
  });
  afterAll(() => handle?.close());

  it('drives a local page', async () => {
    expect(handle.attached).toBe(false);
    const page = await handle.newPage();
    const response = await page.goto(`${origin}/`);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('#late', { state: 'attached', timeout: 5000 });
    expect(await page.evaluate<string>("document.getElementById('out').textContent")).toBe('before');
    await page.click('#go');
    expect(await page.evaluate<string>("document.getElementById('out').textContent")).toBe('after');
    expect(await page.evaluate<number>('6 * 7')).toBe(42);
    expect(await page.evaluate((n: number) => n * 2, 21)).toBe(42);
    const title = () => (globalThis as unknown as { document: { title: string } }).document.title;
    expect(await page.evaluate(title)).toBe('home');
    await page.close();
  });

  it('reads back cookies the server set, in the spec shape, and sets them', async () => {
    const page = await handle.newPage();
    await page.goto(`${origin}/`);
    const cookies = await page.cookies(origin);
    const byName = Object.fromEntries(cookies.map((c) => [c.name, c]));
    expect(byName.sid).toEqual({
      name: 'sid',
      value: 's3cret',
      domain: '127.0.0.1',
      path: '/',
      expires: -1,
      httpOnly: true,
      secure: false,
      sameSite: 'Lax',
    });
    expect(byName.theme).toMatchObject({ value: 'dark', httpOnly: false, sameSite: 'Strict' });
    expect(byName.theme!.expires).toBeGreaterThan(Date.now() / 1000 + 3000);

    await page.setCookies([{ name: 'added', value: '1' }]);
    const headers = await (await page.goto(`${origin}/headers`))!.json();
    expect(headers.cookie).toContain('added=1');
    expect(headers.cookie).toContain('sid=s3cret');
    await page.close();
  });

  it('collects every page of an infinite-scroll feed once', async () => {
    hits.clear();
    const page = await handle.newPage();
    const result = await browserNetworkSync(page, {
      url: `${origin}/feed`,
      match: /\/api\/items/,
      scrollDelayMs: 200,
      idleScrolls: 3,
    });
    expect(result.stoppedBy).toBe('idle');
    expect(await page.evaluate<boolean>("!document.getElementById('end').hidden")).toBe(true);
    // The page asked for page 1 twice; the sync kept one.
    expect(hits.get(1)).toBe(2);
    expect(result.responses.map((r) => (r.body as { page: number }).page)).toEqual([1, 2, 3, 4, 5]);
    expect(
      result.responses.every((r) => r.status === 200 && r.url.startsWith(`${origin}/api/items?page=`)),
    ).toBe(true);
    const ids = result.responses.flatMap((r) =>
      (r.body as { items: { id: number }[] }).items.map((i) => i.id),
    );
    expect(ids).toEqual(Array.from({ length: PAGES * PER_PAGE }, (_, i) => i + 1));
    await page.close();
  });

  it('stops at maxItems and at maxScrolls', async () => {
    const page = await handle.newPage();
    const capped = await browserNetworkSync(page, {
      url: `${origin}/feed`,
      match: (url) => url.includes('/api/items?'),
      scrollDelayMs: 200,
      maxItems: 2,
    });
    expect(capped.stoppedBy).toBe('maxItems');
    expect(capped.responses).toHaveLength(2);

    const none = await browserNetworkSync(page, {
      url: `${origin}/feed`,
      match: /api/,
      maxScrolls: 0,
      scrollDelayMs: 200,
    });
    expect(none.stoppedBy).toBe('maxScrolls');
    expect(none.scrolls).toBe(0);
    expect(none.responses.map((r) => (r.body as { page: number }).page)).toEqual([1]);
    await page.close();
  });

  it('returns what it has when aborted', async () => {
    const page = await handle.newPage();
    const controller = new AbortController();
    const result = await browserNetworkSync(page, {
      url: `${origin}/feed`,
      match: (url) => {
        if (url.endsWith('page=2')) controller.abort();
        return url.includes('/api/items?');
      },
      scrollDelayMs: 200,
      signal: controller.signal,
    });
    expect(result.stoppedBy).toBe('aborted');
    expect(result.responses.map((r) => (r.body as { page: number }).page)).toEqual([1, 2]);
    await page.close();
  });
});

describe('launchBrowser with a profile', () => {
  it('keeps cookies across launches in userDataDir', async () => {
    const userDataDir = await mkdtemp(join(tmpdir(), 'svc-e2e-profile-'));
    try {
      const first = await launchBrowser({ userDataDir });
      const page = await first.newPage();
      await page.goto(`${origin}/`);
      await first.close();
      const second = await launchBrowser({ userDataDir });
      const again = await second.newPage();
      expect((await again.cookies(origin)).map((c) => c.name)).toContain('theme');
      await second.close();
    } finally {
      await rm(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });
});

describe('acquireBrowser', () => {
  let chromium: ChildProcess;
  let cdpUrl: string;
  let profile: string;

  beforeAll(async () => {
    const port = await freePort();
    cdpUrl = `http://127.0.0.1:${port}`;
    profile = await mkdtemp(join(tmpdir(), 'svc-e2e-cdp-'));
    chromium = spawn(
      DEFAULT_CHROMIUM_PATH,
      [
        '--headless=new',
        `--remote-debugging-port=${port}`,
        `--user-data-dir=${profile}`,
        '--no-sandbox',
        '--no-first-run',
        `${origin}/`,
      ],
      { stdio: 'ignore' },
    );
    await until(() => probeCdp(cdpUrl), 'the spawned Chromium to listen');
  });

  afterAll(async () => {
    if (chromium && chromium.exitCode === null) {
      const exited = new Promise((done) => chromium.once('exit', done));
      chromium.kill();
      await exited;
    }
    // Chromium's helper processes can still be writing to the profile for a moment after it exits.
    await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  });

  const tabs = async () =>
    ((await (await fetch(`${cdpUrl}/json/list`)).json()) as { type: string; url: string }[])
      .filter((t) => t.type === 'page')
      .map((t) => t.url);

  it('attaches to a running browser, sees its session, and leaves it running', async () => {
    await until(async () => (await tabs()).includes(`${origin}/`), 'the user tab to load');
    const handle = await acquireBrowser({ cdpUrl });
    expect(handle.attached).toBe(true);

    // The user's own tab set this cookie before we came.
    const page = await handle.newPage();
    expect((await page.cookies(origin)).map((c) => c.name).sort()).toEqual(['sid', 'theme']);
    await page.goto(`${origin}/headers`);
    expect(await tabs()).toContain(`${origin}/headers`);

    await handle.close();
    await handle.close();
    expect(handle.browser.isConnected()).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(chromium.exitCode).toBeNull();
    expect(await probeCdp(cdpUrl)).toBe(true);
    const left = await tabs();
    expect(left).toContain(`${origin}/`);
    expect(left).not.toContain(`${origin}/headers`);
  });

  it('launches when nothing listens', async () => {
    const handle = await acquireBrowser({ cdpUrl: `http://127.0.0.1:${await freePort()}` });
    try {
      expect(handle.attached).toBe(false);
      const page = await handle.newPage();
      await page.goto(`${origin}/`);
      expect(await page.evaluate<string>('document.title')).toBe('home');
    } finally {
      await handle.close();
    }
    expect(handle.browser.isConnected()).toBe(false);
  });
});

describe('launchStealthBrowser', () => {
  const looksHeaded = async (handle: BrowserHandle) => {
    const page = await handle.newPage();
    const headers = (await (await page.goto(`${origin}/headers`))!.json()) as Record<string, string>;
    const seen = {
      webdriver: await page.evaluate<boolean>('navigator.webdriver'),
      userAgent: await page.evaluate<string>('navigator.userAgent'),
      languages: await page.evaluate<string[]>('navigator.languages'),
      headers,
    };
    await page.close();
    return seen;
  };

  it('hides navigator.webdriver and HeadlessChrome, where plain launchBrowser shows the latter', async () => {
    const plain = await launchBrowser();
    try {
      expect((await looksHeaded(plain)).userAgent).toContain('HeadlessChrome');
    } finally {
      await plain.close();
    }

    const stealth = await launchStealthBrowser();
    try {
      const seen = await looksHeaded(stealth);
      expect(seen.webdriver).toBe(false);
      expect(seen.userAgent).not.toContain('HeadlessChrome');
      expect(seen.userAgent).toMatch(/ Chrome\/\d+\.0\.0\.0 /);
      expect(seen.headers['user-agent']).toBe(seen.userAgent);
      expect(seen.languages).toEqual(['en-US', 'en']);
      expect(seen.headers['accept-language']).toBe('en-US,en;q=0.9');
    } finally {
      await stealth.close();
    }
  });

  it('does the same on a persistent profile', async () => {
    const userDataDir = await mkdtemp(join(tmpdir(), 'svc-e2e-stealth-'));
    const stealth = await launchStealthBrowser({ userDataDir, languages: ['de-DE', 'de'] });
    try {
      const seen = await looksHeaded(stealth);
      expect(seen.webdriver).toBe(false);
      expect(seen.userAgent).not.toContain('HeadlessChrome');
      expect(seen.languages.slice(0, 2)).toEqual(['de-DE', 'de']);
    } finally {
      await stealth.close();
      await rm(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });
});
