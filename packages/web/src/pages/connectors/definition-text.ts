/**
 * A connector definition pasted as JSON or YAML, read as `svc connector install <file>` reads a
 * file: the definition, with a top-level `requiresApproval` taken apart, or an error naming the
 * line and column. Parsed in the browser because the API takes the definition as an object, and
 * only here is the text whose lines a person can look at.
 */

export interface DefinitionBody {
  definition: Record<string, unknown>;
  requiresApproval?: Record<string, boolean>;
}

/** The body, and the line of the text that a problem's path (`/definition/feeds`) points at. */
export interface ParsedDefinition extends DefinitionBody {
  locate(pointer: string): string | undefined;
}

/** What is wrong with the text, where: the form shows it beside the field. */
export class DefinitionTextError extends Error {
  override name = 'DefinitionTextError';
}

export async function parseDefinitionText(text: string): Promise<ParsedDefinition> {
  const trimmed = text.trim();
  if (trimmed === '') throw new DefinitionTextError('paste a connector definition (JSON or YAML)');
  // JSON first when it looks like JSON: its errors say more about JSON than YAML's would.
  const json = trimmed.startsWith('{') ? parseJson(text) : undefined;
  const { value: yaml, locate } = await parseYaml(text, json !== undefined);
  const value = json ?? yaml;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DefinitionTextError(
      'the text is not a mapping: a definition has key, name, version and openapiConfig or mcpConfig',
    );
  }
  const { requiresApproval, ...definition } = value as Record<string, unknown>;
  if (requiresApproval === undefined) return { definition, locate };
  const approvals = requiresApproval as Record<string, unknown>;
  const wrong =
    typeof approvals !== 'object' ||
    approvals === null ||
    Array.isArray(approvals) ||
    Object.values(approvals).some((approval) => typeof approval !== 'boolean');
  if (wrong) {
    throw new DefinitionTextError(
      'requiresApproval must map action keys to true or false, e.g. {"createPet": true, "listPets": false}',
    );
  }
  return { definition, requiresApproval: approvals as Record<string, boolean>, locate };
}

/** JSON.parse's message with a line and column (browsers name an offset, or nothing). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const offset = /position (\d+)/.exec(message)?.[1];
    const why = message.replace(/ in JSON at position \d+.*$/, '').replace(/^JSON\.parse: /, '');
    if (offset === undefined) throw new DefinitionTextError(`JSON: ${why}`);
    const before = text.slice(0, Number(offset)).split('\n');
    throw new DefinitionTextError(
      `JSON, line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}: ${why}`,
    );
  }
}

/**
 * The YAML library is loaded only when a definition is pasted: the connectors page stays small
 * without it. JSON is read by YAML too (`lenient`: errors ignored), for the lines of its paths.
 */
async function parseYaml(
  text: string,
  lenient: boolean,
): Promise<{ value: unknown; locate: ParsedDefinition['locate'] }> {
  const { isMap, isScalar, isSeq, LineCounter, parseDocument } = await import('yaml');
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const first = document.errors[0];
  if (first && !lenient) {
    const { line, col } = lines.linePos(first.pos[0]);
    throw new DefinitionTextError(`YAML, line ${line}, column ${col}: ${first.message}`);
  }
  const lineOf = (node: unknown) => {
    const range = (node as { range?: [number, number] } | null)?.range;
    return range ? `line ${lines.linePos(range[0]).line}` : undefined;
  };
  // A key's line (where to look), or the deepest place the text has on the way to a missing one.
  const locate = (pointer: string) => {
    if (first) return undefined;
    const keys = pointer.split('/').filter(Boolean);
    if (keys[0] === 'body') keys.shift();
    if (keys[0] === 'definition') keys.shift();
    let node: unknown = document.contents;
    let found = lineOf(node);
    for (const key of keys) {
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
        if (!pair) break;
        found = lineOf(pair.key) ?? found;
        node = pair.value;
      } else if (isSeq(node) && node.items[Number(key)]) {
        node = node.items[Number(key)];
        found = lineOf(node) ?? found;
      } else break;
    }
    return found;
  };
  return { value: first ? undefined : document.toJS({ maxAliasCount: 100 }), locate };
}

/** A definition built from a URL and a name, for the common case of nothing more to say. */
export function definitionFromUrl(
  kind: 'openapi' | 'mcp',
  fields: { key: string; name: string; url: string },
): DefinitionBody {
  const base = { key: fields.key.trim(), name: fields.name.trim(), version: '1.0.0' };
  return {
    definition:
      kind === 'openapi'
        ? { ...base, openapiConfig: { specUrl: fields.url.trim() } }
        : { ...base, mcpConfig: { upstreamUrl: fields.url.trim() } },
  };
}
