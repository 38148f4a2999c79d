/** A compact table: a header in capitals, columns two spaces apart, nothing padded at line ends. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

/** `-` for nothing, so that every column has a value and `awk` counts them right. */
export const cell = (value: string | number | null | undefined): string =>
  value === null || value === undefined || value === '' ? '-' : String(value);

/** `2026-01-01T10:00:00.000Z` as `2026-01-01 10:00:00`: UTC, to the second. */
export const when = (iso: string | null | undefined): string =>
  iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '-';

/** One line of a value that may be long: a table cell is no place for a paragraph. */
export const short = (text: string | null | undefined, max = 60): string => {
  if (!text) return '-';
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};
