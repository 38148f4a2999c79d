import type { Browser, BrowserContext } from 'playwright-core';
import { CdpPage } from './page.js';

/** What `launchBrowser`, `launchStealthBrowser` and `acquireBrowser` all return. */
export interface BrowserHandle {
  readonly browser: Browser;
  /** Where `newPage` opens tabs; in an attached browser, the user's own profile and cookies. */
  readonly context: BrowserContext;
  /** True when attached to a browser that was already running; `close()` then only disconnects. */
  readonly attached: boolean;
  newPage(): Promise<CdpPage>;
  /** Safe to call more than once. */
  close(): Promise<void>;
}

export function launchedHandle(browser: Browser, context: BrowserContext): BrowserHandle {
  return {
    browser,
    context,
    attached: false,
    newPage: async () => new CdpPage(await context.newPage()),
    close: once(async () => {
      // A persistent context is the browser: closing it is what shuts the process down.
      await context.close().catch(() => {});
      await browser.close().catch(() => {});
    }),
  };
}

/**
 * Someone else's browser: we close only the tabs we opened, then disconnect. Playwright's
 * `Browser.close()` on a CDP connection disconnects without ending the process.
 */
export function attachedHandle(browser: Browser, context: BrowserContext): BrowserHandle {
  const opened = new Set<CdpPage>();
  return {
    browser,
    context,
    attached: true,
    newPage: async () => {
      const page = new CdpPage(await context.newPage());
      opened.add(page);
      page.page.once('close', () => opened.delete(page));
      return page;
    },
    close: once(async () => {
      await Promise.all([...opened].map((page) => page.close().catch(() => {})));
      await browser.close().catch(() => {});
    }),
  };
}

const once = (fn: () => Promise<void>) => {
  let done: Promise<void> | undefined;
  return () => {
    done ??= fn();
    return done;
  };
};
