import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { checkSvcEnv, startSvc } from './app.js';
import { connectorSandboxLine } from './connectors/bubblewrap.js';
import { lockDataDir, readOrCreateSecret } from './data-dir.js';
import { startEmbeddedPostgres } from './db/embedded.js';
import type { App } from './http/types.js';
import { createLogger } from './ops/logger.js';
import { positiveInteger } from './ops/settings.js';
import { sourceInstalls } from './runs/worker.js';
import { parseEncryptionKey } from './secrets/encryption-key.js';

export interface ServerSettings {
  port: number;
  host: string;
  logLevel: string;
  env: Record<string, string | undefined>;
  /** Lines meant for the person who started the server (URLs, the first admin password). */
  announce?: (line: string) => void;
  /** Agent turns this process runs at once (default `DEFAULT_TURN_CONCURRENCY`); `false`: HTTP only (`--no-workers`). */
  workers?: number | false;
}

export interface RunningServer {
  app: App;
  url: string;
  /** The deployment admin password in use (from SVC_ADMIN_PASSWORD or the data dir). */
  adminPassword: string;
  /** Where it lives when it came from the data dir, for instructions that must not print it. */
  adminPasswordFile: string | null;
  /** Stops accepting, lets in-flight requests finish, closes the pool, stops embedded PostgreSQL. */
  close(): Promise<void>;
}

/**
 * The admin password acts on every org and is chosen by people: a floor on its length keeps it out
 * of guessing range, throttled or not (each replica throttles on its own).
 */
const ADMIN_PASSWORD_MIN_CHARS = 16;

function checkAdminPassword(value: string, where: string, fix: string): void {
  const length = [...value].length;
  if (length < ADMIN_PASSWORD_MIN_CHARS) {
    throw new Error(
      `${where} must be at least ${ADMIN_PASSWORD_MIN_CHARS} characters (it has ${length}); ${fix}`,
    );
  }
}

export { positiveInteger };

/** Why the server could not listen, and what to change: one line. */
function listenFailure(error: NodeJS.ErrnoException, host: string, port: number): string {
  const at = `${host}:${port}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${port} is taken on ${host} (another svc, or another program, listens there): stop it, or choose another port with --port or SVC_PORT`;
    case 'EACCES':
      return `this user may not listen on ${at} (ports below 1024 need privileges): choose a port above 1023 with --port or SVC_PORT`;
    case 'EADDRNOTAVAIL':
      return `${host} is not an address of this machine: choose one with --host or SVC_HOST (127.0.0.1, or 0.0.0.0 for every interface)`;
    default:
      return `cannot listen on ${at}: ${error.message}`;
  }
}

export async function startServer(settings: ServerSettings): Promise<RunningServer> {
  const { env } = settings;
  const announce = settings.announce ?? ((line: string) => process.stderr.write(`${line}\n`));
  const logger: Logger = createLogger(settings.logLevel);
  const dataDir = resolve(env.SVC_DATA_DIR || '.svc');
  if (env.SVC_ADMIN_PASSWORD) {
    checkAdminPassword(
      env.SVC_ADMIN_PASSWORD,
      'SVC_ADMIN_PASSWORD',
      'set a long random value (openssl rand -base64 24), or unset it to have one generated',
    );
  }
  // Every setting is read before the data dir is locked or PostgreSQL started.
  checkSvcEnv(env, !env.DATABASE_URL);
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.splice(0).reverse()) await step().catch((e) => logger.error(e));
  };

  try {
    const embedded = !env.DATABASE_URL;
    if (embedded) cleanups.push(await lockDataDir(dataDir));
    const admin = await readOrCreateSecret(dataDir, 'admin-password', env.SVC_ADMIN_PASSWORD);
    if (admin.source === 'file') {
      const file = join(dataDir, 'admin-password');
      checkAdminPassword(
        admin.value,
        `the admin password in ${file}`,
        'delete the file to have one generated',
      );
    }
    const keySecret = await readOrCreateSecret(dataDir, 'encryption-key', env.SVC_ENCRYPTION_KEY, 32);
    if (!embedded && keySecret.created) {
      logger.warn(
        'SVC_ENCRYPTION_KEY is unset: generated one in the data dir; give every replica the same key',
      );
    }
    const encryptionKey = parseEncryptionKey(keySecret.value);
    let databaseUrl = env.DATABASE_URL as string;
    let cluster = '';
    if (embedded) {
      const started = await startEmbeddedPostgres(dataDir, (m) => logger.info(m));
      cleanups.push(started.stop);
      databaseUrl = started.url;
      cluster = started.cluster;
    }
    const svc = await startSvc({
      env,
      databaseUrl,
      encryptionKey,
      embedded,
      logger,
      http: { adminPassword: admin.value },
      // Closed before the HTTP app: running turns finish or are handed back while the pool is open.
      ...(settings.workers === false
        ? { turns: false, runs: false }
        : settings.workers === undefined
          ? {}
          : { turns: { concurrency: settings.workers } }),
    });
    cleanups.push(() => svc.close());
    const { app, options } = svc.http;
    const basePath = options.basePath;
    await app.listen({ port: settings.port, host: settings.host }).catch((error: NodeJS.ErrnoException) => {
      throw new Error(listenFailure(error, settings.host, settings.port));
    });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : settings.port;
    const url = `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}${basePath}`;

    announce(`svc server listening on ${url}`);
    announce(`  API reference  ${url}/docs`);
    announce(`  database       ${embedded ? `embedded PostgreSQL in ${cluster}` : 'DATABASE_URL'}`);
    if (admin.created) {
      announce(
        `  admin password ${admin.value}   (shown once; kept in ${join(dataDir, 'admin-password')}, mode 0600)`,
      );
    } else if (admin.source === 'file') {
      announce(`  admin password in ${join(dataDir, 'admin-password')}`);
    }
    announce(`  connectors     ${connectorSandboxLine(sourceInstalls(env))}`);
    return {
      app,
      url,
      adminPassword: admin.value,
      adminPasswordFile: admin.source === 'file' ? join(dataDir, 'admin-password') : null,
      close: cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
