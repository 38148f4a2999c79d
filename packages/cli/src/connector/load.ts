/** Loads a connector from a file as `svc connector` needs it: TypeScript or JavaScript, any export style. */

import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Connector, findConnector } from '@svc/connector-sdk';

/** The connector the file exports (see the SDK's `findConnector` for which one). */
export async function loadConnector(file: string): Promise<Connector> {
  const path = resolve(file);
  try {
    await access(path);
  } catch {
    throw new Error(`${file}: no such file; give the path of a module that exports a connector`);
  }
  const module = await importModule(path);
  const found = findConnector(module, file);
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
