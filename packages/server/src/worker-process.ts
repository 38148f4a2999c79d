import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { Registry } from 'prom-client';
import { startSvc } from './app.js';
import { createLogger } from './ops/logger.js';
import { parseEncryptionKey } from './secrets/encryption-key.js';

export interface WorkerSettings {
  logLevel: string;
  env: Record<string, string | undefined>;
  concurrency?: number;
  /** Serves `/metrics` (Prometheus) and `/healthz` there; none when unset. 0 picks a free port. */
  metricsPort?: number;
  metricsHost?: string;
  announce?: (line: string) => void;
}

export interface RunningWorker {
  /** Where `/metrics` is served, when it is. */
  metricsUrl?: string;
  /** Stops claiming, lets running turns finish (or hands them back), closes the pool. */
  close(): Promise<void>;
}

/**
 * The worker's own small HTTP server: what Prometheus scrapes, and a liveness answer. Everything
 * else is a 404 problem, as on `svc server`.
 */
async function serveMetrics(registry: Registry, port: number, host: string): Promise<Server> {
  const server = createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://worker').pathname;
    if (req.method === 'GET' && path === '/metrics') {
      const text = await registry.metrics();
      res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
      res.end(text);
    } else if (req.method === 'GET' && path === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end('{"status":"ok"}');
    } else {
      res.writeHead(404, { 'content-type': 'application/problem+json', 'cache-control': 'no-store' });
      res.end(
        JSON.stringify({
          type: 'about:blank',
          title: 'Not Found',
          status: 404,
          code: 'not_found',
          detail: 'a svc worker serves GET /metrics and GET /healthz only',
        }),
      );
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}

/**
 * `svc worker`: agent turns without HTTP, on the servers' database. It needs the servers' key to
 * open org secrets, and never makes one up: a worker with another key could not read them.
 */
export async function startWorker(settings: WorkerSettings): Promise<RunningWorker> {
  const { env } = settings;
  if (!env.DATABASE_URL) {
    throw new Error(
      'svc worker needs DATABASE_URL, the database of the svc servers it works for (an embedded one belongs to its server)',
    );
  }
  const logger = createLogger(settings.logLevel);
  const keyText =
    env.SVC_ENCRYPTION_KEY ||
    (await readFile(join(resolve(env.SVC_DATA_DIR || '.svc'), 'encryption-key'), 'utf8').catch(() => null));
  if (!keyText) {
    throw new Error('svc worker needs SVC_ENCRYPTION_KEY, the same key as the servers, to read org secrets');
  }
  const encryptionKey = parseEncryptionKey(keyText);
  const svc = await startSvc({
    env,
    databaseUrl: env.DATABASE_URL,
    encryptionKey,
    logger,
    ...(settings.concurrency === undefined ? {} : { turns: { concurrency: settings.concurrency } }),
  });
  let metricsServer: Server | undefined;
  try {
    if (settings.metricsPort !== undefined) {
      metricsServer = await serveMetrics(
        svc.registry,
        settings.metricsPort,
        settings.metricsHost ?? '127.0.0.1',
      );
    }
    const address = metricsServer?.address() as AddressInfo | undefined;
    const metricsUrl = address ? `http://${address.address}:${address.port}/metrics` : undefined;
    (settings.announce ?? ((line) => process.stderr.write(`${line}\n`)))(
      `svc worker running ${svc.concurrency.turns} turns and ${svc.concurrency.runs} connector runs at a time on DATABASE_URL` +
        (metricsUrl ? `; metrics on ${metricsUrl}` : ''),
    );
    return {
      ...(metricsUrl ? { metricsUrl } : {}),
      async close() {
        // Scrapes stop first: the pool they read closes with the workers.
        metricsServer?.closeAllConnections();
        await new Promise((resolve) => metricsServer?.close(resolve) ?? resolve(undefined));
        await svc.close();
      },
    };
  } catch (error) {
    metricsServer?.close();
    await svc.close();
    throw error;
  }
}
