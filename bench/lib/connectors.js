// svc as the connector benchmarks set it up: `svc server --no-workers` in this process, with
// connectors installed from posted source and connected through its API, as an admin would. The
// run workers are the benchmarks' to start, on a pool of their own.
import { randomBytes } from 'node:crypto';
import { startServer } from '../../packages/server/dist/index.js';
import { onCleanup, tempDir } from './environment.js';

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
export async function startSvc(databaseUrl) {
  const encryptionKey = randomBytes(32);
  const running = await startServer({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'warn',
    env: {
      DATABASE_URL: databaseUrl,
      SVC_ADMIN_PASSWORD: PASSWORD,
      SVC_ENCRYPTION_KEY: encryptionKey.toString('hex'),
      SVC_CONNECTOR_SOURCE_INSTALLS: 'on',
      SVC_DATA_DIR: await tempDir('svc-bench-data-'),
    },
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
    /** The pino logger svc logs with (level warn), for run workers started beside it. */
    log: running.app.log,
    install: (source) => call('POST', '/api/default/connectors', { source }),
    /** A connection of the connector, and the id of its feed `items` (due now: the scheduler's to sync). */
    async connect(connectorKey) {
      const { connection, feeds } = await call('POST', '/api/default/connections', { connectorKey });
      return { connectionId: String(connection.id), feedId: String(feeds[0].id) };
    },
  };
}
