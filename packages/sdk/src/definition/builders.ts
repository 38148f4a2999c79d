/**
 * `configSchema`, `inputSchema`, `outputSchema`: write the shape with zod, get the JSON Schema
 * 2020-12 object a definition carries. The same zod object can parse `ctx.config` or `ctx.input`.
 */

import { z } from 'zod';
import type { JsonSchema } from './types.js';

type ObjectShape = z.ZodObject | z.ZodRawShape;

/** Config, input and output are objects; a union or a string schema could never describe one. */
function asObject(shape: ObjectShape): z.ZodObject {
  if (shape instanceof z.ZodObject) return shape;
  if (shape instanceof z.ZodType) {
    throw new TypeError(`expected z.object({...}) or its shape, got a zod ${shape.def.type} schema`);
  }
  return z.object(shape);
}

/**
 * What a caller sends is the zod *input* (a field with a default is optional); what a connector
 * returns is its *output*. `$schema` says 2020-12 so any validator reads it the same way.
 */
function toJsonSchema(shape: ObjectShape, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(asObject(shape), {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'throw',
  }) as JsonSchema;
}

/** A feed's `configSchema` or the connector's `optionsSchema`. */
export const configSchema = (shape: ObjectShape): JsonSchema => toJsonSchema(shape, 'input');

/** An action's `inputSchema`. */
export const inputSchema = (shape: ObjectShape): JsonSchema => toJsonSchema(shape, 'input');

/** An action's `outputSchema`. */
export const outputSchema = (shape: ObjectShape): JsonSchema => toJsonSchema(shape, 'output');
