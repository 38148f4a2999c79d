/**
 * Step commands are printed for the user to paste into a shell, and their values come from a Lobu
 * project that may be hostile: every value goes in as one POSIX word, so `acme; touch x`, `$(...)`
 * or backticks stay text. Single quotes are the one POSIX quoting with no expansion inside (a quote
 * is written `'\''`); that is one line, so no library.
 */

/** Words that no shell reads specially stay bare, so the usual command reads as typed. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** `value` as one shell word: bare when plain, else in single quotes. */
export const shellWord = (value: string): string =>
  PLAIN.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;

const REFERENCE = /\$(?:[A-Z_][A-Z0-9_]*|\{[A-Z_][A-Z0-9_]*\})/g;

/**
 * `value` as one shell word in which only its `$NAME` references expand (in double quotes, a name
 * being letters, digits and `_`): `https://$HOST/x` -> `'https://'"$HOST"'/x'`. The rest is quoted.
 */
export function shellWordExpanding(value: string): string {
  let out = '';
  let from = 0;
  for (const match of value.matchAll(REFERENCE)) {
    if (match.index > from) out += shellWord(value.slice(from, match.index));
    out += `"${match[0]}"`;
    from = match.index + match[0].length;
  }
  if (from < value.length || out === '') out += shellWord(value.slice(from));
  return out;
}
