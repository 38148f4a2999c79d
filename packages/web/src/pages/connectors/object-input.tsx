import { useEffect, useState } from 'preact/hooks';
import type { JsonSchema } from './types';

const SCALARS = ['string', 'number', 'integer', 'boolean'];
const typeOf = (schema: JsonSchema) =>
  Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;

/** A schema whose every property is a scalar (or an enum): a form of fields can say it all. */
export function isSimple(schema: JsonSchema | undefined): boolean {
  if (!schema) return true;
  if (typeOf(schema) !== 'object' && !schema.properties) return false;
  return Object.values(schema.properties ?? {}).every(
    (property) => property.enum !== undefined || SCALARS.includes(typeOf(property) ?? ''),
  );
}

export const hasFields = (schema: JsonSchema | undefined) =>
  !isSimple(schema) || Object.keys(schema?.properties ?? {}).length > 0;

type Values = Record<string, string | boolean>;

/** The object the fields say, or why they cannot say one. Empty fields are left out. */
function fromFields(schema: JsonSchema, values: Values): Record<string, unknown> | Error {
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(schema.properties ?? {})) {
    const value = values[key];
    if (value === undefined || value === '') continue;
    const type = typeOf(property);
    if (typeof value === 'boolean') out[key] = value;
    else if (property.enum) out[key] = property.enum.find((option) => String(option) === value);
    else if (type === 'number' || type === 'integer') {
      const number = Number(value);
      if (Number.isNaN(number)) return new Error(`${property.title ?? key} must be a number`);
      out[key] = number;
    } else out[key] = value;
  }
  return out;
}

function fromJson(text: string): Record<string, unknown> | Error {
  try {
    const value: unknown = JSON.parse(text || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    return new Error('must be a JSON object: {"name": "value"}');
  } catch (error) {
    return new Error(`not JSON: ${(error as Error).message}`);
  }
}

/**
 * An object to send (a connector's config, an action's input): fields when its JSON schema is
 * simple, else a JSON text area. Whatever is typed is handed to `onChange` as the object, or as
 * the Error that says why it is not one yet.
 */
export function ObjectInput(props: {
  schema: JsonSchema | undefined;
  /** Prefixes the fields' ids: several of these can be on one page. */
  id: string;
  label: string;
  /** What it holds at first (a feed's current config). */
  initial?: Record<string, unknown>;
  onChange: (value: Record<string, unknown> | Error) => void;
}) {
  const { schema, id } = props;
  const simple = isSimple(schema);
  const [values, setValues] = useState<Values>(() =>
    Object.fromEntries(
      Object.entries(props.initial ?? {}).map(([key, value]) => [
        key,
        typeof value === 'boolean' ? value : String(value),
      ]),
    ),
  );
  const [text, setText] = useState(() => JSON.stringify(props.initial ?? {}, null, 2));
  useEffect(() => {
    if (!simple) return props.onChange(fromJson(text));
    const typed = fromFields(schema ?? {}, values);
    // What the form has no field for is kept as it was, not dropped by a save.
    const kept = Object.entries(props.initial ?? {}).filter(([key]) => !(key in (schema?.properties ?? {})));
    props.onChange(typed instanceof Error ? typed : { ...Object.fromEntries(kept), ...typed });
  }, [values, text, simple]);
  if (!simple) {
    return (
      <div>
        <label for={`${id}-json`}>{props.label} (JSON)</label>
        <textarea
          id={`${id}-json`}
          class="mono"
          value={text}
          spellcheck={false}
          onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
        />
        {schema ? (
          <details>
            <summary>Its JSON schema</summary>
            <pre>{JSON.stringify(schema, null, 2)}</pre>
          </details>
        ) : null}
      </div>
    );
  }
  const required = new Set(schema?.required ?? []);
  const set = (key: string, value: string | boolean) => setValues((before) => ({ ...before, [key]: value }));
  return (
    <>
      {Object.entries(schema?.properties ?? {}).map(([key, property]) => {
        const field = `${id}-${key}`;
        const label = `${property.title ?? key}${required.has(key) ? ' (required)' : ''}`;
        const hint = property.description ? (
          <p class="hint" id={`${field}-hint`}>
            {property.description}
          </p>
        ) : null;
        const described = property.description ? `${field}-hint` : undefined;
        if (typeOf(property) === 'boolean') {
          return (
            <div key={key} class="field-check">
              <input
                type="checkbox"
                id={field}
                aria-describedby={described}
                checked={values[key] === true}
                onChange={(event) => set(key, (event.target as HTMLInputElement).checked)}
              />
              <label for={field}>{label}</label>
              {hint}
            </div>
          );
        }
        return (
          <div key={key}>
            <label for={field}>{label}</label>
            {property.enum ? (
              <select
                id={field}
                aria-describedby={described}
                value={String(values[key] ?? '')}
                onChange={(event) => set(key, (event.target as HTMLSelectElement).value)}
              >
                <option value="">—</option>
                {property.enum.map((option) => (
                  <option key={String(option)} value={String(option)}>
                    {String(option)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={field}
                aria-describedby={described}
                {...(['number', 'integer'].includes(typeOf(property) ?? '')
                  ? { type: 'number' as const, step: 'any' }
                  : { type: 'text' as const })}
                required={required.has(key)}
                placeholder={property.default !== undefined ? String(property.default) : undefined}
                value={String(values[key] ?? '')}
                onInput={(event) => set(key, (event.target as HTMLInputElement).value)}
              />
            )}
            {hint}
          </div>
        );
      })}
    </>
  );
}
