import type { BrowserContextOptions, LaunchOptions as PlaywrightLaunchOptions } from 'playwright-core';
import { chromiumVersion, resolveChromiumPath } from './executable.js';
import { type BrowserHandle, launchedHandle } from './handle.js';
import { loadChromium } from './playwright.js';

export interface LaunchOptions {
  /** Default true. */
  headless?: boolean;
  /** Default: `SVC_CHROMIUM_PATH`, else `/usr/bin/chromium`. */
  executablePath?: string;
  /** Extra Chromium command-line switches. */
  args?: string[];
  /** A profile directory to keep cookies and storage between runs; a fresh temporary one otherwise. */
  userDataDir?: string;
}

/** Launches the system Chromium. */
export const launchBrowser = (opts: LaunchOptions = {}): Promise<BrowserHandle> => launchWith(opts);

export interface LaunchTweaks {
  ignoreDefaultArgs?: string[];
  /** Given the browser's version, e.g. to build a user agent that matches it. */
  context?: (version: string) => BrowserContextOptions;
}

export async function launchWith(opts: LaunchOptions, tweaks: LaunchTweaks = {}): Promise<BrowserHandle> {
  const executablePath = await resolveChromiumPath(opts.executablePath);
  const launch: PlaywrightLaunchOptions = {
    executablePath,
    headless: opts.headless ?? true,
    args: opts.args ?? [],
    ...(tweaks.ignoreDefaultArgs ? { ignoreDefaultArgs: tweaks.ignoreDefaultArgs } : {}),
  };
  if (opts.userDataDir !== undefined) {
    // The profile is fixed at launch, so context options must be known before the browser runs.
    const contextOptions = tweaks.context?.(await chromiumVersion(executablePath)) ?? {};
    const context = await (await loadChromium()).launchPersistentContext(opts.userDataDir, {
      ...launch,
      ...contextOptions,
    });
    const browser = context.browser();
    if (!browser) {
      await context.close();
      throw new Error('Playwright gave no browser for the persistent context');
    }
    return launchedHandle(browser, context);
  }
  const browser = await (await loadChromium()).launch(launch);
  try {
    const context = await browser.newContext(tweaks.context?.(browser.version()) ?? {});
    return launchedHandle(browser, context);
  } catch (error) {
    await browser.close();
    throw error;
  }
}
