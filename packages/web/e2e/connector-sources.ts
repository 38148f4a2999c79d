/** Connectors the console's browser tests install as posted source (the server runs them sandboxed). */

/** Keys typed into the console (a secret API key and an account name); its feed needs config. */
export const keysConnector = `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'keys', name: 'Billing', version: '1.0.0',
  authSchema: { methods: [{ type: 'env_keys', fields: [
    { key: 'apiKey', label: 'API key', secret: true, description: 'From the billing dashboard' },
    { key: 'account', label: 'Account' },
  ] }] },
  feeds: { items: { key: 'items', name: 'Invoices',
    configSchema: { type: 'object', required: ['folder'], properties: { folder: { type: 'string', title: 'Folder' } } },
    async sync() { return { events: [], checkpoint: null }; } } },
});`;

/**
 * A device pairing that shows every kind of interactive artifact in turn: a QR code until the
 * phone has scanned it, a code to type there, a page to approve on, then a form for the code the
 * phone shows. The signals between them are what the phone and the page would post.
 */
export const pairingConnector = `
import { defineConnector } from '@svc/connector-sdk';
const wait = { timeoutMs: 60000 };
export default defineConnector({
  key: 'pairing', name: 'Phone pairing', version: '1.0.0',
  authSchema: { methods: [{ type: 'interactive', expectedArtifact: 'qr', timeoutSec: 120 }] },
  feeds: { items: { key: 'items', name: 'Items', async sync() { return { events: [], checkpoint: null }; } } },
  async authenticate(ctx) {
    await ctx.emit({ type: 'qr', value: 'pair://device?code=abc', instructions: 'Scan it with the phone' });
    await ctx.awaitSignal('scanned', wait);
    await ctx.emit({ type: 'code', value: 'WXYZ-1234', instructions: 'Type this code on the phone' });
    await ctx.awaitSignal('typed', wait);
    await ctx.emit({ type: 'redirect', url: 'https://example.com/approve', mode: 'popup', awaitSignal: 'approved' });
    await ctx.awaitSignal('approved', wait);
    await ctx.emit({ type: 'prompt', submitSignal: 'otp',
      fields: [{ key: 'otp', label: 'Code from the phone', kind: 'otp', required: true }] });
    const answer = await ctx.awaitSignal('otp', wait);
    if (answer.otp !== '424242') throw new Error('the phone shows another code');
    await ctx.emit({ type: 'status', message: 'linking the device' });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    return { credentials: { session: 'sess-' + answer.otp }, metadata: { account_id: 'acct-7' } };
  },
});`;

/** An OAuth connector whose provider is the fake at `url` (provider "hub": HUB_CLIENT_ID...). */
export const hubConnector = (url: string) => `
import { defineConnector } from '@svc/connector-sdk';
export default defineConnector({
  key: 'hub', name: 'Hub', version: '1.0.0',
  authSchema: { methods: [${JSON.stringify({
    type: 'oauth',
    provider: 'hub',
    requiredScopes: ['read'],
    optionalScopes: ['write'],
    authorizationUrl: `${url}/authorize`,
    tokenUrl: `${url}/token`,
    userinfoUrl: `${url}/userinfo`,
  })}] },
  feeds: { items: { key: 'items', name: 'Items', requiredScopes: ['read'],
    async sync() { return { events: [], checkpoint: null }; } } },
});`;

/**
 * A feed whose sync writes a line every 150 ms for a few seconds (its log is followed live), and
 * an action that waits for approval.
 */
export const tickerConnector = `
import { defineConnector, log } from '@svc/connector-sdk';
export default defineConnector({
  key: 'ticker', name: 'Ticker', version: '1.0.0',
  feeds: { ticks: { key: 'ticks', name: 'Ticks', async sync() {
    for (let i = 1; i <= 30; i++) {
      log.info('tick ' + i, { i });
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    return { events: [], checkpoint: null };
  } } },
  actions: {
    announce: {
      key: 'announce', name: 'Announce', requiresApproval: true, description: 'Says something',
      inputSchema: { type: 'object', required: ['message'], properties: { message: { type: 'string', title: 'Message' } } },
      async execute(ctx) { return { success: true, output: { said: ctx.input.message } }; },
    },
  },
});`;
