/**
 * Values that a JSON Schema of the OpenAPI document accepts, or nearly: the starting point that the
 * fuzzer breaks in one place, so that a malformed value is met by the code behind the schema and
 * not only by the schema's first complaint.
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;

/** Resolves `#/components/...` references against the document. */
export function resolver(doc: any): (schema: Schema | undefined) => Schema {
  const resolve = (schema: Schema | undefined): Schema => {
    if (!schema) return {};
    if (typeof schema.$ref !== 'string') return schema;
    const target = schema.$ref
      .slice(2)
      .split('/')
      .reduce((node: any, key: string) => node?.[key], doc);
    return resolve(target);
  };
  return resolve;
}

/** Strings to try against a `pattern`, from the plainest: the first that matches is the sample. */
const PATTERN_CANDIDATES = [
  'a',
  'abc',
  'A',
  'ABC',
  'helper',
  'a-b',
  '1',
  '12',
  'example.com',
  'https://example.com',
  'api',
  'x_1',
  '00000000-0000-4000-8000-000000000000',
  '2026-01-02T03:04:05Z',
];

function sampleString(schema: Schema): string {
  if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
  if (schema.format === 'date-time') return '2026-01-02T03:04:05Z';
  if (schema.format === 'uri') return 'https://example.com/';
  const min = schema.minLength ?? 0;
  const fits = (s: string) => s.length >= min && s.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY);
  if (typeof schema.pattern === 'string') {
    const pattern = new RegExp(schema.pattern, 'u');
    const found = PATTERN_CANDIDATES.find((s) => fits(s) && pattern.test(s));
    if (found !== undefined) return found;
  }
  return 'x'.repeat(Math.max(min, 1));
}

/** The one plainest value the schema accepts (as far as a few guesses go). */
export function sampleOf(schema: Schema, resolve: (s: Schema) => Schema, depth = 0): unknown {
  const s = resolve(schema);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  if ('default' in s) return s.default;
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    const branch = branches.find((b: Schema) => resolve(b).type !== 'null') ?? branches[0];
    return sampleOf(branch, resolve, depth);
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? []) out[key] = sampleOf(s.properties?.[key] ?? {}, resolve, depth + 1);
      return out;
    }
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sampleOf(s.items ?? {}, resolve, depth + 1));
    case 'string':
      return sampleString(s);
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return depth === 0 ? {} : 'x';
  }
}

/**
 * Values the schema accepts, with optional keys present or not: a richer start than `sampleOf`,
 * so that the fuzzer reaches optional settings too. Bounded in depth and size.
 */
export function valuesOf(schema: Schema, resolve: (s: Schema) => Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(schema);
  if (depth > 6) return fc.constant(sampleOf(s, resolve, depth));
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    return fc.oneof(...branches.map((b: Schema) => valuesOf(b, resolve, depth + 1)));
  }
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      if (s.properties) {
        const model = Object.fromEntries(
          Object.entries(s.properties as Record<string, Schema>).map(([k, v]) => [
            k,
            valuesOf(v, resolve, depth + 1),
          ]),
        );
        return fc.record(model, { requiredKeys: s.required ?? [] });
      }
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const key = s.propertyNames ? sampleString(resolve(s.propertyNames)) : 'a';
        return fc
          .option(valuesOf(s.additionalProperties, resolve, depth + 1), { nil: undefined })
          .map((v) => (v === undefined ? {} : { [key]: v }));
      }
      return fc.constant({});
    }
    case 'array':
      return fc.array(valuesOf(s.items ?? {}, resolve, depth + 1), {
        minLength: s.minItems ?? 0,
        maxLength: Math.max(s.minItems ?? 0, Math.min(s.maxItems ?? 2, 2)),
      });
    case 'integer': {
      const min = s.minimum ?? -1000;
      return fc.integer({ min, max: s.maximum ?? min + 2000 });
    }
    case 'boolean':
      return fc.boolean();
    default:
      return fc.constant(sampleOf(s, resolve, depth));
  }
}
