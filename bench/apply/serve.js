// Child process that serves svc, as `svc server --no-workers` builds it (`startSvc` from the built
// server, every default of a deployment), on the run's database. It runs in its own process so
// that the server's work never shares an event loop with the CLI being timed; run.js forks this
// file, reads the port from an IPC message, and sends 'stop' when the run is over.
//
// Settings come from the environment that run.js sets:
//   BENCH_DB_URL        the run's database
//   BENCH_POOL_SIZE     pg Pool size
//   BENCH_ADMIN         the deployment admin password, used once to create the API token
//   BENCH_SECRET_ENV    JSON: the variables the server resolves platform secret references in
import { randomBytes } from 'node:crypto';
import { startSvc } from '../../packages/server/dist/index.js';

async function main() {
  const svc = await startSvc({
    // The platforms' references resolve from these variables, as on an embedded deployment.
    env: JSON.parse(process.env.BENCH_SECRET_ENV || '{}'),
    embedded: true,
    databaseUrl: process.env.BENCH_DB_URL,
    encryptionKey: randomBytes(32),
    poolSize: Number(process.env.BENCH_POOL_SIZE),
    // No logger: logging is a deployment choice, and its cost is not what this bench measures.
    http: { adminPassword: process.env.BENCH_ADMIN },
    // svc apply talks to the API only.
    turns: false,
    runs: false,
  });
  const { app } = svc.http;
  await app.listen({ port: 0, host: '127.0.0.1' });

  process.on('message', async (message) => {
    if (message === 'cpu') return process.send({ cpu: process.cpuUsage() });
    if (message !== 'stop') return;
    await svc.close();
    process.exit(0);
  });
  process.send({ port: app.server.address().port });
}

main().catch((error) => {
  console.error('[svc] failed to start:', error);
  process.exit(1);
});
