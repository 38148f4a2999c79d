import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireBrowser, cdpVersionUrl, probeCdp } from './acquire.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

const serve = async (handler: RequestListener): Promise<string> => {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

const freePort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return port;
};

describe('cdpVersionUrl', () => {
  it('probes the same host for http and ws forms', () => {
    expect(cdpVersionUrl('http://127.0.0.1:9222')).toBe('http://127.0.0.1:9222/json/version');
    expect(cdpVersionUrl('http://localhost:9222/')).toBe('http://localhost:9222/json/version');
    expect(cdpVersionUrl('ws://127.0.0.1:9222/devtools/browser/abc')).toBe(
      'http://127.0.0.1:9222/json/version',
    );
    expect(cdpVersionUrl('wss://box.example:443/devtools/browser/abc')).toBe(
      'https://box.example/json/version',
    );
  });

  it('rejects what is not a DevTools URL', () => {
    expect(() => cdpVersionUrl('127.0.0.1:9222')).toThrow(/DevTools URL/);
    expect(() => cdpVersionUrl('not a url')).toThrow(/DevTools URL.*not a url/);
    expect(() => cdpVersionUrl('file:///tmp/x')).toThrow(/DevTools URL/);
  });
});

describe('probeCdp', () => {
  it('is true for a DevTools endpoint', async () => {
    const url = await serve((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ Browser: 'Chrome/1.0', webSocketDebuggerUrl: 'ws://x/devtools/browser/1' }));
    });
    expect(await probeCdp(url)).toBe(true);
  });

  it('is false with nothing listening', async () => {
    expect(await probeCdp(`http://127.0.0.1:${await freePort()}`)).toBe(false);
  });

  it('is false for some other HTTP server', async () => {
    const url = await serve((_req, res) => {
      res.statusCode = 404;
      res.end('not here');
    });
    expect(await probeCdp(url)).toBe(false);
    const json = await serve((_req, res) => res.end('{"hello":"world"}'));
    expect(await probeCdp(json)).toBe(false);
  });

  it('gives up on a server that never answers', async () => {
    const url = await serve(() => {});
    const started = Date.now();
    expect(await probeCdp(url, 200)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('acquireBrowser', () => {
  it('rejects a malformed cdpUrl instead of launching', async () => {
    await expect(acquireBrowser({ cdpUrl: 'localhost:9222' })).rejects.toThrow(/DevTools URL/);
  });

  it('launches, and so needs Chromium, when nothing answers', async () => {
    const cdpUrl = `http://127.0.0.1:${await freePort()}`;
    await expect(acquireBrowser({ cdpUrl, launch: { executablePath: '/nowhere/chromium' } })).rejects.toThrow(
      /Chromium not found at \/nowhere\/chromium/,
    );
  });
});
