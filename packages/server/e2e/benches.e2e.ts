import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';

/**
 * Benches never rot: every folder of bench/ with a run.js runs at its quick size (`--quick`, and
 * BENCH_QUICK=1 for a bench that reads only that), on the built workspace, as a child process. A
 * bench fails here by exiting non-zero (a failed step or check, a thrown error), never by a figure:
 * figures are for people, and a quick run's mean nothing.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const benches = readdirSync(join(root, 'bench'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'bench', entry.name, 'run.js')))
  .map((entry) => entry.name)
  .sort();

/** Longest a quick run may take; past it the bench gets SIGINT, which runs its cleanup. */
const QUICK_RUN_MS = 150_000;

function runQuick(name: string): Promise<{ code: number | null; signal: string | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join('bench', name, 'run.js'), '--quick'], {
      cwd: root,
      env: {
        ...process.env,
        BENCH_QUICK: '1',
        // The run's PostgreSQL: each bench makes its own database in it and drops it.
        BENCH_DATABASE_URL: inject('adminDatabaseUrl'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: QUICK_RUN_MS,
      killSignal: 'SIGINT',
    });
    const output: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) =>
      resolve({ code, signal, output: Buffer.concat(output).toString() }),
    );
  });
}

describe('every bench at its quick size', () => {
  it('finds the benches in bench/', () => {
    expect(benches).toContain('api');
  });

  for (const name of benches) {
    it(
      `node bench/${name}/run.js --quick`,
      async () => {
        const started = Date.now();
        const { code, signal, output } = await runQuick(name);
        if (code !== 0) {
          const how = signal ? `was stopped by ${signal}` : `exited with code ${code}`;
          const took = ((Date.now() - started) / 1000).toFixed(0);
          const tail = output.split('\n').slice(-60).join('\n');
          throw new Error(`node bench/${name}/run.js --quick ${how} after ${took} s:\n${tail}`);
        }
      },
      QUICK_RUN_MS + 30_000,
    );
  }
});
