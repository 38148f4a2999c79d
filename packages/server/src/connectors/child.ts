/**
 * The child process that connector code runs in (sandbox.ts starts it): it imports the connector
 * and answers one task over IPC. Nothing of the server is loaded here, and its environment holds
 * no secret of the server's.
 */

import { pathToFileURL } from 'node:url';
import { findConnector } from '@svc/connector-sdk';

interface Task {
  task: 'definition';
  /** A bundled package (its module name), or a file of the connector's source. */
  module: { package: string } | { file: string; name: string };
}

async function load(module: Task['module']) {
  const where = 'package' in module ? module.package : module.name;
  const exports = (await import(
    'package' in module ? module.package : pathToFileURL(module.file).href
  )) as Record<string, unknown>;
  const connector = findConnector(exports, where);
  if (!connector) {
    throw new Error(
      `${where}: exports no connector; export default a Connector (a class extending it, an instance, or defineConnector(...))`,
    );
  }
  return connector;
}

process.once('message', async (message: Task) => {
  try {
    const connector = await load(message.module);
    // Through JSON, as the server will keep it: a definition that does not survive it is refused.
    process.send?.({ ok: true, definition: JSON.parse(JSON.stringify(connector.definition ?? null)) });
  } catch (error) {
    process.send?.({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
