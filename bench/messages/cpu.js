// CPU time per accepted request, the figure that holds on a busy machine: a server's own (its child
// process) and PostgreSQL's (the backends of the run's database, read from /proc; Linux only).
import { readdirSync, readFileSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/**
 * CPU ms used so far by each PostgreSQL backend connected to `database`, by pid; null without
 * /proc. Backends come and go (a pool closes idle connections): compare by pid (`cpuPer`).
 */
export function postgresCpuMs(database) {
  const used = new Map();
  try {
    for (const pid of readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (!args.startsWith('postgres: ') || !args.includes(` ${database} `)) continue;
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
        used.set(pid, (Number(fields[11]) + Number(fields[12])) * TICK_MS);
      } catch {
        // Gone meanwhile, or not ours to read.
      }
    }
  } catch {
    return null;
  }
  return used;
}

/** A snapshot of the server's CPU (asked of its child process) and PostgreSQL's, in ms. */
export async function cpuNow(server, database) {
  const { cpu } = await server.ask({ cpu: true });
  return { server: (cpu.user + cpu.system) / 1000, postgres: postgresCpuMs(database) };
}

/**
 * CPU ms per request between two snapshots. A backend that started between them counts whole; one
 * that ended between them is not counted (a pool ends only connections idle for seconds).
 */
export function cpuPer(before, after, requests) {
  let postgres = null;
  if (before.postgres && after.postgres) {
    postgres = 0;
    for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  }
  return {
    server: (after.server - before.server) / requests,
    postgres: postgres === null ? null : postgres / requests,
  };
}
