// CPU time per unit of work, the figure that holds on a busy machine: a server's own (its process)
// and PostgreSQL's (the backends of the run's database, read from /proc; Linux only).
import { readdirSync, readFileSync } from 'node:fs';
import { printFigure } from './environment.js';

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

/** CPU ms a process has used so far (0 for one that is gone, or without /proc). */
export function processCpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
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

/**
 * The servers in turn, `rounds` times each (after a warm-up each unless `warmUp` is false): the mean
 * rate and p99 of `run(server)` (an autocannon summary: `{reqPerSec, p99, answered}`), and the CPU
 * ms each answered request cost the server's process and PostgreSQL's backends of `database`.
 */
export async function measureInTurns(servers, { database, rounds, warmUp, run }) {
  const runs = servers.map(() => []);
  // The warm-up's requests count for the benches' none-lost checks, not for the figures.
  if (warmUp) for (const server of servers) await run(server);
  const cpu = servers.map(() => ({ server: 0, postgres: 0, requests: 0 }));
  for (let round = 0; round < rounds; round++) {
    for (const [i, server] of servers.entries()) {
      const before = await cpuNow(server, database);
      const result = await run(server);
      const used = cpuPer(before, await cpuNow(server, database), 1);
      cpu[i].server += used.server;
      cpu[i].postgres = used.postgres === null ? null : cpu[i].postgres + used.postgres;
      cpu[i].requests += result.answered;
      runs[i].push(result);
    }
  }
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  return runs.map((list, i) => ({
    cpuServer: cpu[i].server / cpu[i].requests,
    cpuPostgres: cpu[i].postgres === null ? null : cpu[i].postgres / cpu[i].requests,
    reqPerSec: mean(list.map((r) => r.reqPerSec)),
    p99: mean(list.map((r) => r.p99)),
    rates: list.map((r) => r.reqPerSec.toFixed(0)).join(', '),
  }));
}

/** The accept figures of svc against its durable baseline (`measureInTurns`' answers), for `what` ("message"). */
export function printAcceptFigures(what, svc, durable) {
  printFigure(`accepted ${what}s/s (svc vs durable)`, svc.reqPerSec.toFixed(0), durable.reqPerSec.toFixed(0));
  printFigure('accepted p99 ms', svc.p99.toFixed(0), durable.p99.toFixed(0));
  printFigure('ratio svc/durable', (svc.reqPerSec / durable.reqPerSec).toFixed(2));
  const cpu = (run) =>
    `${run.cpuServer.toFixed(2)} + ${run.cpuPostgres === null ? '?' : run.cpuPostgres.toFixed(2)}`;
  printFigure(`CPU ms per accepted ${what}, server + PostgreSQL`, cpu(svc), cpu(durable));
}
