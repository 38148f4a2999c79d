// Child process that serves svc, as `svc server` assembles it (buildApp from the built server), on
// the run's database. It runs in its own process so that the server's work never shares an event
// loop with the CLI being timed; run.js forks this file, reads the port from an IPC message, and
// sends 'stop' when the run is over.
//
// Settings come from the environment that run.js sets:
//   BENCH_DB_URL        the run's database
//   BENCH_POOL_SIZE     pg Pool size
//   BENCH_ADMIN         the deployment admin password, used once to create the API token
//   BENCH_SECRET_ENV    JSON: the variables the server resolves platform secret references in
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { deploymentEgressFromEnv } from '../../packages/server/dist/egress/deployment.js';
import { buildApp } from '../../packages/server/dist/http/app.js';
import { parseEnvSecretPolicy } from '../../packages/server/dist/secrets/env-policy.js';
import { createSecretResolver } from '../../packages/server/dist/secrets/resolve.js';

async function main() {
  const pool = new pg.Pool({
    connectionString: process.env.BENCH_DB_URL,
    max: Number(process.env.BENCH_POOL_SIZE),
  });
  pool.on('error', (error) => console.error('[svc] idle database connection failed', error));
  const encryptionKey = randomBytes(32);
  const { app } = await buildApp({
    pool,
    basePath: '',
    adminPassword: process.env.BENCH_ADMIN,
    encryptionKey,
    // The platforms' references resolve from these variables, as on an embedded deployment.
    secrets: createSecretResolver({
      pool,
      encryptionKey,
      env: JSON.parse(process.env.BENCH_SECRET_ENV || '{}'),
      policy: parseEnvSecretPolicy(undefined, true),
    }),
    egress: deploymentEgressFromEnv({}),
    // No logger: logging is a deployment choice, and its cost is not what this bench measures.
  });
  await app.listen({ port: 0, host: '127.0.0.1' });

  process.on('message', async (message) => {
    if (message === 'cpu') return process.send({ cpu: process.cpuUsage() });
    if (message !== 'stop') return;
    await app.close();
    await pool.end();
    process.exit(0);
  });
  process.send({ port: app.server.address().port });
}

main().catch((error) => {
  console.error('[svc] failed to start:', error);
  process.exit(1);
});
