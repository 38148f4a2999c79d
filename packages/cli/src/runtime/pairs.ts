/**
 * Values given on the command line: `--config key=value` pairs, `--input` JSON, and
 * `--credential FIELD=ENV_VAR`, whose values come from the environment. A credential's value is
 * never taken from argv (it would show in `ps` and shell history) and never printed, not even in
 * an error about a malformed flag, since what was typed there may be the value itself.
 */

/** `--config`: `key=value` is the string `value`; `key:=value` is JSON (`maxItems:=50`, `tags:=["a"]`). */
export const CONFIG_SYNTAX =
  'key=value sets a string; key:=JSON sets a number, boolean, list or object (maxItems:=50)';

export function parseConfig(pairs: string[] | undefined): Record<string, unknown> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const config: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const json = at > 0 && pair[at - 1] === ':';
    const key = pair.slice(0, json ? at - 1 : at);
    if (at < 0 || key === '') throw new Error(`--config ${pair}: ${CONFIG_SYNTAX}`);
    if (Object.hasOwn(config, key)) throw new Error(`--config ${key} is given twice; give it once`);
    const text = pair.slice(at + 1);
    if (!json) {
      config[key] = text;
      continue;
    }
    try {
      config[key] = JSON.parse(text);
    } catch {
      throw new Error(
        `--config ${key}:=${text}: not JSON; use ${key}=${text} for a string, or quote it for the shell (${key}:='["a","b"]')`,
      );
    }
  }
  return config;
}

/** The fields `--config` set as strings (`key=value`): a 422 about one of them may want `key:=`. */
export function stringKeys(pairs: string[] | undefined): string[] {
  return (pairs ?? []).flatMap((pair) => {
    const at = pair.indexOf('=');
    return at > 0 && pair[at - 1] !== ':' ? [pair.slice(0, at)] : [];
  });
}

/** A flag that takes a JSON object (`--input`, `--config`): the object, or undefined when not given. */
export function parseJsonObject(flag: string, text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${flag} is not JSON (${(error as Error).message}); give an object, e.g. ${flag} '{"a": 1}'`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${flag} must be a JSON object, e.g. ${flag} '{"a": 1}'`);
  }
  return value as Record<string, unknown>;
}

const FIELD = /^[A-Za-z0-9_.-]{1,200}$/;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Each `FIELD=ENV_VAR`'s value, read from the environment variable it names. Errors name the
 * flag by position, the field and the variable, never anything that could be the value.
 */
export function credentialsFromEnv(
  pairs: string[] | undefined,
  env: Record<string, string | undefined>,
): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const credentials: Record<string, string> = {};
  pairs.forEach((pair, i) => {
    const at = pair.indexOf('=');
    const field = at > 0 ? pair.slice(0, at) : '';
    const variable = at > 0 ? pair.slice(at + 1) : '';
    if (!FIELD.test(field)) {
      throw new Error(
        `--credential number ${i + 1} is not FIELD=ENV_VAR (not shown, in case it holds a value): ` +
          'give the field and the environment variable that holds its value, e.g. --credential token=SHOP_TOKEN',
      );
    }
    if (!VARIABLE.test(variable)) {
      throw new Error(
        `--credential ${field}=…: after "=" goes the name of the environment variable that holds the value ` +
          `(letters, digits and _), not the value itself (not shown). E.g. export SHOP_TOKEN=..., then --credential ${field}=SHOP_TOKEN`,
      );
    }
    if (Object.hasOwn(credentials, field))
      throw new Error(`--credential ${field} is given twice; give it once`);
    const value = env[variable];
    if (value === undefined) {
      throw new Error(
        `the environment variable ${variable} (for credential "${field}") is not set: export it in this shell, or name another variable`,
      );
    }
    if (value === '') {
      throw new Error(
        `the environment variable ${variable} (for credential "${field}") is empty: set it to the value`,
      );
    }
    credentials[field] = value;
  });
  return credentials;
}
