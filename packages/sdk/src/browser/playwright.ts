/**
 * playwright-core, loaded on first use: it takes a third of a second to import, and most
 * connectors (and every `svc connector` run of one) never open a browser.
 */
export async function loadChromium() {
  return (await import('playwright-core')).chromium;
}
