/** Finds the connector a module exports, whatever its export style: for the CLI and the server. */

import { type Connector, isConnector, missingConnectorMembers } from './connector.js';

/**
 * The default export, else an export named `connector`, else the only connector exported; each may
 * be a connector or a class of one (constructed with no arguments). Undefined when the module
 * exports none; throws, saying why, for a class that cannot be constructed or lacks a member.
 * `where` names the module in messages (a file path).
 */
export function findConnector(module: Record<string, unknown>, where: string): Connector | undefined {
  return pick([module.default, module.connector, ...Object.values(module)], where);
}

/**
 * The first candidate that is a connector. A class is constructed only when no instance comes before
 * it, so a module exporting both its class (whose constructor may need options) and an instance
 * works; other exported functions are none of our business.
 */
function pick(candidates: unknown[], where: string): Connector | undefined {
  for (const candidate of candidates) {
    if (isConnector(candidate)) return candidate;
    if (typeof candidate !== 'function' || !looksLikeConnectorClass(candidate)) continue;
    let instance: unknown;
    try {
      instance = new (candidate as new () => unknown)();
    } catch (error) {
      throw new Error(
        `${where}: constructing ${candidate.name || 'its connector class'} without arguments failed (${(error as Error).message}); export an instance instead`,
      );
    }
    if (isConnector(instance)) return instance;
    // Meant as a connector, but incomplete: say what it lacks rather than that there is none.
    const missing = missingConnectorMembers(instance);
    throw new Error(
      `${where}: ${candidate.name || 'its connector class'} is not a complete connector: it has no ${missing
        .map((name) => (name === 'definition' ? '`definition`' : `\`${name}(ctx)\` method`))
        .join(', no ')}. A connector has \`definition\`, \`sync(ctx)\` and \`execute(ctx)\` ` +
        '(a connector without actions returns { success: false, error } from execute, or extends ConnectorRuntime, whose default does)',
    );
  }
  return undefined;
}

/** A class with a connector's methods on its prototype (or one extending the SDK's Connector). */
function looksLikeConnectorClass(candidate: { prototype?: Record<string, unknown> }): boolean {
  const prototype = candidate.prototype;
  return typeof prototype?.sync === 'function' || typeof prototype?.execute === 'function';
}
