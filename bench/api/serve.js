// Child process that serves ONE of the two contenders (svc or bare). Each server gets its own
// process, so neither shares an event loop with the other or with autocannon; run.js forks this
// file, reads the port from an IPC message, and sends 'stop' when the run is over.
//
// Settings come from the environment that run.js sets:
//   BENCH_ROLE          svc | bare
//   BENCH_DB_URL        the run's database
//   BENCH_POOL_SIZE     pg Pool size, the same for both
//   BENCH_ADMIN         (svc) the deployment admin password, used once to create the API token
//   BENCH_ORG_ID        (bare) the id of org `default`, since the bare app resolves no org
import { randomBytes } from 'node:crypto';
import { startSvc } from '@svc/server';
import pg from 'pg';
import { buildBareApp, SECRET_ENV } from './bare.js';

/**
 * svc as `svc server --no-workers` builds it (`startSvc`, every default of a deployment), on an
 * embedded deployment's environment: the platforms' references resolve from SECRET_ENV.
 */
async function startSvcRole() {
  const svc = await startSvc({
    env: SECRET_ENV,
    databaseUrl: process.env.BENCH_DB_URL,
    encryptionKey: randomBytes(32),
    embedded: true,
    poolSize: Number(process.env.BENCH_POOL_SIZE),
    // No logger, as `logger: false` in the bare app: logging is a deployment choice, not svc's cost.
    http: { adminPassword: process.env.BENCH_ADMIN },
    // The bare server runs no workers either: this bench measures the API.
    turns: false,
    runs: false,
  });
  return { app: svc.http.app, close: () => svc.close() };
}

async function startBareRole() {
  const pool = new pg.Pool({
    connectionString: process.env.BENCH_DB_URL,
    max: Number(process.env.BENCH_POOL_SIZE),
  });
  pool.on('error', (error) => console.error('[bare] idle database connection failed', error));
  const app = buildBareApp(pool, process.env.BENCH_ORG_ID);
  return {
    app,
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}

async function main() {
  const role = process.env.BENCH_ROLE;
  const server = role === 'svc' ? await startSvcRole() : await startBareRole();
  await server.app.listen({ port: 0, host: '127.0.0.1' });

  process.on('message', async (message) => {
    // run.js polls our CPU time to tell when requests that autocannon abandoned have finished.
    if (message === 'cpu') return process.send({ cpu: process.cpuUsage() });
    if (message !== 'stop') return;
    await server.close();
    // An explicit exit, so that --cpu-prof (BENCH_CPU_PROF=1) writes its profile.
    process.exit(0);
  });
  process.send({ port: server.app.server.address().port });
}

main().catch((error) => {
  console.error(`[${process.env.BENCH_ROLE}] failed to start:`, error);
  process.exit(1);
});
