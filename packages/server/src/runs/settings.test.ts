import { describe, expect, it } from 'vitest';
import { parseEgressAllow } from '../egress/policy.js';
import { DEFAULT_RUN_LIMITS, runWorkerSettings } from './worker.js';

/** What an operator's environment makes of the run workers, and what it refuses. */
describe('runWorkerSettings', () => {
  it('takes the defaults when nothing is set, and each variable when it is', () => {
    expect(runWorkerSettings({})).toEqual({
      limits: { ...DEFAULT_RUN_LIMITS, egress: parseEgressAllow(undefined), unsandboxedSource: false },
    });
    expect(
      runWorkerSettings({
        SVC_RUN_CONCURRENCY: '8',
        SVC_RUN_LEASE_MS: '20000',
        SVC_RUN_TIMEOUT_MS: '60000',
        SVC_RUN_MEMORY_MB: '256',
        SVC_RUN_RETENTION_DAYS: '7',
        SVC_EGRESS_ALLOW: '10.0.0.0/8',
        SVC_CONNECTOR_SOURCE_INSTALLS: 'unsandboxed',
      }),
    ).toEqual({
      concurrency: 8,
      leaseMs: 20_000,
      retentionDays: 7,
      limits: {
        timeoutMs: 60_000,
        memoryMb: 256,
        egress: parseEgressAllow('10.0.0.0/8'),
        unsandboxedSource: true,
      },
    });
  });

  it('reads 0 as none: no run workers in this process, runs kept forever', () => {
    expect(runWorkerSettings({ SVC_RUN_CONCURRENCY: '0', SVC_RUN_RETENTION_DAYS: '0' })).toMatchObject({
      concurrency: 0,
      retentionDays: 0,
    });
  });

  it('refuses what is not a whole number, naming the variable', () => {
    expect(() => runWorkerSettings({ SVC_RUN_RETENTION_DAYS: '30d' })).toThrow(
      'SVC_RUN_RETENTION_DAYS must be a whole number above 0, not "30d"',
    );
    expect(() => runWorkerSettings({ SVC_RUN_MEMORY_MB: '-1' })).toThrow(/SVC_RUN_MEMORY_MB/);
  });
});
