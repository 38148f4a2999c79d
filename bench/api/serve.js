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
import { buildApp } from '@svc/server';
import pg from 'pg';
import { buildBareApp, SECRET_ENV } from './bare.js';

async function buildSvc(pool) {
  const { app } = await buildApp({
    pool,
    basePath: '',
    adminPassword: process.env.BENCH_ADMIN,
    secretEnv: SECRET_ENV,
    // No logger, as `logger: false` in the bare app: logging is a deployment choice, not svc's cost.
  });
  return app;
}

async function main() {
  const role = process.env.BENCH_ROLE;
  const pool = new pg.Pool({
    connectionString: process.env.BENCH_DB_URL,
    max: Number(process.env.BENCH_POOL_SIZE),
  });
  pool.on('error', (error) => console.error(`[${role}] idle database connection failed`, error));

  const app = role === 'svc' ? await buildSvc(pool) : buildBareApp(pool, process.env.BENCH_ORG_ID);
  await app.listen({ port: 0, host: '127.0.0.1' });

  process.on('message', async (message) => {
    // run.js polls our CPU time to tell when requests that autocannon abandoned have finished.
    if (message === 'cpu') return process.send({ cpu: process.cpuUsage() });
    if (message !== 'stop') return;
    await app.close();
    await pool.end();
    // An explicit exit, so that --cpu-prof (BENCH_CPU_PROF=1) writes its profile.
    process.exit(0);
  });
  process.send({ port: app.server.address().port });
}

main().catch((error) => {
  console.error(`[${process.env.BENCH_ROLE}] failed to start:`, error);
  process.exit(1);
});
