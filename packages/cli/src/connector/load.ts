/** Loads a connector from a file as `svc connector` needs it: TypeScript or JavaScript, any export style. */

import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Connector, isConnector, missingConnectorMembers } from '@svc/connector-sdk';

/**
 * Takes the default export, else an export named `connector`, else the only connector exported;
 * each may be a connector or a class of one (constructed with no arguments).
 */
export async function loadConnector(file: string): Promise<Connector> {
  const path = resolve(file);
  try {
    await access(path);
  } catch {
    throw new Error(`${file}: no such file; give the path of a module that exports a connector`);
  }
  const module = await importModule(path);
  const found = pick([module.default, module.connector, ...Object.values(module)], file);
  if (!found) {
    throw new Error(
      `${file}: exports no connector; export default a Connector (a class extending it, an instance, or defineConnector(...))`,
    );
  }
  return found;
}

/** TypeScript through tsx, so an author runs the file they are editing without building it. */
async function importModule(path: string): Promise<Record<string, unknown>> {
  if (/\.[cm]?tsx?$/.test(path)) {
    const { tsImport } = await import('tsx/esm/api');
    return (await tsImport(pathToFileURL(path).href, import.meta.url)) as Record<string, unknown>;
  }
  return (await import(pathToFileURL(path).href)) as Record<string, unknown>;
}

/**
 * The first candidate that is a connector. A class is constructed only when no instance comes before
 * it, so a module exporting both its class (whose constructor may need options) and an instance
 * works; other exported functions are none of our business.
 */
function pick(candidates: unknown[], file: string): Connector | undefined {
  for (const candidate of candidates) {
    if (isConnector(candidate)) return candidate;
    if (typeof candidate !== 'function' || !looksLikeConnectorClass(candidate)) continue;
    let instance: unknown;
    try {
      instance = new (candidate as new () => unknown)();
    } catch (error) {
      throw new Error(
        `${file}: constructing ${candidate.name || 'its connector class'} without arguments failed (${(error as Error).message}); export an instance instead`,
      );
    }
    if (isConnector(instance)) return instance;
    // Meant as a connector, but incomplete: say what it lacks rather than that there is none.
    const missing = missingConnectorMembers(instance);
    throw new Error(
      `${file}: ${candidate.name || 'its connector class'} is not a complete connector: it has no ${missing
        .map((name) => (name === 'definition' ? '`definition`' : `\`${name}(ctx)\` method`))
        .join(', no ')}. A connector has \`definition\`, \`sync(ctx)\` and \`execute(ctx)\` ` +
        '(a connector without actions returns { success: false, error } from execute)',
    );
  }
  return undefined;
}

/** A class with a connector's methods on its prototype (or one extending the SDK's Connector). */
function looksLikeConnectorClass(candidate: { prototype?: Record<string, unknown> }): boolean {
  const prototype = candidate.prototype;
  return typeof prototype?.sync === 'function' || typeof prototype?.execute === 'function';
}
