/**
 * What the server takes from a child, checked on arrival (DESIGN.md section 10, layer 3): the
 * child runs connector code, which may write to the channel whatever it likes. A message that is
 * not one of the protocol's ends the run at once, saying what was wrong; envelopes are sorted
 * again here (envelopes.ts); a checkpoint and a log line are bounded in size before they are kept.
 */
import type { LogEntry } from '@svc/connector-sdk';
import { z } from 'zod';
import { authResultSchema, checkArtifact, SIGNAL_NAME } from '../auth-runs/artifacts.js';
import { detached, sortEnvelopes } from './envelopes.js';
import { type ChildMessage, MAX_BATCH_ITEMS, type RejectedItem, type SyncTask } from './protocol.js';

/** The largest checkpoint kept, as JSON: a cursor, not the data. */
export const MAX_CHECKPOINT_BYTES = 256 * 1024;
const MAX_LOG_MESSAGE = 2000;
const MAX_LOG_FIELDS_BYTES = 4000;

const seq = z.int().min(1).max(Number.MAX_SAFE_INTEGER);
const object = z.record(z.string(), z.unknown());
const rejected = z
  .array(z.object({ origin_id: z.string().nullable(), reason: z.string() }))
  .max(MAX_BATCH_ITEMS)
  .transform((items): RejectedItem[] =>
    items.map((item) => ({
      origin_id: item.origin_id === null ? null : detached(item.origin_id, 500),
      reason: detached(item.reason, 2000),
    })),
  );
const events = z.array(z.unknown()).max(MAX_BATCH_ITEMS);
const checkpoint = object
  .nullable()
  .refine(
    (value) => value === null || Buffer.byteLength(JSON.stringify(value)) <= MAX_CHECKPOINT_BYTES,
    `a checkpoint may be at most ${MAX_CHECKPOINT_BYTES / 1024} KB as JSON: keep a cursor in it, not data`,
  );

const messageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('events'), seq, events, rejected }),
  z.object({ type: z.literal('checkpoint'), seq, checkpoint }),
  z.object({ type: z.literal('log'), entry: z.object({ level: z.string(), msg: z.unknown() }).loose() }),
  z.object({
    type: z.literal('synced'),
    events,
    rejected,
    checkpoint: checkpoint.optional(),
    auth_update: object.nullable(),
  }),
  z.object({
    type: z.literal('executed'),
    result: z.object({ success: z.boolean(), output: object.nullish(), error: z.string().nullish() }),
  }),
  z.object({
    type: z.literal('failed'),
    error: z.string(),
    credentialsRefused: z.boolean().optional(),
    forbidden: z.boolean().optional(),
  }),
  // Interactive auth: the artifact is checked on its own below, to say what was wrong with it.
  z.object({ type: z.literal('artifact'), seq, artifact: z.unknown() }),
  z.object({
    type: z.literal('await'),
    seq,
    name: z.string().regex(SIGNAL_NAME, 'a signal name: 1 to 64 letters, digits, _ . -'),
    timeoutMs: z.number().positive().max(2_147_483_647).nullable(),
  }),
  z.object({ type: z.literal('authenticated'), result: authResultSchema }),
]);

/**
 * The child's message as the protocol's, its envelopes sorted again against the feed's kinds, or
 * an Error saying what was wrong with it.
 */
export function parseChildMessage(raw: unknown, kinds: SyncTask['eventKinds']): ChildMessage | Error {
  const parsed = messageSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return new Error(
      `the connector's process sent a message the server does not take (${issue?.path.join('.') || 'message'}: ${issue?.message})`,
    );
  }
  const message = parsed.data;
  switch (message.type) {
    case 'events':
    case 'synced': {
      const sorted = sortEnvelopes(message.events, kinds);
      return {
        ...message,
        events: sorted.events,
        rejected: [...message.rejected, ...sorted.rejected],
      } as ChildMessage;
    }
    case 'log':
      return { type: 'log', entry: boundedEntry(message.entry) };
    case 'executed':
      return {
        type: 'executed',
        result: {
          success: message.result.success,
          ...(message.result.output ? { output: message.result.output } : {}),
          ...(message.result.error ? { error: detached(message.result.error, 4000) } : {}),
        },
      };
    case 'failed':
      return { ...message, error: detached(message.error, 4000) };
    case 'artifact': {
      const artifact = checkArtifact(message.artifact);
      return artifact instanceof Error ? artifact : { type: 'artifact', seq: message.seq, artifact };
    }
    case 'authenticated': {
      const { credentials, metadata } = message.result;
      return { type: 'authenticated', result: metadata ? { credentials, metadata } : { credentials } };
    }
    default:
      return message as ChildMessage;
  }
}

/** A log line cut to what the run's log keeps, on arrival: a 150 MB line costs nothing more. */
function boundedEntry(entry: { level: string; msg: unknown } & Record<string, unknown>): LogEntry {
  const { level, msg, time, connector: _connector, ...fields } = entry;
  const text = typeof msg === 'string' ? msg : String(JSON.stringify(msg) ?? '');
  const json = JSON.stringify(fields);
  return {
    level: (['debug', 'info', 'warn', 'error'].includes(level) ? level : 'info') as LogEntry['level'],
    time: typeof time === 'string' && !Number.isNaN(Date.parse(time)) ? time : new Date().toISOString(),
    msg:
      text.length > MAX_LOG_MESSAGE
        ? `${detached(text, MAX_LOG_MESSAGE)}… [${text.length - MAX_LOG_MESSAGE} more characters]`
        : text,
    connector: 'connector',
    ...(json.length > MAX_LOG_FIELDS_BYTES ? { truncated: detached(json, MAX_LOG_FIELDS_BYTES) } : fields),
  };
}
