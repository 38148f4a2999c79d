import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema, inputSchema, outputSchema } from './builders.js';

describe('schema builders', () => {
  it('emit JSON Schema 2020-12 for an object, from a shape or a z.object', () => {
    const shape = { url: z.url().describe('the feed'), max: z.number().int().default(100) };
    expect(configSchema(shape)).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        url: { type: 'string', format: 'uri', description: 'the feed' },
        max: { type: 'integer', default: 100, minimum: expect.any(Number), maximum: expect.any(Number) },
      },
      required: ['url'],
    });
    // What a caller sends may leave out a defaulted field; what a connector returns has it.
    expect(inputSchema(z.object(shape)).required).toEqual(['url']);
    expect(outputSchema(z.object(shape)).required).toEqual(['url', 'max']);
  });

  it('refuse a schema that is not an object, saying what it is', () => {
    expect(() => configSchema(z.union([z.string(), z.number()]) as never)).toThrow(
      /expected z\.object\(\{\.\.\.\}\) or its shape, got a zod union schema/,
    );
  });
});
