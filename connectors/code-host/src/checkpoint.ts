/**
 * Where a sync left off. The listing is ordered by `updated_at` ascending, so "everything up to the
 * newest `updated_at` seen" is a position. But `updated_at` has whole seconds, and several items can
 * share one: an item updated in the very second of the checkpoint, after the sync read that second,
 * would be lost by asking for "after the checkpoint", and the ones already read would come again by
 * asking for "from the checkpoint". So the checkpoint keeps the numbers of the items already emitted
 * at that second, and the next sync asks from it, skipping exactly those.
 */

import type { Checkpoint } from '@svc/connector-sdk';
import type { Item } from './items.js';

/** A checkpoint belongs to one repository and state filter; another one starts over. */
export type Scope = {
  repo: string;
  state: string;
};

export interface Cursor {
  /** Epoch ms of the newest `updated_at` seen. */
  updatedSince: number;
  /** Numbers of the items seen with exactly that `updated_at`. */
  seenAtUpdatedSince: ReadonlySet<number>;
}

export type CodeHostCheckpoint = Scope & { updatedSince: string; seenAtUpdatedSince: number[] };

export function toCheckpoint(cursor: Cursor | null, scope: Scope): CodeHostCheckpoint | null {
  if (!cursor) return null;
  return {
    ...scope,
    updatedSince: new Date(cursor.updatedSince).toISOString(),
    seenAtUpdatedSince: [...cursor.seenAtUpdatedSince].sort((a, b) => a - b),
  };
}

/** The cursor a checkpoint stands for, or null (with the reason) when the sync must start over. */
export function readCheckpoint(
  checkpoint: Checkpoint | null,
  scope: Scope,
): { cursor: Cursor | null; reason?: string } {
  if (!checkpoint) return { cursor: null };
  const { repo, state, updatedSince, seenAtUpdatedSince } = checkpoint;
  const at = typeof updatedSince === 'string' ? Date.parse(updatedSince) : Number.NaN;
  const seen = Array.isArray(seenAtUpdatedSince) ? seenAtUpdatedSince : null;
  if (Number.isNaN(at) || !seen?.every(Number.isInteger)) {
    return { cursor: null, reason: 'the checkpoint is not one this connector wrote' };
  }
  if (repo !== scope.repo || state !== scope.state) {
    return { cursor: null, reason: `the checkpoint is of ${repo} (state ${state}), not of this feed's` };
  }
  return { cursor: { updatedSince: at, seenAtUpdatedSince: new Set(seen as number[]) } };
}

/** Whether the item is past the cursor: newer, or at its second and not seen there yet. */
export function isPast(cursor: Cursor | null, item: Item): boolean {
  if (!cursor) return true;
  const at = updatedAt(item);
  if (at !== cursor.updatedSince) return at > cursor.updatedSince;
  return !cursor.seenAtUpdatedSince.has(item.number);
}

/** The cursor once `item` has been dealt with. Never moves back, whatever order items come in. */
export function advance(cursor: Cursor | null, item: Item): Cursor {
  const at = updatedAt(item);
  if (!cursor || at > cursor.updatedSince)
    return { updatedSince: at, seenAtUpdatedSince: new Set([item.number]) };
  if (at < cursor.updatedSince || cursor.seenAtUpdatedSince.has(item.number)) return cursor;
  return { updatedSince: at, seenAtUpdatedSince: new Set([...cursor.seenAtUpdatedSince, item.number]) };
}

/**
 * The `since` to ask with: one second before the cursor. GitHub's `since` includes its own second, but
 * a compatible server that excludes it would otherwise hide the ties; what comes back early is skipped.
 */
export function sinceParam(updatedSince: number | undefined): string | undefined {
  return updatedSince === undefined ? undefined : new Date(updatedSince - 1000).toISOString();
}

export const updatedAt = (item: Item): number => Date.parse(item.updated_at);
