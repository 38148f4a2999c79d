/** A whole number above 0 from the environment, or undefined when unset; a clear error otherwise. */
export function positiveInteger(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!/^[1-9]\d*$/.test(raw)) throw new Error(`${name} must be a whole number above 0, not "${raw}"`);
  return Number(raw);
}
