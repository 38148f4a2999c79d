// CPU time per accepted request, the figure that holds on a busy machine: a server's own (its child
// process) and PostgreSQL's (the backends of the run's database, read from /proc; Linux only).
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU ms used so far by the PostgreSQL backends connected to `database`; null without /proc. */
export function postgresCpuMs(database) {
  let total = 0;
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!args.startsWith('postgres: ') || !args.includes(` ${database} `)) continue;
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      } catch {
        // Gone meanwhile, or not ours to read.
      }
    }
  } catch {
    return null;
  }
  return total;
}

/** A snapshot of the server's CPU (asked of its child process) and PostgreSQL's, in ms. */
export async function cpuNow(server, database) {
  const { cpu } = await server.ask({ cpu: true });
  return { server: (cpu.user + cpu.system) / 1000, postgres: postgresCpuMs(database) };
}

/** CPU ms per request between two snapshots. */
export const cpuPer = (before, after, requests) => ({
  server: (after.server - before.server) / requests,
  postgres: after.postgres === null ? null : (after.postgres - before.postgres) / requests,
});
