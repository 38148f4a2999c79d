import type { FastifyBaseLogger } from 'fastify';
import type { Pool } from 'pg';
import { startWorkLoop, type WorkLoop } from '../db/work-loop.js';
import { isWhatsApp, type PlatformTarget, platformByStableId } from '../platforms/lookup.js';
import { SecretMissingError, type SecretResolver } from '../secrets/resolve.js';
import type { TurnMetrics } from '../turns/metrics.js';
import {
  type ClaimedDelivery,
  claimDelivery,
  forgetOldReceipts,
  OUTBOX_CHANNEL,
  reapLapsedDeliveries,
  settleDelivery,
} from './queue.js';
import { platformApiUrls, type SendOutcome, sendSlack, sendTelegram, sendWhatsApp } from './send.js';

export interface DeliveryWorkerOptions {
  pool: Pool;
  secrets: SecretResolver;
  env: Record<string, string | undefined>;
  log: FastifyBaseLogger;
  metrics?: TurnMetrics;
  /** Deliveries this process makes at once. */
  concurrency?: number;
  /** How long a claim holds; a send is given at most half of it. */
  leaseMs?: number;
  /** Attempts of one delivery before it fails for good. */
  maxAttempts?: number;
  /** The first wait after a failure, doubled at each one after (a platform's Retry-After wins). */
  backoffMs?: number;
  pollMs?: number;
  reapMs?: number;
}

const MAX_BACKOFF_MS = 5 * 60_000;

/** One delivery: the platform's config resolved now, the send, and what its answer means. */
async function deliver(options: DeliveryWorkerOptions, delivery: ClaimedDelivery, timeoutMs: number) {
  const platform = await platformByStableId(options.pool, delivery.stableId);
  if (!platform) {
    return { platform: null, result: failure(`the platform "${delivery.stableId}" no longer exists`, false) };
  }
  let sent: SendOutcome;
  try {
    sent = await send(options, platform, delivery, timeoutMs);
  } catch (error) {
    if (!(error instanceof SecretMissingError)) throw error;
    // An operator can set the secret: the delivery waits for it, within its attempts.
    sent = failure(`${error.message} (platform "${platform.stableId}")`, true);
  }
  return { platform, result: sent };
}

const failure = (detail: string, retryable: boolean): SendOutcome => ({
  ok: false,
  retryable,
  retryAfterMs: null,
  detail,
});

async function send(
  options: DeliveryWorkerOptions,
  platform: PlatformTarget,
  delivery: ClaimedDelivery,
  timeoutMs: number,
): Promise<SendOutcome> {
  const urls = platformApiUrls(options.env);
  const config = (await options.secrets.resolve(platform.org, platform.config)) as Record<string, string>;
  const to = delivery.replyTo;
  if (platform.type === 'team_chat') {
    return sendSlack(
      urls,
      { bot_token: config.bot_token ?? '' },
      { channel: to.channel ?? '', thread_ts: to.thread_ts },
      delivery.text,
      timeoutMs,
    );
  }
  if (isWhatsApp(platform)) {
    return sendWhatsApp(
      urls,
      { access_token: config.access_token ?? '', phone_number_id: config.phone_number_id ?? '' },
      { to: to.to ?? '' },
      delivery.text,
      timeoutMs,
    );
  }
  return sendTelegram(
    urls,
    { bot_token: config.bot_token ?? '' },
    { chat_id: to.chat_id ?? '' },
    delivery.text,
    timeoutMs,
  );
}

export interface DeliveryWorkers {
  /** Stops claiming and waits for the deliveries under way (each is bounded by its timeout). */
  close(): Promise<void>;
}

/**
 * The outbox's workers in one process: replies to chat platforms, delivered at least once, in
 * order within a conversation, retried with backoff. Like turns, found by polling and woken by
 * NOTIFY, leased and fenced, so that any number of processes may run them on one database.
 */
export async function startDeliveryWorkers(options: DeliveryWorkerOptions): Promise<DeliveryWorkers> {
  const concurrency = options.concurrency ?? 4;
  const leaseMs = options.leaseMs ?? 30_000;
  const maxAttempts = options.maxAttempts ?? 8;
  const backoffMs = options.backoffMs ?? 1000;
  const timeoutMs = Math.min(10_000, leaseMs / 2);
  let running = 0;
  let closing = false;
  // Set once listening; a delivery ends (and wakes it) only after that.
  let loop: WorkLoop | null = null;
  const under = new Set<Promise<void>>();

  const settle = async (delivery: ClaimedDelivery) => {
    const { result, platform } = await deliver(options, delivery, timeoutMs);
    const kind = platform ? (isWhatsApp(platform) ? 'whatsapp' : platform.type) : 'unknown';
    if (result.ok) {
      await settleDelivery(options.pool, delivery, {
        delivered: true,
        platformMessageId: result.platformMessageId,
      });
      options.metrics?.delivery(kind, 'delivered');
      return;
    }
    const again = result.retryable && delivery.attempts < maxAttempts;
    const retryInMs = again
      ? Math.min(MAX_BACKOFF_MS, Math.max(result.retryAfterMs ?? 0, backoffMs * 2 ** (delivery.attempts - 1)))
      : null;
    await settleDelivery(options.pool, delivery, {
      delivered: false,
      retryInMs,
      error: { code: 'delivery_failed', detail: result.detail },
    });
    options.metrics?.delivery(kind, again ? 'retried' : 'failed');
    options.log.warn(
      {
        deliveryId: delivery.id,
        messageId: delivery.messageId,
        attempt: delivery.attempts,
        retryInMs,
        why: result.detail,
      },
      again
        ? 'a delivery to a chat platform failed; retrying'
        : 'a delivery to a chat platform failed for good',
    );
  };

  const fill = async () => {
    while (!closing && running < concurrency) {
      const delivery = await claimDelivery(options.pool, leaseMs);
      if (!delivery) return;
      running++;
      const work = settle(delivery)
        .catch((error) =>
          // Left to the reaper: the lease lapses and the delivery is tried again (bounded attempts).
          options.log.error({ err: error, deliveryId: delivery.id }, 'a delivery failed unexpectedly'),
        )
        .finally(() => {
          running--;
          under.delete(work);
          loop?.wake();
        });
      under.add(work);
    }
  };
  // Also how a delivery waiting for its retry time is found again: the poll.
  loop = await startWorkLoop({
    pool: options.pool,
    log: options.log,
    channel: OUTBOX_CHANNEL,
    what: 'replies to deliver',
    pollMs: options.pollMs ?? 500,
    fill,
  });
  const reaper = setInterval(
    () => {
      reapLapsedDeliveries(options.pool, maxAttempts)
        .then((reaped) => {
          if (reaped > 0) loop?.wake();
        })
        .catch((error) => options.log.warn({ err: error }, 'could not reap lapsed deliveries'));
      forgetOldReceipts(options.pool).catch((error) =>
        options.log.warn({ err: error }, 'could not forget old webhook receipts'),
      );
    },
    (options.reapMs ?? Math.min(5000, leaseMs / 2)) * (0.75 + Math.random() / 2),
  );
  return {
    async close() {
      closing = true;
      clearInterval(reaper);
      await loop?.close();
      await Promise.all(under);
    },
  };
}
