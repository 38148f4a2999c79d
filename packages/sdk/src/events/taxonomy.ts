/**
 * Source-native item types for `EventEnvelope.origin_type`. Connectors that pick from this list let
 * agents and queries ask for "all issues" or "all messages" without knowing which source said what; a
 * connector may still write a type of its own when none of these fits.
 *
 * Name the item as the source's users would, in the singular and snake_case: a GitHub pull request is a
 * `pull_request`, a Slack message a `message`, a calendar entry an `event`.
 */
export const SOURCE_NATIVE_EVENT_TYPES = [
  // Social and community content
  'post',
  'comment',
  'reply',
  'reaction',
  'thread',
  'discussion',
  // Conversations
  'message',
  'email',
  'call',
  'meeting',
  // Code hosting
  'issue',
  'pull_request',
  'review',
  'commit',
  'release',
  // Published media and files
  'article',
  'video',
  'image',
  'audio',
  'document',
  'page',
  'file',
  // Planning and people
  'event',
  'task',
  'note',
  'contact',
] as const;

export type SourceNativeEventType = (typeof SOURCE_NATIVE_EVENT_TYPES)[number];

const KNOWN: ReadonlySet<string> = new Set(SOURCE_NATIVE_EVENT_TYPES);

/**
 * Whether `value` is one of `SOURCE_NATIVE_EVENT_TYPES`, exactly: `Post` or `pull-request` are not, so a
 * connector finds out in its tests rather than writing a type no query asks for.
 *
 * @example isSourceNativeEventType('pull_request') // true
 * @example isSourceNativeEventType('Pull Request') // false
 */
export function isSourceNativeEventType(value: unknown): value is SourceNativeEventType {
  return typeof value === 'string' && KNOWN.has(value);
}
