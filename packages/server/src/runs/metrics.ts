import client from 'prom-client';

/** What a process's run workers record (`/metrics` of `svc server`, and of `svc worker --metrics-port`). */
export interface RunMetrics {
  ended(runType: string, status: string, seconds: number): void;
  items(stored: number, rejected: number): void;
}

export function createRunMetrics(registry: client.Registry): RunMetrics {
  const runs = new client.Counter({
    name: 'svc_runs_total',
    help: 'Connector runs this process ended, by type and status (completed, failed, timeout, cancelled, lost: its lease lapsed)',
    labelNames: ['run_type', 'status'],
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: 'svc_run_duration_seconds',
    help: 'From a worker claiming a run to its end, by type',
    labelNames: ['run_type'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
    registers: [registry],
  });
  const items = new client.Counter({
    name: 'svc_run_items_total',
    help: 'Event envelopes from syncs, stored or rejected (an unknown kind, metadata against its schema)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  return {
    ended(runType, status, seconds) {
      runs.inc({ run_type: runType, status });
      duration.observe({ run_type: runType }, seconds);
    },
    items(stored, rejected) {
      if (stored > 0) items.inc({ outcome: 'stored' }, stored);
      if (rejected > 0) items.inc({ outcome: 'rejected' }, rejected);
    },
  };
}
