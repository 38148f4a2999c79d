/**
 * A connector without code, as a file: a ConnectorDefinition with `openapiConfig` or `mcpConfig`
 * (its actions are generated on the server), written as JSON or YAML, with an optional top-level
 * `requiresApproval` (`{ actionKey: boolean }`) that overrides what the generator decides.
 *
 * The file is parsed here, not on the server, so that a syntax error names its line and column;
 * the parsed document is kept so that the server's problems, which name paths in the definition
 * (`/body/definition/feeds`), can be pointed back at the file's lines.
 */

import { readFile, stat } from 'node:fs/promises';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document as YamlDocument } from 'yaml';

/** What `svc connector install` takes as a definition rather than as code. */
export const isDefinitionFile = (path: string) => /\.(json|ya?ml)$/i.test(path);

/** The server's body limit for `POST /connectors` is 1 MiB; a definition with its spec inline counts. */
const DEFINITION_MAX_BYTES = 1024 * 1024;

/** The install body's definition part, and where each of its paths is in the file. */
export interface DefinitionFile {
  path: string;
  definition: Record<string, unknown>;
  requiresApproval?: Record<string, boolean>;
  /** `file:line:column` of a path into the definition (`['feeds', 'items']`), if the file has it. */
  locate(path: (string | number)[]): string | undefined;
}

export async function readDefinitionFile(path: string): Promise<DefinitionFile> {
  const text = await readText(path);
  const lines = new LineCounter();
  const json = /\.json$/i.test(path);
  // JSON.parse first for a .json file: YAML would accept what JSON does not (comments, single quotes).
  const parsed = json ? parseJson(path, text) : undefined;
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (!json && document.errors.length > 0) {
    throw new Error(
      [
        ...document.errors.map((error) => {
          const at = lines.linePos(error.pos[0]);
          return `${path}:${at.line}:${at.col}: ${error.message}`;
        }),
        `fix the YAML in ${path} and install it again`,
      ].join('\n'),
    );
  }
  const value = parsed ?? document.toJS({ maxAliasCount: 100 });
  const at = (node: unknown) => {
    const range = (node as { range?: [number, number] } | null)?.range;
    if (!range) return undefined;
    const { line, col } = lines.linePos(range[0]);
    return `${path}:${line}:${col}`;
  };
  if (!isObject(value)) {
    throw new Error(
      `${path}: holds ${describe(value)}, not a connector definition: write a mapping with key, name, version and openapiConfig or mcpConfig`,
    );
  }
  const { requiresApproval, ...definition } = value;
  // A .json file YAML cannot read (a rare JSON-only form) still installs; its lines go unnamed.
  const locate: DefinitionFile['locate'] = (keys) =>
    document.errors.length > 0 ? undefined : locateIn(document, keys, at);
  if (requiresApproval !== undefined) checkApprovals(path, requiresApproval, locate);
  return {
    path,
    definition,
    ...(requiresApproval === undefined
      ? {}
      : { requiresApproval: requiresApproval as Record<string, boolean> }),
    locate,
  };
}

/**
 * Where `keys` is: a mapping's key (the line an editor should jump to), a list's item; or, for a
 * path the file lacks (a missing field), the deepest place it has on the way there.
 */
function locateIn(
  document: YamlDocument,
  keys: (string | number)[],
  at: (node: unknown) => string | undefined,
): string | undefined {
  let node: unknown = document.contents;
  let found = at(node);
  for (const key of keys) {
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(key));
      if (!pair) break;
      found = at(pair.key) ?? found;
      next = pair.value;
    } else if (isSeq(node) && typeof key === 'number' && node.items[key]) {
      next = node.items[key];
      found = at(next) ?? found;
    } else break;
    node = next;
  }
  return found;
}

async function readText(path: string): Promise<string> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    throw new Error(
      error.code === 'ENOENT'
        ? `no file ${path}; give the path of the connector's definition (.json, .yaml or .yml)`
        : `cannot read ${path}: ${error.message}`,
    );
  });
  if (!info.isFile()) throw new Error(`${path} is not a file: give the connector's definition file`);
  if (info.size > DEFINITION_MAX_BYTES) {
    throw new Error(
      `${path} is over ${DEFINITION_MAX_BYTES / 1024} KiB, more than the server takes: give the OpenAPI description by openapiConfig.specUrl instead of inline`,
    );
  }
  const text = await readFile(path, 'utf8');
  if (text.trim() === '') throw new Error(`${path} is empty: nothing to install`);
  return text;
}

/** JSON.parse's error with the line and column of its position (Node 20 names only the offset). */
function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const offset = Number(/at position (\d+)/.exec(message)?.[1] ?? text.length);
    const before = text.slice(0, offset).split('\n');
    const line = before.length;
    const column = (before.at(-1)?.length ?? 0) + 1;
    const why = message.replace(/ in JSON at position \d+.*$/, '').replace(/ JSON input$/, ' the file');
    throw new Error(`${path}:${line}:${column}: ${why}\nfix the JSON in ${path} and install it again`);
  }
}

/** Each key's value a boolean: the server would refuse anything else, but could not say which line. */
function checkApprovals(path: string, value: unknown, locate: DefinitionFile['locate']): void {
  const example = 'requiresApproval: {createPet: true, listPets: false}';
  if (!isObject(value)) {
    throw new Error(
      `${locate(['requiresApproval']) ?? path}: requiresApproval must map action keys to true or false (${example}), not ${describe(value)}`,
    );
  }
  for (const [key, approval] of Object.entries(value)) {
    if (typeof approval === 'boolean') continue;
    throw new Error(
      `${locate(['requiresApproval', key]) ?? path}: requiresApproval.${key} must be true or false, not ${describe(approval)} (${example})`,
    );
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (isObject(value)) return 'a mapping';
  return `the ${typeof value} ${JSON.stringify(value)}`;
}
