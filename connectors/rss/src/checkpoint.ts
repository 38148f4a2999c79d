/**
 * The checkpoint: the newest item date seen, and which items carry that date. A date alone would
 * lose an item published in the same second as the last one synced; IDs alone would grow forever.
 */

import { type Checkpoint, log, withoutQuery, z } from '@svc/connector-sdk';

const checkpointShape = z.object({
  /** The feed it belongs to: another url starts over. */
  url: z.string(),
  /** The newest date of a dated item synced so far, or null before any. */
  newest: z.iso.datetime({ offset: true }).nullable(),
  /** The IDs of the items dated exactly `newest`. */
  seen: z.array(z.string()),
  /** The IDs of the items without a usable date in the last document: they are tracked by ID alone. */
  undated: z.array(z.string()),
  etag: z.string().optional(),
  lastModified: z.string().optional(),
});

export type RssCheckpoint = z.infer<typeof checkpointShape>;

/** Null when there is nothing to continue from: a first sync, another url, or a shape not ours. */
export function readCheckpoint(raw: Checkpoint | null, url: string): RssCheckpoint | null {
  if (raw === null) return null;
  const parsed = checkpointShape.safeParse(raw);
  if (!parsed.success) {
    log.warn('the checkpoint is not one this connector wrote; syncing as if for the first time', {
      problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    });
    return null;
  }
  if (parsed.data.url !== url) {
    log.info('the feed url changed since the last sync; syncing as if for the first time', {
      url: withoutQuery(url),
    });
    return null;
  }
  return parsed.data;
}
