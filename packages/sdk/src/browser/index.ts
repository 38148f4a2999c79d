export { type AcquireOptions, acquireBrowser, DEFAULT_CDP_URL, probeCdp } from './acquire.js';
export {
  CHROMIUM_PATH_ENV,
  ChromiumNotFoundError,
  DEFAULT_CHROMIUM_PATH,
  resolveChromiumPath,
} from './executable.js';
export type { BrowserHandle } from './handle.js';
export { type LaunchOptions, launchBrowser } from './launch.js';
export { browserNetworkSync, type NetworkSyncOptions, type NetworkSyncResult } from './network-sync.js';
export {
  type BrowserCookie,
  CdpPage,
  type CookieInput,
  type GotoOptions,
  type WaitForSelectorOptions,
} from './page.js';
export type { SyncedResponse } from './responses.js';
export { launchStealthBrowser, type StealthOptions } from './stealth.js';
