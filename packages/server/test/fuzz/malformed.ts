/**
 * Malformed values: text and JSON on the edges of what JavaScript, PostgreSQL and HTTP hold, and
 * bodies that are not what their content type says.
 */
import fc from 'fast-check';

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Text that has broken servers before, or sits on an edge of a type PostgreSQL or JavaScript holds. */
export const NASTY_TEXT = [
  '',
  ' ',
  '0',
  '-1',
  '1.5',
  '1e400',
  '-1e400',
  'NaN',
  'Infinity',
  '99999999999999999999999',
  '9223372036854775808',
  '-9223372036854775809',
  '0x1f',
  'true',
  'null',
  '[]',
  '{}',
  '0000-01-01T00:00:00Z',
  '0000-01-01 00:00:00+00',
  '10000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.001Z',
  '2024-02-30T00:00:00Z',
  '9999-12-31T23:59:59-14:00',
  '0001-01-01T00:00:00+14:00',
  '1970-01-01T00:00:00+99:00',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '00000000-0000-4000-8000-00000000000g',
  'a'.repeat(5000),
  '\u0000',
  'a\u0000b',
  '\uD800',
  'a\uDFFFb',
  '\u202E\uFEFF',
  '💥',
  'İı',
  '../../../etc/passwd',
  "' OR 1=1 --",
  '%00',
  '%',
  '$NAME',
  '${SVC_ADMIN_PASSWORD}',
  '__proto__',
  'constructor',
  'default',
  'helper',
  'internal.',
  b64('garbage'),
  b64(['0000-01-01 00:00:00+00', '00000000-0000-0000-0000-000000000000']),
  b64(['2024-13-45 99:99:99+00', 'x']),
  b64(['1.5', '1']),
  b64(['1', '1e400']),
  b64(['-210866803200000001', '1']),
  b64([1, 2]),
  b64({}),
];

export const nastyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_TEXT) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);

/** A number as JSON text that JSON.stringify cannot write: JSON.parse reads it as Infinity, or rounds it. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify, except that a RawJson is written as its text. */
export function toJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${Array.from(value, (v) => toJson(v)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** Values for a field of a JSON body: wrong types, extremes, nesting. */
export const nastyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: nastyText },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      0,
      -1,
      1.5,
      -0.5,
      1e308,
      -1e308,
      2 ** 31,
      2 ** 53,
      2 ** 63,
      -(2 ** 63),
      5e-324,
      true,
      false,
      null,
      [],
      {},
      [[[[[]]]]],
      { a: { b: { c: {} } } },
      new RawJson('1e400'),
      new RawJson('-1e400'),
      new RawJson('123456789012345678901234567890'),
      new RawJson('0.1e-400'),
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

/** Bodies that are not JSON, or JSON that no route takes as it is. */
export const MALFORMED_JSON_TEXT = [
  '',
  '{',
  '{"a":',
  '[1,2',
  '{"a":1,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  'NaN',
  'null',
  '"text"',
  '123',
  '\uFEFF{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  `${'['.repeat(100)}${']'.repeat(100)}`,
  `{"a":"${'\\ud800'}"}`,
  '{"a":"\\u0000"}',
];

export const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/jsonx',
  'application/problem+json',
  'multipart/form-data',
  'multipart/form-data; boundary=',
  'multipart/mixed; boundary=x',
  '*/*',
  ';',
  'application/json;;;=',
];

/** A multipart/form-data body of text fields, written with `boundary`. */
export function formData(fields: Record<string, string>, boundary: string, closed = true): string {
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return `${parts.join('')}${closed ? `--${boundary}--\r\n` : ''}`;
}

/** Broken multipart bodies, as [content type, body] from a form's fields. */
export function brokenForms(fields: Record<string, string>): [string, string][] {
  const form = formData(fields, 'b0und');
  return [
    ['multipart/form-data', form],
    ['multipart/form-data; boundary=other', form],
    ['multipart/form-data; boundary=b0und', formData(fields, 'b0und', false)],
    ['multipart/form-data; boundary=b0und', form.slice(0, Math.floor(form.length / 2))],
    ['multipart/form-data; boundary=b0und', ''],
    ['multipart/form-data; boundary=b0und', '--b0und\r\nno-colon\r\n\r\nx\r\n--b0und--\r\n'],
    ['multipart/form-data; boundary=b0und', '--b0und\r\n\r\nno headers\r\n--b0und--\r\n'],
    [
      'multipart/form-data; boundary=b0und',
      `${formData(JSON.parse('{"__proto__":"x"}'), 'b0und', false)}${form}`,
    ],
    ['multipart/form-data; boundary=b0und', formData({ ...fields, team_chat: '{' }, 'b0und')],
    [`multipart/form-data; boundary=${'b'.repeat(200)}`, formData(fields, 'b'.repeat(200))],
    [
      'multipart/form-data; boundary=b0und',
      `--b0und\r\nContent-Disposition: form-data; name="content"; filename="a.txt"\r\n\r\nx\r\n--b0und--\r\n`,
    ],
  ];
}

/** Bytes of a URL component: every byte but the unreserved ones as %XX, lone surrogates as U+FFFD. */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');
}

/** What fetch lets through as a header value: Latin-1, without CR, LF or NUL, not padded. */
export const headerValue = (text: string) =>
  text
    .replace(/[^\t\x20-\x7e\x80-\xff]/g, '?')
    .trim()
    .slice(0, 4000);
