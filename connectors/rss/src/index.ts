/**
 * @svc/connector-rss: the items of a public RSS or Atom feed as events. The default export is
 * what `svc connector sync connectors/rss/src/index.ts --feed items` loads.
 */

import { RssConnector } from './connector.js';

export type { RssCheckpoint } from './checkpoint.js';
export { READ_ONLY, RssConnector, type RssOptions } from './connector.js';
export { configShape, definition, type RssConfig } from './definition.js';

export const rssConnector = new RssConnector();
export default rssConnector;
