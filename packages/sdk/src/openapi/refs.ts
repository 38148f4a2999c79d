/**
 * Inlining `$ref`s of the description itself. Only `#/...` pointers are followed: a reference to
 * another file or URL would make the server (or the sandbox) fetch an address the description's
 * author chose, so it is refused rather than resolved (DESIGN.md section 6).
 */

import { OPENAPI_LIMITS, type OpenApiDocument } from './parse.js';
import { OpenApiError } from './types.js';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value a local `$ref` points at; an external one, or one that points nowhere, is an error. */
export function resolvePointer(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#')) {
    throw new OpenApiError(
      `$ref "${ref}" points outside the description; only references within it (#/components/...) are followed, as fetching other files or URLs would reach addresses the description chose`,
    );
  }
  let node: unknown = doc;
  const tokens = ref.length <= 1 ? [] : ref.slice(2).split('/');
  for (const raw of tokens) {
    const token = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(node) && /^\d+$/.test(token)) node = node[Number(token)];
    else if (isObject(node) && Object.hasOwn(node, token)) node = node[token];
    else throw new OpenApiError(`$ref "${ref}" points at nothing in the description`);
  }
  return node;
}

/**
 * Follows a chain of references that are nothing but references. One that comes back to itself
 * never reaches a value: the description is broken, and is refused.
 */
function followRef(doc: OpenApiDocument, ref: string): { ref: string; target: unknown } {
  const seen = [ref];
  let target = resolvePointer(doc, ref);
  while (isObject(target) && typeof target.$ref === 'string' && Object.keys(target).length === 1) {
    const next = target.$ref;
    if (seen.includes(next)) {
      throw new OpenApiError(`$ref cycle: ${[...seen, next].join(' -> ')} never reaches a value`);
    }
    seen.push(next);
    target = resolvePointer(doc, next);
  }
  return { ref: seen.at(-1) as string, target };
}

/** `node`, or what it points at when it is a `$ref` (a path item may be one); nothing below it. */
export function followRefs(doc: OpenApiDocument, node: unknown): unknown {
  return isObject(node) && typeof node.$ref === 'string' ? followRef(doc, node.$ref).target : node;
}

/**
 * A copy of `node` with every `$ref` replaced by what it points at (its sibling keywords, which
 * 3.1 allows, win). A schema that contains itself (a tree's `children`) cannot be inlined forever:
 * at the point it recurs it becomes `{}`, which accepts anything, and the upstream checks the rest.
 * Reusing one schema many times multiplies its size, so the result is capped in nodes.
 */
export function inlineRefs(doc: OpenApiDocument, node: unknown, what: string): unknown {
  let budget: number = OPENAPI_LIMITS.expandedNodes;
  const walk = (value: unknown, inside: string[]): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (--budget < 0) {
      throw new OpenApiError(
        `${what} expands to more than ${OPENAPI_LIMITS.expandedNodes} nodes with its $refs inlined`,
      );
    }
    if (Array.isArray(value)) return value.map((item) => walk(item, inside));
    if (typeof (value as Json).$ref === 'string') {
      const { $ref, ...siblings } = value as Json & { $ref: string };
      const { ref, target } = followRef(doc, $ref);
      if (inside.includes(ref)) return { $comment: `recursive: ${ref}` };
      const resolved = walk(target, [...inside, ref]);
      const rest = walk(siblings, inside) as Json;
      return isObject(resolved) ? { ...resolved, ...rest } : resolved;
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, inside)]));
  };
  return walk(node, []);
}
