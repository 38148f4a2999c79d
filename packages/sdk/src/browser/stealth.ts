import type { BrowserHandle } from './handle.js';
import { type LaunchOptions, launchWith } from './launch.js';

export interface StealthOptions extends LaunchOptions {
  /** Default: the browser's own user agent as a headed Chrome on this platform would send it. */
  userAgent?: string;
  /** `navigator.languages` and `Accept-Language`, most preferred first. Default `['en-US', 'en']`. */
  languages?: string[];
}

/**
 * `launchBrowser` minus the usual giveaways of automation, best effort: sites that look harder
 * (TLS and canvas fingerprints, behaviour) will still tell. Only switches and settings Chromium and
 * playwright maintain are used, not patched-up third-party evasions.
 */
export async function launchStealthBrowser(opts: StealthOptions = {}): Promise<BrowserHandle> {
  const handle = await launchWith(
    { ...opts, args: stealthArgs(opts) },
    {
      // Its "controlled by automated test software" bar and `navigator.webdriver` are what it is for.
      ignoreDefaultArgs: ['--enable-automation'],
      context: (version) => ({ userAgent: opts.userAgent ?? stealthUserAgent(version) }),
    },
  );
  await handle.context.addInitScript(WEBDRIVER_SCRIPT);
  return handle;
}

export const stealthArgs = (opts: Pick<StealthOptions, 'args' | 'languages'>): string[] => [
  '--disable-blink-features=AutomationControlled',
  // `--lang` is ignored on Linux; this one sets both navigator.languages and the header.
  `--accept-lang=${(opts.languages ?? ['en-US', 'en']).join(',')}`,
  ...(opts.args ?? []),
];

const PLATFORM_TOKENS: Partial<Record<NodeJS.Platform, string>> = {
  darwin: 'Macintosh; Intel Mac OS X 10_15_7',
  win32: 'Windows NT 10.0; Win64; x64',
};

/**
 * What a headed Chrome of this version sends: headless mode says `HeadlessChrome`, and Chrome
 * reduces the version to its major number with fixed platform tokens.
 */
export const stealthUserAgent = (version: string, platform: NodeJS.Platform = process.platform): string => {
  const major = version.split('.')[0];
  const system = PLATFORM_TOKENS[platform] ?? 'X11; Linux x86_64';
  return `Mozilla/5.0 (${system}) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${major}.0.0.0 Safari/537.36`;
};

/**
 * The blink switch already makes `navigator.webdriver` false natively; patching only when it did not
 * keeps the native getter, which a patched one would be told apart from.
 */
export const WEBDRIVER_SCRIPT = `(() => {
  if (navigator.webdriver) {
    Object.defineProperty(Navigator.prototype, 'webdriver', { get: () => false, configurable: true });
  }
})();`;
