import type { EnvKeyField } from './types';

/**
 * The values of a connector's `env_keys` fields. A secret field is a password input that the
 * browser neither fills nor offers to save; its value lives in the form's state only until it is
 * sent, and the server never returns it.
 */
export function EnvKeyFields(props: {
  fields: EnvKeyField[];
  /** Whether every field must be given (the method is required and nothing else connects it). */
  allRequired: boolean;
  id: string;
  values: Record<string, string>;
  onInput: (key: string, value: string) => void;
}) {
  return (
    <>
      {props.fields.map((field) => {
        const id = `${props.id}-${field.key}`;
        const required = props.allRequired && field.required !== false;
        const common = {
          id,
          name: field.key,
          spellcheck: false,
          required,
          placeholder: field.example,
          'aria-describedby': field.description ? `${id}-hint` : undefined,
          value: props.values[field.key] ?? '',
          onInput: (event: Event) => props.onInput(field.key, (event.target as HTMLInputElement).value),
        };
        return (
          <div key={field.key}>
            <label for={id}>
              {field.label ?? field.key}
              {required ? ' (required)' : ''}
              {field.secret ? ' (secret)' : ''}
            </label>
            {field.secret ? (
              <input type="password" autocomplete="new-password" {...common} />
            ) : (
              <input type="text" autocomplete="off" {...common} />
            )}
            {field.description ? (
              <p class="hint" id={`${id}-hint`}>
                {field.description}
              </p>
            ) : null}
          </div>
        );
      })}
    </>
  );
}

/** Only the fields that hold something: an empty optional field is not sent as "". */
export const given = (values: Record<string, string>) =>
  Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
