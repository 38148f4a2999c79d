import client from 'prom-client';

/** What a process's workers record of the turns they run (`/metrics` of `svc server`). */
export interface TurnMetrics {
  ended(
    outcome: 'completed' | 'failed',
    seconds: number,
    answer?: { model: string; usage: Record<string, number | null>; firstTokenSeconds: number | null },
  ): void;
  abandoned(count: number): void;
  /** A delivery of a reply to a chat platform (outbox/): delivered, to be retried, or failed for good. */
  delivery(platform: string, outcome: 'delivered' | 'retried' | 'failed'): void;
}

export function createTurnMetrics(registry: client.Registry): TurnMetrics {
  const turns = new client.Counter({
    name: 'svc_turns_total',
    help: 'Agent turns ended, by outcome (completed, failed, abandoned after its workers died)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'svc_turn_duration_seconds',
    help: 'From a worker taking a turn up to its end, by outcome',
    labelNames: ['outcome'],
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
    registers: [registry],
  });
  const firstToken = new client.Histogram({
    name: 'svc_turn_first_token_seconds',
    help: 'From a worker taking a turn up to the first text of the reply, by model',
    labelNames: ['model'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [registry],
  });
  const tokens = new client.Counter({
    name: 'svc_model_tokens_total',
    help: 'Tokens the providers reported, by model and direction (input, output)',
    labelNames: ['model', 'direction'],
    registers: [registry],
  });
  const deliveries = new client.Counter({
    name: 'svc_deliveries_total',
    help: 'Deliveries of replies to chat platforms, by platform and outcome (delivered, retried, failed)',
    labelNames: ['platform', 'outcome'],
    registers: [registry],
  });
  return {
    delivery(platform, outcome) {
      deliveries.inc({ platform, outcome });
    },
    ended(outcome, seconds, answer) {
      turns.inc({ outcome });
      latency.observe({ outcome }, seconds);
      if (!answer) return;
      if (answer.firstTokenSeconds !== null)
        firstToken.observe({ model: answer.model }, answer.firstTokenSeconds);
      const { inputTokens, outputTokens } = answer.usage;
      if (inputTokens) tokens.inc({ model: answer.model, direction: 'input' }, inputTokens);
      if (outputTokens) tokens.inc({ model: answer.model, direction: 'output' }, outputTokens);
    },
    abandoned(count) {
      turns.inc({ outcome: 'abandoned' }, count);
    },
  };
}
