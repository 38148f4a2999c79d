import { isUtf8 } from 'node:buffer';
import { type ProblemDetail, ProblemError } from './problem.js';
import type { App } from './types.js';
import { pointer } from './validation.js';

/**
 * Objects and arrays nest at most this deep in a request body (the body itself is level 1). Far
 * beyond any setting, and low enough that no validator or serializer down the line recurses deep.
 */
export const JSON_MAX_DEPTH = 64;

/** A body with more refused values than this is reported by its first ones. */
const MAX_REPORTED = 20;

/** NUL, or half of a surrogate pair: text PostgreSQL cannot store, and that UTF-8 cannot carry. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this looks for.
export const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

type Segment = string | number;

/** A container on the walk's stack; the path of a value is rebuilt from the parents only on refusal. */
interface Frame {
  value: object;
  depth: number;
  key: Segment;
  parent: Frame | null;
}

function pathOf(frame: Frame, last?: Segment): string {
  const segments: Segment[] = last === undefined ? [] : [last];
  for (let f: Frame | null = frame; f?.parent; f = f.parent) segments.push(f.key);
  return `/body${pointer(segments.reverse())}`;
}

function textProblem(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === '\u0000'
    ? `holds a NUL character (\\u0000) at character ${found.index}, which cannot be stored; remove it`
    : `holds an unpaired surrogate (half of a UTF-16 pair) at character ${found.index}; send well-formed Unicode text`;
}

/**
 * Everything the server refuses in any JSON body, whatever the route: nesting deeper than
 * JSON_MAX_DEPTH, text that is not well-formed Unicode or holds NUL, integers that a JSON number
 * cannot carry exactly, and keys that could reach an object's prototype. One iterative walk, so
 * that a deep body cannot exhaust the stack here either.
 */
export function refusedValues(body: unknown): ProblemDetail {
  const refused: NonNullable<ProblemDetail> = [];
  if (body === null || typeof body !== 'object') {
    const message = checkScalar(body);
    return message ? [{ path: '/body', message }] : [];
  }
  const stack: Frame[] = [{ value: body, depth: 1, key: '', parent: null }];
  while (stack.length > 0 && refused.length < MAX_REPORTED) {
    const frame = stack.pop() as Frame;
    const entries: [Segment, unknown][] = Array.isArray(frame.value)
      ? frame.value.map((item, i) => [i, item])
      : Object.entries(frame.value);
    const children: Frame[] = [];
    for (const [key, value] of entries) {
      if (refused.length >= MAX_REPORTED) break;
      if (typeof key === 'string') {
        const message = checkKey(key, value);
        if (message) {
          refused.push({ path: pathOf(frame, key), message });
          continue;
        }
      }
      if (value !== null && typeof value === 'object') {
        const child: Frame = { value, depth: frame.depth + 1, key, parent: frame };
        if (child.depth > JSON_MAX_DEPTH) {
          refused.push({
            path: pathOf(child),
            message: `nests deeper than ${JSON_MAX_DEPTH} levels of objects and arrays; flatten it`,
          });
        } else {
          children.push(child);
        }
        continue;
      }
      const message = checkScalar(value);
      if (message) refused.push({ path: pathOf(frame, key), message });
    }
    // Last pushed, first walked: siblings are walked in the order they appear in the body.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Frame);
  }
  return refused.slice(0, MAX_REPORTED);
}

function checkScalar(value: unknown): string | null {
  if (typeof value === 'string') return textProblem(value);
  // JSON.parse reads 1e400 as Infinity, which JSON cannot even write back.
  if (typeof value === 'number' && !Number.isFinite(value)) {
    return 'is a number too large for a double-precision float; send a smaller number, or a string';
  }
  if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
    // Not the value itself: parsing has already rounded it, so it would not be the number sent.
    return `is an integer beyond ±${Number.MAX_SAFE_INTEGER}, which a JSON number does not carry exactly; send it as a string`;
  }
  return null;
}

/** Fastify's own rules against prototype poisoning (secure-json-parse), with the key's path. */
function checkKey(key: string, value: unknown): string | null {
  const text = textProblem(key);
  if (text) return `this key ${text}`;
  if (key === '__proto__')
    return 'the key "__proto__" is not accepted: it could replace an object\'s prototype';
  if (
    key === 'constructor' &&
    value !== null &&
    typeof value === 'object' &&
    Object.hasOwn(value, 'prototype')
  ) {
    return 'a "constructor" holding "prototype" is not accepted: it could reach an object\'s prototype';
  }
  return null;
}

function syntaxDetail(error: Error): string {
  const position = /at position (\d+)/.exec(error.message)?.[1];
  if (position !== undefined) return `the body is not valid JSON (error at character ${position})`;
  if (/end of JSON input/.test(error.message))
    return 'the body is not valid JSON: it ends before its value does';
  return 'the body is not valid JSON';
}

/**
 * Parses a request body: UTF-8 only (RFC 8259; a decoder would otherwise turn bad bytes into U+FFFD
 * silently), then the refusals above. Every refusal is a 400 problem.
 */
export function parseJsonBody(body: Buffer): unknown {
  if (body.length === 0) {
    throw new ProblemError(
      400,
      'malformed_json',
      'the body is empty but the content type is application/json',
    );
  }
  if (!isUtf8(body)) {
    throw new ProblemError(400, 'malformed_json', 'the body is not valid UTF-8; send JSON encoded as UTF-8');
  }
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ProblemError(400, 'malformed_json', syntaxDetail(error as Error));
  }
  const refused = refusedValues(value);
  if (refused && refused.length > 0) {
    const fields = refused.map((e) => e.path).join(', ');
    throw new ProblemError(400, 'validation_failed', `the request body is not valid: ${fields}`, refused);
  }
  return value;
}

/** One JSON parser for every route, in place of Fastify's default. */
export function registerJsonBody(app: App): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
