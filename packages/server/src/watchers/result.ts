import { metadataProblems } from '../memory/json-schema.js';

/** What a window's reply gave: the structured result, or why it is not one. */
export type WindowResult =
  | { ok: true; extractedData: Record<string, unknown> | null }
  | { ok: false; error: string };

/** The JSON object a reply holds: the whole reply, or the one fenced block in it. */
function jsonOf(reply: string): unknown {
  const text = reply.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n?```$/i.exec(text);
  return JSON.parse(fenced ? (fenced[1] as string) : text);
}

/**
 * A window's reply against the watcher's `extraction_schema`: with none, any reply stands; with
 * one, the reply must be one JSON object valid against it, and what is wrong is said otherwise.
 */
export function windowResult(reply: string, extractionSchema: Record<string, unknown> | null): WindowResult {
  if (!extractionSchema) return { ok: true, extractedData: null };
  let value: unknown;
  try {
    value = jsonOf(reply);
  } catch {
    return {
      ok: false,
      error: `the reply is not JSON (its extraction_schema asks for one JSON object): ${reply.slice(0, 200)}`,
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: 'the reply is JSON but not an object, as its extraction_schema asks' };
  }
  const problems = metadataProblems(extractionSchema, value);
  if (problems.length > 0) {
    return {
      ok: false,
      error: `the reply does not match the watcher's extraction_schema: ${problems.slice(0, 10).join('; ')}`,
    };
  }
  return { ok: true, extractedData: value as Record<string, unknown> };
}
