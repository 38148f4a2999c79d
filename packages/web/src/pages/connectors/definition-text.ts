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

/** What is wrong with the text, where: the form shows it beside the field. */
export class DefinitionTextError extends Error {
  override name = 'DefinitionTextError';
}

export async function parseDefinitionText(text: string): Promise<DefinitionBody> {
  const trimmed = text.trim();
  if (trimmed === '') throw new DefinitionTextError('paste a connector definition (JSON or YAML)');
  // JSON first when it looks like JSON: its errors say more about JSON than YAML's would.
  const value = trimmed.startsWith('{') ? parseJson(text) : await parseYaml(text);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DefinitionTextError(
      'the text is not a mapping: a definition has key, name, version and openapiConfig or mcpConfig',
    );
  }
  const { requiresApproval, ...definition } = value as Record<string, unknown>;
  if (requiresApproval === undefined) return { definition };
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
  return { definition, requiresApproval: approvals as Record<string, boolean> };
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

/** YAML is loaded only when YAML is pasted: the connectors page stays small without it. */
async function parseYaml(text: string): Promise<unknown> {
  const { LineCounter, parseDocument } = await import('yaml');
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const first = document.errors[0];
  if (first) {
    const { line, col } = lines.linePos(first.pos[0]);
    throw new DefinitionTextError(`YAML, line ${line}, column ${col}: ${first.message}`);
  }
  return document.toJS({ maxAliasCount: 100 });
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
