import { attachedHandle, type BrowserHandle } from './handle.js';
import { type LaunchOptions, launchBrowser } from './launch.js';
import { loadChromium } from './playwright.js';
import { launchStealthBrowser, type StealthOptions } from './stealth.js';

/** The spec's default `defaultCdpUrl` of the browser auth method. */
export const DEFAULT_CDP_URL = 'http://127.0.0.1:9222';

export interface AcquireOptions {
  /** `http(s)://host:port` or a `ws(s)://` DevTools URL. Default `http://127.0.0.1:9222`. */
  cdpUrl?: string;
  /** How to launch when nothing answers at `cdpUrl`. */
  launch?: LaunchOptions | StealthOptions;
  /** Launch with `launchStealthBrowser` rather than `launchBrowser`. Default false. */
  stealth?: boolean;
  /** How long to wait for `/json/version` before deciding nothing is there. Default 1000 ms. */
  probeTimeoutMs?: number;
}

/**
 * The user's running browser (signed in, with its cookies) when one listens at `cdpUrl`, else a
 * fresh one. When something answers the probe but the connection then fails, that is an error
 * rather than a silent launch: a fresh browser would lack the session the caller came for.
 */
export async function acquireBrowser(opts: AcquireOptions = {}): Promise<BrowserHandle> {
  const cdpUrl = opts.cdpUrl ?? DEFAULT_CDP_URL;
  if (await probeCdp(cdpUrl, opts.probeTimeoutMs)) {
    const browser = await (await loadChromium()).connectOverCDP(cdpUrl, { timeout: 30_000 });
    // The default context is the user's profile; a browser started with no window may lack one.
    const context = browser.contexts()[0] ?? (await browser.newContext());
    return attachedHandle(browser, context);
  }
  return opts.stealth ? launchStealthBrowser(opts.launch) : launchBrowser(opts.launch);
}

/** Where a DevTools endpoint answers `/json/version`, for either form of `cdpUrl`. */
export function cdpVersionUrl(cdpUrl: string): string {
  const url = URL.canParse(cdpUrl) ? new URL(cdpUrl) : undefined;
  const protocol = url && HTTP_PROTOCOL[url.protocol];
  if (!url || !protocol) throw new Error(`Not a DevTools URL (http, https, ws or wss): ${cdpUrl}`);
  return `${protocol}//${url.host}/json/version`;
}

const HTTP_PROTOCOL: Record<string, string> = {
  'http:': 'http:',
  'https:': 'https:',
  'ws:': 'http:',
  'wss:': 'https:',
};

/** True when a DevTools endpoint answers within the timeout; throws only for a malformed URL. */
export async function probeCdp(cdpUrl: string, timeoutMs = 1000): Promise<boolean> {
  const versionUrl = cdpVersionUrl(cdpUrl);
  try {
    const response = await fetch(versionUrl, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) return false;
    const body = (await response.json()) as { webSocketDebuggerUrl?: unknown };
    return typeof body.webSocketDebuggerUrl === 'string';
  } catch {
    return false;
  }
}
