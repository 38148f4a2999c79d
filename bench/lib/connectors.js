// svc as the connector benchmarks set it up: `svc server --no-workers` in this process, with
// connectors installed from posted source and connected through its API, as an admin would. The
// run workers are the benchmarks' to start when they choose, as `svc worker` starts them: on a
// pool of their own, through the same `startSvc` as the server, with the same environment.
import { randomBytes } from 'node:crypto';
import { findBubblewrap } from '../../packages/server/dist/connectors/bubblewrap.js';
import { startServer, startSvc } from '../../packages/server/dist/index.js';
import { onCleanup, progress, tempDir } from './environment.js';

const PASSWORD = 'bench-admin-password-0123456789';

/** The connector source of `key`: a feed `items` whose sync is `syncBody`, and an action `ping`. */
export const connectorSource = (
  key,
  { prelude = '', syncBody = 'return { events: [], checkpoint: null };' } = {},
) => `
import { defineConnector } from '@svc/connector-sdk';
${prelude}
export default defineConnector({
  key: '${key}', name: '${key}', version: '1.0.0',
  feeds: { items: { key: 'items', name: 'Items', async sync(ctx) { ${syncBody} } } },
  actions: { ping: { key: 'ping', name: 'Ping', requiresApproval: false, async execute() { return { success: true }; } } },
});`;

/** svc's HTTP API on `databaseUrl`, migrated, with the org `default`; stopped at cleanup. */
export async function startConnectorSvc(databaseUrl) {
  const encryptionKey = randomBytes(32);
  // Posted source runs in the OS sandbox, as on a deployment; on a machine without bubblewrap
  // (a developer's, a container's), without it, as the tests do: the figures then say so.
  const { missing } = findBubblewrap();
  if (missing) progress(`connector children run WITHOUT the OS sandbox: ${missing}`);
  const env = {
    DATABASE_URL: databaseUrl,
    SVC_ADMIN_PASSWORD: PASSWORD,
    SVC_ENCRYPTION_KEY: encryptionKey.toString('hex'),
    SVC_CONNECTOR_SOURCE_INSTALLS: missing ? 'unsandboxed' : 'on',
    SVC_DATA_DIR: await tempDir('svc-bench-data-'),
  };
  const running = await startServer({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'warn',
    env,
    workers: false,
    announce: () => {},
  });
  onCleanup(running.close);
  const call = async (method, path, body) => {
    const res = await fetch(`${running.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${PASSWORD}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(answer)}`);
    return answer;
  };
  return {
    url: running.url,
    call,
    encryptionKey,
    /** The pino logger svc logs with (level warn). */
    log: running.app.log,
    /**
     * Connector-run workers on a pool of `poolSize`, as `svc worker` runs them (no agent turns),
     * with `runs` (concurrency, pollMs, leaseMs...) over the environment's defaults; stopped at
     * cleanup, giving running runs a second.
     */
    async startRunWorkers(runs = {}, poolSize = 10) {
      const worker = await startSvc({
        env,
        databaseUrl,
        encryptionKey,
        logger: running.app.log,
        poolSize,
        turns: false,
        runs,
      });
      onCleanup(() => worker.close(1000));
      return worker.runs;
    },
    install: (source) => call('POST', '/api/default/connectors', { source }),
    /** A connection of the connector, and the id of its feed `items` (due now: the scheduler's to sync). */
    async connect(connectorKey) {
      const { connection, feeds } = await call('POST', '/api/default/connections', { connectorKey });
      return { connectionId: String(connection.id), feedId: String(feeds[0].id) };
    },
  };
}
