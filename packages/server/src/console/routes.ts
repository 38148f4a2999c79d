import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemBody, sendProblem } from '../http/problem.js';
import type { App } from '../http/types.js';

/**
 * What the console's page may load: its own files and the API, nothing else (no CDN, no inline
 * script, no frame around it). `data:` images are the icons Vite inlines; `base-uri 'self'` lets
 * the page carry the `<base>` that mounts it under SVC_BASE_PATH.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Assets are scripts, styles and images the page loads; opened on their own (an SVG, say), they
 * may run nothing and load nothing.
 */
const ASSET_CSP = "default-src 'none'; style-src 'self'; img-src 'self' data:; sandbox";

/** The router's `maxParamLength` (http/app.ts). */
const MAX_SEGMENT = 1000;

/** Paths that never answer with the console's page, whatever the client accepts. */
const NOT_THE_CONSOLE = /^\/(?:api|docs|openapi\.json|healthz|readyz|metrics)(?:\/|$)/;

/** What the routes of this file need from the server that mounts them. */
export interface ConsoleRouteOptions {
  basePath: string;
  /** The built console (`packages/web/dist`); `null`: none is served. Default: the @svc/web package's. */
  consoleDir?: string | null;
}

/** Where `npm run build` puts the console: the `dist` of the @svc/web package beside this one. */
export function defaultConsoleDir(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve('@svc/web/package.json');
    return join(dirname(pkg), 'dist');
  } catch {
    return null;
  }
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>svc</title></head>
<body><h1>svc</h1><p>The console is not built on this server. Run <code>npm run build</code> (or
<code>npm start</code>, which builds it) and start the server again. The API is at
<a href="api/whoami">api/</a> and its reference at <a href="docs">docs</a>.</p></body></html>`;

/**
 * The console (packages/web) at `{base}/`: its page for every GET that wants HTML outside the API,
 * so that each page's URL can be shared and reloaded; its hashed assets cached for a year.
 */
export function consoleRoutes(options: ConsoleRouteOptions) {
  const dir = options.consoleDir === undefined ? defaultConsoleDir() : options.consoleDir;
  const indexPath = dir ? join(dir, 'index.html') : null;
  const built = indexPath !== null && existsSync(indexPath);
  // The page is mounted where the server is: relative asset URLs resolve against this <base>.
  const page = built
    ? readFileSync(indexPath, 'utf8').replace('<head>', `<head><base href="${options.basePath}/">`)
    : NOT_BUILT.replace('<head>', `<head><base href="${options.basePath}/">`);

  const sendPage = (reply: FastifyReply) =>
    reply
      .code(built ? 200 : 503)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', CONSOLE_CSP)
      .header('x-frame-options', 'DENY')
      .header('referrer-policy', 'no-referrer')
      .header('cross-origin-opener-policy', 'same-origin')
      .send(page);

  const wantsPage = (request: FastifyRequest) => {
    const raw = (request.url.split('?')[0] ?? '/').slice(options.basePath.length) || '/';
    // As the router matched it: `/%61pi/...` is an API path too.
    let path: string;
    try {
      path = decodeURIComponent(raw);
    } catch {
      return false;
    }
    return !NOT_THE_CONSOLE.test(path) && (request.headers.accept ?? '').includes('text/html');
  };

  return async (app: App) => {
    if (built && dir) {
      const assets = existsSync(join(dir, 'assets'))
        ? realpathSync(join(dir, 'assets'))
        : join(dir, 'assets');
      // Only reply.sendFile: the routes are ours, so that they declare their auth.
      await app.register(fastifyStatic, { root: dir, serve: false });
      app.get('/assets/*', { config: { auth: 'public' }, schema: { hide: true } }, async (request, reply) => {
        const file = (request.params as { '*': string })['*'];
        // send() keeps the name inside the folder, but follows a symbolic link out of it.
        const real = await realpath(join(assets, file)).catch(() => null);
        if (real === null || !real.startsWith(assets + sep)) return reply.callNotFound();
        reply.header('content-security-policy', ASSET_CSP);
        // Hashed names: a file's content never changes under its name.
        return reply.sendFile(`assets/${file}`, {
          maxAge: '365d',
          immutable: true,
          dotfiles: 'deny',
          index: false,
        });
      });
    }
    // The server's own address is the console's, whatever the client accepts.
    app.get('/', { config: { auth: 'public' }, schema: { hide: true } }, (_request, reply) =>
      sendPage(reply),
    );
    app.get('/*', { config: { auth: 'public' }, schema: { hide: true } }, (request, reply) => {
      // The router answers 414 for a segment over its limit where a route's parameter would take
      // it; this catch-all would take it instead, so it answers the same.
      const path = request.url.split('?')[0] ?? '';
      if (path.split('/').some((segment) => segment.length > MAX_SEGMENT)) {
        return sendProblem(
          reply,
          problemBody(414, 'uri_too_long', 'a segment of the URL path is longer than 1000 characters'),
        );
      }
      return wantsPage(request) ? sendPage(reply) : reply.callNotFound();
    });
  };
}
