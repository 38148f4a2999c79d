/** The rss connector as the platform sees it: one feed, `items`, and no actions. */

import { type ConnectorDefinition, configSchema, outputSchema, z } from '@svc/connector-sdk';
import { ITEM_KIND } from './envelope.js';

export const VERSION = '0.1.0';

/** Also parses `ctx.config`, since a server may hand over what no harness checked. */
export const configShape = z.object({
  url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    // Also as a pattern, since JSON Schema's "uri" format takes any scheme.
    .regex(/^https?:\/\//, 'must be an http(s) URL')
    .describe('The address of the RSS or Atom feed itself, e.g. https://example.com/feed.xml'),
  maxItems: z
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('At most this many new items per sync, the newest; older new ones are skipped for good'),
});

export type RssConfig = z.infer<typeof configShape>;

const metadataShape = z.object({
  feed_title: z.string().optional().describe("The feed's own title"),
  feed_link: z.string().optional().describe('The site the feed belongs to'),
  categories: z.array(z.string()).describe('RSS categories, Atom category labels or terms'),
  updated_at: z
    .string()
    .optional()
    .describe('Atom: when the entry was last edited, if after it was published'),
  date_estimated: z
    .literal(true)
    .optional()
    .describe("The item has no usable date: occurred_at is the feed's last change or the sync's time"),
});

export const definition: ConnectorDefinition = {
  key: 'rss',
  name: 'RSS and Atom',
  description: 'Items of a public RSS 2.0, RSS 1.0 or Atom feed, as text events.',
  version: VERSION,
  authSchema: { methods: [{ type: 'none' }] },
  feeds: {
    items: {
      key: 'items',
      name: 'Feed items',
      description:
        'Each new item of the feed, oldest first; a re-sync emits only items newer than the last one.',
      displayNameTemplate: 'Feed {url}',
      configSchema: configSchema(configShape),
      eventKinds: {
        [ITEM_KIND]: {
          description: 'An item of the feed: its text with HTML stripped, title, link, author and date.',
          metadataSchema: outputSchema(metadataShape),
        },
      },
    },
  },
};
