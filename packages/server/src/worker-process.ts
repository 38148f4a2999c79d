import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { migrate } from './db/migrate.js';
import { deploymentEgressFromEnv } from './egress/deployment.js';
import { checkEncryptionKey, parseEncryptionKey } from './secrets/encryption-key.js';
import { parseEnvSecretPolicy } from './secrets/env-policy.js';
import { createSecretResolver } from './secrets/resolve.js';
import { positiveInteger } from './server.js';
import { parseApprovalTtl } from './turns/approvals.js';
import { DEFAULT_TURN_CONCURRENCY, startTurnWorkers } from './turns/worker.js';

export interface WorkerSettings {
  logLevel: string;
  env: Record<string, string | undefined>;
  concurrency?: number;
  announce?: (line: string) => void;
}

export interface RunningWorker {
  /** Stops claiming, lets running turns finish (or hands them back), closes the pool. */
  close(): Promise<void>;
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
  const logger = pino({ level: settings.logLevel });
  const keyText =
    env.SVC_ENCRYPTION_KEY ||
    (await readFile(join(resolve(env.SVC_DATA_DIR || '.svc'), 'encryption-key'), 'utf8').catch(() => null));
  if (!keyText) {
    throw new Error('svc worker needs SVC_ENCRYPTION_KEY, the same key as the servers, to read org secrets');
  }
  const encryptionKey = parseEncryptionKey(keyText);
  const policy = parseEnvSecretPolicy(env.SVC_SECRETS_FROM_ENV, false);
  const pool = new pg.Pool({
    connectionString: env.DATABASE_URL,
    max: Number(env.SVC_DB_POOL_SIZE) || 20,
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', (error) => logger.error({ err: error }, 'idle database connection failed'));
  try {
    await migrate(pool);
    await checkEncryptionKey(pool, encryptionKey);
    const concurrency = settings.concurrency ?? DEFAULT_TURN_CONCURRENCY;
    const workers = await startTurnWorkers({
      pool,
      secrets: createSecretResolver({ pool, encryptionKey, env, policy }),
      env,
      log: logger,
      concurrency,
      leaseMs: positiveInteger('SVC_TURN_LEASE_MS', env.SVC_TURN_LEASE_MS),
      approvalTtlMs: parseApprovalTtl(env.SVC_APPROVAL_TTL),
      egress: deploymentEgressFromEnv(env),
    });
    (settings.announce ?? ((line) => process.stderr.write(`${line}\n`)))(
      `svc worker running ${concurrency} turns at a time on DATABASE_URL`,
    );
    return {
      async close() {
        await workers.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
