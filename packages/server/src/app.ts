import fastifyCookie from '@fastify/cookie';
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import type { Registry } from 'prom-client';
import { type AgentRouteOptions, agentRoutes } from './agents/routes.js';
import { applyRoutes } from './applies/routes.js';
import { approvalInboxRoutes } from './approvals/routes.js';
import { type AuthenticationOptions, registerAuthentication } from './auth/authenticate.js';
import { tokenRoutes } from './auth/routes.js';
import { parseTrustProxy } from './auth/throttle.js';
import { createTokenLookup } from './auth/token-lookup.js';
import { authRunRoutes } from './auth-runs/routes.js';
import { browserSessionRoutes } from './connections/browser-session.js';
import { type ConnectionRouteOptions, connectionRoutes } from './connections/routes.js';
import { providedNixPackages } from './connectors/install.js';
import { type ConnectorRouteOptions, connectorRoutes } from './connectors/routes.js';
import { type ConsoleRouteOptions, consoleRoutes } from './console/routes.js';
import { migrate } from './db/migrate.js';
import { deploymentEgressFromEnv } from './egress/deployment.js';
import { entityRoutes } from './entities/routes.js';
import { eventRoutes } from './events/routes.js';
import { createHttpApp, type RegisteredRoute } from './http/app.js';
import { registerDocs } from './http/openapi.js';
import type { App, HttpOptions } from './http/types.js';
import { memoryRoutes } from './memory/routes.js';
import { approvalRoutes } from './messaging/approvals.js';
import { conversationRoutes } from './messaging/conversations.js';
import type { MessagingOptions } from './messaging/options.js';
import { parseRateLimit } from './messaging/rate-limit.js';
import { messagingRoutes } from './messaging/routes.js';
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from './messaging/uploads.js';
import { type OAuthRouteOptions, oauthRoutes } from './oauth/routes.js';
import { createLogger } from './ops/logger.js';
import { processRegistry, registerMetrics } from './ops/metrics.js';
import { operationsRoutes } from './ops/routes.js';
import { positiveInteger } from './ops/settings.js';
import { ensureOrg, orgRoutes } from './orgs/routes.js';
import { type PlatformRouteOptions, platformRoutes } from './platforms/routes.js';
import { relationshipRoutes } from './relationships/routes.js';
import { actionRoutes } from './runs/action-routes.js';
import { createRunMetrics } from './runs/metrics.js';
import { runRoutes } from './runs/routes.js';
import {
  DEFAULT_RUN_CONCURRENCY,
  type RunWorkerOptions,
  type RunWorkers,
  runWorkerSettings,
  sourceInstalls,
  startRunWorkers,
} from './runs/worker.js';
import { searchRoutes } from './search/routes.js';
import { checkEncryptionKey } from './secrets/encryption-key.js';
import { parseEnvSecretPolicy } from './secrets/env-policy.js';
import { createSecretResolver, type SecretResolver } from './secrets/resolve.js';
import { type SecretRouteOptions, secretRoutes } from './secrets/routes.js';
import { type SessionRouteOptions, sessionRoutes } from './sessions/routes.js';
import { parseApprovalTtl } from './turns/approvals.js';
import { createAnnouncer } from './turns/events.js';
import { createConversationHub } from './turns/hub.js';
import { createTurnMetrics } from './turns/metrics.js';
import {
  DEFAULT_TURN_CONCURRENCY,
  startTurnWorkers,
  type TurnWorkerOptions,
  type TurnWorkers,
} from './turns/worker.js';
import { type WatcherRouteOptions, watcherRoutes } from './watchers/routes.js';
import { type WebhookRouteOptions, webhookRoutes } from './webhooks/routes.js';

export type { RegisteredRoute } from './http/app.js';

/**
 * What the gateway's app is built with: the HTTP plumbing's options and every domain's own (each
 * domain's routes take the part they need). `appOptionsFromEnv` gives every default.
 */
export interface AppOptions
  extends HttpOptions,
    AuthenticationOptions,
    AgentRouteOptions,
    PlatformRouteOptions,
    SecretRouteOptions,
    SessionRouteOptions,
    ConnectionRouteOptions,
    ConsoleRouteOptions,
    ConnectorRouteOptions,
    OAuthRouteOptions,
    MessagingOptions,
    WatcherRouteOptions,
    WebhookRouteOptions {}

/**
 * The gateway's HTTP app with every domain's routes, not yet listening. `routes` is the route
 * table the auth matrix tests. Most callers want `startSvc`, which also builds what this needs.
 */
export async function buildApp(
  options: AppOptions,
): Promise<{ app: App; routes: () => RegisteredRoute[]; registry: Registry }> {
  const { app, routes } = await createHttpApp(options);
  const tokens = await createTokenLookup(options.pool, app.log);
  app.addHook('onClose', () => tokens.close());
  // Cookies are parsed before authentication, which reads a console session's.
  await app.register(fastifyCookie);
  const authenticator = registerAuthentication(app, options, tokens);
  const registry = registerMetrics(app, options.pool);
  const hub = await createConversationHub(options.pool, app.log);
  app.addHook('onClose', () => hub.close());
  const announcer = createAnnouncer(options.pool, app.log);
  app.addHook('onClose', () => announcer.close());

  await app.register(
    async (api) => {
      const typed = api as unknown as App;
      await typed.register(operationsRoutes(options, registry));
      await typed.register(orgRoutes(options));
      await typed.register(tokenRoutes(options, tokens));
      await typed.register(sessionRoutes(options, authenticator));
      await typed.register(agentRoutes(options));
      await typed.register(platformRoutes(options));
      await typed.register(secretRoutes(options));
      await typed.register(memoryRoutes(options));
      await typed.register(applyRoutes(options));
      await typed.register(messagingRoutes(options, hub, announcer));
      await typed.register(conversationRoutes(options, hub));
      await typed.register(approvalRoutes(options));
      await typed.register(approvalInboxRoutes(options));
      await typed.register(webhookRoutes(options, announcer));
      await typed.register(connectorRoutes(options));
      await typed.register(connectionRoutes(options));
      await typed.register(oauthRoutes(options));
      await typed.register(browserSessionRoutes(options));
      await typed.register(runRoutes(options));
      await typed.register(authRunRoutes(options));
      await typed.register(eventRoutes(options));
      await typed.register(actionRoutes(options));
      await typed.register(entityRoutes(options));
      await typed.register(watcherRoutes(options));
      await typed.register(relationshipRoutes(options));
      await typed.register(searchRoutes(options));
      await registerDocs(typed, options);
      await typed.register(consoleRoutes(options));
    },
    { prefix: options.basePath },
  );
  return { app, routes, registry };
}

export type Env = Record<string, string | undefined>;

function normaliseBasePath(raw: string | undefined): string {
  if (!raw || raw === '/') return '';
  const trimmed = `/${raw.replace(/^\/+|\/+$/g, '')}`;
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(trimmed)) {
    throw new Error(`SVC_BASE_PATH "${raw}" must be a path such as /svc`);
  }
  return trimmed;
}

/** SVC_UPLOAD_MAX_FILE_BYTES and SVC_UPLOAD_MAX_TOTAL_BYTES over the defaults. */
function uploadLimitsFromEnv(env: Env): UploadLimits {
  return {
    ...DEFAULT_UPLOAD_LIMITS,
    fileBytes:
      positiveInteger('SVC_UPLOAD_MAX_FILE_BYTES', env.SVC_UPLOAD_MAX_FILE_BYTES) ??
      DEFAULT_UPLOAD_LIMITS.fileBytes,
    totalBytes:
      positiveInteger('SVC_UPLOAD_MAX_TOTAL_BYTES', env.SVC_UPLOAD_MAX_TOTAL_BYTES) ??
      DEFAULT_UPLOAD_LIMITS.totalBytes,
  };
}

/**
 * The one way any part of the server resolves secret references (DESIGN.md section 6): the org's
 * secrets, then the environment's names that SVC_SECRETS_FROM_ENV allows (unset: every name in
 * org `default` of an embedded deployment, none elsewhere).
 */
function secretResolverFromEnv(pool: pg.Pool, encryptionKey: Buffer, env: Env, embedded: boolean) {
  return createSecretResolver({
    pool,
    encryptionKey,
    env,
    policy: parseEnvSecretPolicy(env.SVC_SECRETS_FROM_ENV, embedded),
  });
}

/** What an app is built with besides the environment. */
export interface AppBase {
  pool: pg.Pool;
  encryptionKey: Buffer;
  /** The deployment admin password accepted as a bearer value; `null`: none. */
  adminPassword: string | null;
  /** SVC_SECRETS_FROM_ENV's default: an embedded deployment lets org `default` use the environment. */
  embedded?: boolean;
  logger?: FastifyBaseLogger;
}

/** Leaves out the keys whose value is undefined, so that they do not hide a default. */
const defined = <T extends object>(values: T): Partial<T> =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;

/**
 * The app's settings that `svc server` reads from the environment (SVC_BASE_PATH, SVC_PUBLIC_URL,
 * SVC_EGRESS_ALLOW, SVC_MESSAGES_RATE_LIMIT, SVC_UPLOAD_MAX_*_BYTES, ...): the one place of their
 * defaults. Throws on a value that does not parse, before anything starts.
 */
export function appSettingsFromEnv(env: Env) {
  const publicUrl = env.SVC_PUBLIC_URL?.replace(/\/+$/, '');
  return {
    basePath: normaliseBasePath(env.SVC_BASE_PATH),
    ...(publicUrl ? { publicUrl } : {}),
    connectorNixPackages: providedNixPackages(env),
    connectorSourceInstalls: sourceInstalls(env),
    messageRateLimit: parseRateLimit(env.SVC_MESSAGES_RATE_LIMIT),
    uploadLimits: uploadLimitsFromEnv(env),
    egress: deploymentEgressFromEnv(env),
    validateResponses: env.SVC_VALIDATE_RESPONSES === '1',
    authFailuresPerMinute: positiveInteger('SVC_AUTH_FAILURES_PER_MINUTE', env.SVC_AUTH_FAILURES_PER_MINUTE),
    trustProxy: parseTrustProxy(env.SVC_TRUST_PROXY),
    watcherSettleMs: positiveInteger('SVC_WATCHER_SETTLE_MS', env.SVC_WATCHER_SETTLE_MS),
    ...(env.SVC_CONSOLE_DIR ? { consoleDir: env.SVC_CONSOLE_DIR } : {}),
  } satisfies Partial<AppOptions>;
}

/**
 * The app's options: `base`, the environment's settings (`appSettingsFromEnv`), then `overrides`
 * (what an environment variable cannot say, for tests: stream timings, a logger), which win;
 * undefined ones are ignored.
 */
export function appOptionsFromEnv(env: Env, base: AppBase, overrides: Partial<AppOptions> = {}): AppOptions {
  const { pool, encryptionKey, adminPassword, embedded = false, logger } = base;
  return {
    pool,
    encryptionKey,
    adminPassword,
    secrets: secretResolverFromEnv(pool, encryptionKey, env, embedded),
    ...(logger ? { logger } : {}),
    ...appSettingsFromEnv(env),
    ...defined(overrides),
  };
}

/**
 * The agent-turn workers' settings from the environment (SVC_TURN_CONCURRENCY, SVC_TURN_LEASE_MS,
 * SVC_DELIVERY_LEASE_MS, SVC_APPROVAL_TTL).
 */
function turnSettingsFromEnv(env: Env): TurnWorkerSettings {
  return {
    concurrency:
      positiveInteger('SVC_TURN_CONCURRENCY', env.SVC_TURN_CONCURRENCY) ?? DEFAULT_TURN_CONCURRENCY,
    leaseMs: positiveInteger('SVC_TURN_LEASE_MS', env.SVC_TURN_LEASE_MS),
    deliveries: { leaseMs: positiveInteger('SVC_DELIVERY_LEASE_MS', env.SVC_DELIVERY_LEASE_MS) },
    approvalTtlMs: parseApprovalTtl(env.SVC_APPROVAL_TTL),
  };
}

/**
 * Reads every setting of the environment that `startSvc` reads, and throws on the first that does
 * not parse: callers check before they start what would have to be stopped again.
 */
export function checkSvcEnv(env: Env, embedded: boolean): void {
  appSettingsFromEnv(env);
  parseEnvSecretPolicy(env.SVC_SECRETS_FROM_ENV, embedded);
  turnSettingsFromEnv(env);
  runWorkerSettings(env);
}

/** What a caller may change of the agent-turn workers' defaults (tests: poll faster, fewer at once). */
export type TurnWorkerSettings = Partial<
  Omit<TurnWorkerOptions, 'pool' | 'secrets' | 'env' | 'log' | 'metrics' | 'egress'>
>;

/**
 * What a caller may change of the connector-run workers' defaults (read from the environment);
 * `metrics`, where a test reads them (default: on the app's or the process's registry).
 */
export type RunWorkerSettings = Partial<Omit<RunWorkerOptions, 'pool' | 'encryptionKey' | 'secrets' | 'log'>>;

export interface SvcSettings {
  /** The deployment's environment: every default not given below is read from it. */
  env: Env;
  databaseUrl: string;
  /** SVC_ENCRYPTION_KEY, parsed: opens org secrets and connection credentials. */
  encryptionKey: Buffer;
  /** An embedded deployment (PostgreSQL in the data dir): see `AppBase.embedded`. */
  embedded?: boolean;
  /** Where everything logs; unset: the app's (silent without a logger) or a silent one. */
  logger?: FastifyBaseLogger;
  /** Connections in the pool; default SVC_DB_POOL_SIZE, else 20. */
  poolSize?: number;
  /** The HTTP API (`svc server`); absent: none (`svc worker`). Not yet listening when returned. */
  http?: {
    adminPassword: string | null;
    /** What the environment cannot say (tests: stream timings, upload limits); wins over it. */
    overrides?: Partial<AppOptions>;
  };
  /** Agent-turn workers: absent, the defaults; `false`, none (`--no-workers`); else what differs. */
  turns?: false | TurnWorkerSettings;
  /** Connector-run workers: absent, as the environment says (SVC_RUN_CONCURRENCY=0: none); `false`, none. */
  runs?: false | RunWorkerSettings;
}

export interface RunningSvc {
  pool: pg.Pool;
  secrets: SecretResolver;
  /** The app's registry, or the process's when there is no app: what `/metrics` serves. */
  registry: Registry;
  log: FastifyBaseLogger;
  http: { app: App; routes: () => RegisteredRoute[]; options: AppOptions } | null;
  turns: TurnWorkers | null;
  runs: RunWorkers | null;
  /** What the workers run at once (0 when they do not run), for the lines printed at start. */
  concurrency: { turns: number; runs: number };
  /**
   * Stops the workers (running turns get `graceMs` to finish, then are handed back), then the
   * app (in-flight requests finish), then closes the pool. A second call waits for the first.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * svc from its settings, the one way every caller builds it (`svc server`, `svc worker`, the tests'
 * harness, the benchmarks): the pool, migrations, the encryption key's check, the secret resolver,
 * the app (with org `default`), the agent-turn workers and the connector-run workers, each with the
 * defaults of the environment unless the settings say otherwise.
 */
export async function startSvc(
  settings: SvcSettings & { http: NonNullable<SvcSettings['http']> },
): Promise<RunningSvc & { http: NonNullable<RunningSvc['http']> }>;
export async function startSvc(settings: SvcSettings): Promise<RunningSvc>;
export async function startSvc(settings: SvcSettings): Promise<RunningSvc> {
  const { env, encryptionKey, embedded = false } = settings;
  // Every setting is read before anything starts, so that a bad value stops nothing half-built.
  checkSvcEnv(env, embedded);
  const turnSettings: TurnWorkerSettings | false =
    settings.turns === false ? false : { ...turnSettingsFromEnv(env), ...defined(settings.turns ?? {}) };
  const runSettings: RunWorkerSettings | null =
    settings.runs === false ? null : { ...runWorkerSettings(env), ...defined(settings.runs ?? {}) };
  const pool = new pg.Pool({
    connectionString: settings.databaseUrl,
    max: settings.poolSize ?? (Number(env.SVC_DB_POOL_SIZE) || 20),
    // A request waits this long for a connection, then answers 503 rather than hanging.
    connectionTimeoutMillis: 10_000,
  });
  let log: FastifyBaseLogger = settings.logger ?? createLogger('silent');
  pool.on('error', (error) => log.error({ err: error }, 'idle database connection failed'));
  let http: RunningSvc['http'] = null;
  let turns: TurnWorkers | null = null;
  let runs: RunWorkers | null = null;
  // Once: a second call (a test's own, then its afterAll) waits for the first.
  let closed: Promise<void> | null = null;
  const close = (graceMs?: number) => {
    closed ??= (async () => {
      await Promise.all([turns?.close(graceMs), runs?.close(graceMs)]);
      await http?.app.close();
      await pool.end();
    })();
    return closed;
  };
  try {
    const applied = await migrate(pool);
    if (applied.length > 0) log.info({ applied }, 'applied migrations');
    await checkEncryptionKey(pool, encryptionKey);
    let secrets: SecretResolver;
    let registry: Registry;
    if (settings.http) {
      await ensureOrg({ pool }, 'default', 'Default');
      const options = appOptionsFromEnv(
        env,
        {
          pool,
          encryptionKey,
          embedded,
          adminPassword: settings.http.adminPassword,
          ...(settings.logger ? { logger: settings.logger } : {}),
        },
        settings.http.overrides,
      );
      const built = await buildApp(options);
      http = { app: built.app, routes: built.routes, options };
      log = settings.logger ?? built.app.log;
      secrets = options.secrets;
      registry = built.registry;
    } else {
      secrets = secretResolverFromEnv(pool, encryptionKey, env, embedded);
      registry = processRegistry(pool);
    }
    const egress = http?.options.egress ?? deploymentEgressFromEnv(env);

    const turnConcurrency =
      turnSettings === false ? 0 : (turnSettings.concurrency ?? DEFAULT_TURN_CONCURRENCY);
    if (turnSettings !== false) {
      turns = await startTurnWorkers({
        pool,
        secrets,
        env,
        log,
        egress,
        metrics: createTurnMetrics(registry),
        ...turnSettings,
        concurrency: turnConcurrency,
      });
    }
    if (runSettings && runSettings.concurrency !== 0) {
      runs = await startRunWorkers({
        pool,
        encryptionKey,
        secrets,
        log,
        ...runSettings,
        metrics: runSettings.metrics ?? createRunMetrics(registry),
      });
    }
    return {
      pool,
      secrets,
      registry,
      log,
      http,
      turns,
      runs,
      concurrency: {
        turns: turnConcurrency,
        runs: runs ? (runSettings?.concurrency ?? DEFAULT_RUN_CONCURRENCY) : 0,
      },
      close,
    };
  } catch (error) {
    await close().catch((failure) => log.error({ err: failure }, 'could not stop what had started'));
    throw error;
  }
}
