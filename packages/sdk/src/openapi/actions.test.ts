import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../definition/validate.js';
import { actionsFromOpenApi } from './actions.js';
import { OpenApiError } from './types.js';

const PETS = readFileSync(new URL('./test/pets-3.1.yaml', import.meta.url), 'utf8');
const TODO = readFileSync(new URL('./test/todo-3.0.json', import.meta.url), 'utf8');
const SPEC_URL = 'https://pets.example/specs/openapi.yaml';

const API_KEY = [[{ name: 'api_key', type: 'apiKey', in: 'header', parameterName: 'X-API-Key' }]];

describe('actionsFromOpenApi on a 3.1 YAML description', () => {
  it('makes every operation an action, keyed by operationId or by method and path', () => {
    const { actions, skipped } = actionsFromOpenApi(PETS, { specUrl: SPEC_URL });
    expect(Object.keys(actions)).toEqual([
      'listPets',
      'createPet',
      'showPetById',
      'deletePet',
      'get_search',
      'whoAmI',
    ]);
    expect(skipped).toEqual([]);
  });

  it('maps parameters ($ref included) into one input schema, path parameters required', () => {
    const { actions, operations } = actionsFromOpenApi(PETS, { specUrl: SPEC_URL });
    expect(actions.listPets).toEqual({
      key: 'listPets',
      name: 'List pets',
      description: 'List pets',
      requiresApproval: false,
      annotations: { destructiveHint: false, idempotentHint: true, openWorldHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20, description: 'How many at most' },
          species: { type: 'string', enum: ['cat', 'dog'] },
        },
        additionalProperties: false,
      },
    });
    expect(actions.showPetById?.inputSchema).toEqual({
      type: 'object',
      properties: {
        petId: { type: 'string', description: "The pet's id" },
        'X-Request-Id': { type: 'string' },
      },
      required: ['petId', 'X-Request-Id'],
      additionalProperties: false,
    });
    // The relative server resolves against the URL the description came from.
    expect(operations.showPetById).toEqual({
      key: 'showPetById',
      method: 'GET',
      path: '/pets/{petId}',
      serverUrl: 'https://pets.example/v1',
      parameters: [
        { name: 'petId', in: 'path', property: 'petId', required: true },
        { name: 'X-Request-Id', in: 'header', property: 'X-Request-Id', required: true },
      ],
      security: API_KEY,
    });
  });

  it('puts the JSON body under "body" and makes changes wait for approval', () => {
    const { actions, operations } = actionsFromOpenApi(PETS, { specUrl: SPEC_URL });
    expect(actions.createPet).toEqual({
      key: 'createPet',
      name: 'Add a pet',
      description: 'Adds a pet to the store.',
      requiresApproval: true,
      annotations: { destructiveHint: false, idempotentHint: false, openWorldHint: true },
      inputSchema: {
        type: 'object',
        properties: {
          body: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, tag: { type: ['string', 'null'] } },
          },
        },
        required: ['body'],
        additionalProperties: false,
      },
    });
    expect(operations.createPet?.body).toEqual({
      property: 'body',
      mediaType: 'application/json',
      required: true,
    });
    expect(actions.deletePet?.requiresApproval).toBe(true);
    expect(actions.deletePet?.annotations).toEqual({
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
  });

  it('carries each operation its own security, else the document`s', () => {
    const { operations } = actionsFromOpenApi(PETS, { specUrl: SPEC_URL });
    expect(operations.listPets?.security).toEqual(API_KEY);
    expect(operations.get_search?.security).toEqual([
      [{ name: 'query_key', type: 'apiKey', in: 'query', parameterName: 'key' }],
    ]);
    expect(operations.whoAmI?.security).toEqual([
      [{ name: 'bearer', type: 'http', scheme: 'bearer' }],
      [{ name: 'basic', type: 'http', scheme: 'basic' }],
    ]);
  });

  it('includeOperations, excludeOperations and includeTags choose exactly the actions', () => {
    const keys = (config: Parameters<typeof actionsFromOpenApi>[1]) =>
      Object.keys(actionsFromOpenApi(PETS, config).actions);
    expect(keys({ includeOperations: ['showPetById', 'get_search'] })).toEqual(['showPetById', 'get_search']);
    expect(keys({ excludeOperations: ['deletePet', 'whoAmI', 'createPet'] })).toEqual([
      'listPets',
      'showPetById',
      'get_search',
    ]);
    expect(keys({ includeTags: ['admin', 'account'] })).toEqual(['deletePet', 'whoAmI']);
    expect(keys({ includeTags: ['pets'], excludeOperations: ['listPets'] })).toEqual([
      'createPet',
      'showPetById',
      'get_search',
    ]);
  });

  it('reports an included name the description does not have', () => {
    const { actions, skipped } = actionsFromOpenApi(PETS, { includeOperations: ['listPets', 'adoptPet'] });
    expect(Object.keys(actions)).toEqual(['listPets']);
    expect(skipped).toEqual([
      { operation: 'adoptPet', reason: 'named in includeOperations, but not in the description' },
    ]);
  });

  it('produces actions that pass validateDefinition', () => {
    const { actions } = actionsFromOpenApi(PETS, { specUrl: SPEC_URL });
    const definition = { key: 'pets', name: 'Pets', version: '1.0.0', actions };
    expect(validateDefinition(definition).problems).toEqual([]);
  });

  it('serverUrl replaces the servers; without specUrl a relative server gives none', () => {
    const override = actionsFromOpenApi(PETS, { serverUrl: 'https://api.pets.example/v2' });
    expect(override.operations.listPets?.serverUrl).toBe('https://api.pets.example/v2');
    expect(actionsFromOpenApi(PETS).operations.listPets?.serverUrl).toBeUndefined();
  });
});

describe('actionsFromOpenApi on a 3.0 JSON description', () => {
  it('converts 3.0 schemas to JSON Schema, cuts a recursive one, skips what it cannot send', () => {
    const { actions, operations, skipped } = actionsFromOpenApi(TODO);
    expect(Object.keys(actions)).toEqual(['updateTodo']);
    expect(actions.updateTodo?.inputSchema).toEqual({
      type: 'object',
      properties: {
        id: { type: 'integer' },
        body: {
          type: 'object',
          properties: {
            title: { type: 'string', examples: ['Buy milk'] },
            due: { type: ['string', 'null'], format: 'date' },
            priority: { type: 'integer', exclusiveMinimum: 0 },
            owner: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                manager: { $comment: 'recursive: #/components/schemas/Person' },
              },
            },
          },
        },
      },
      required: ['id'],
      additionalProperties: false,
    });
    expect(operations.updateTodo?.serverUrl).toBe('https://eu.todo.example/api');
    expect(operations.updateTodo?.security).toEqual([]);
    expect(skipped).toEqual([
      {
        operation: 'attachFile',
        reason: 'request bodies of multipart/form-data are not supported (JSON, form or text only)',
      },
    ]);
  });

  it('takes the parsed object as well as the text', () => {
    expect(actionsFromOpenApi(JSON.parse(TODO)).operations).toEqual(actionsFromOpenApi(TODO).operations);
  });
});

describe('keys', () => {
  const doc = (paths: Record<string, unknown>) => ({ openapi: '3.1.0', info: {}, paths });
  const ok = { responses: {} };

  it('are made tool-safe and unique', () => {
    const { actions } = actionsFromOpenApi(
      doc({
        '/a': { get: { ...ok, operationId: 'pets.list' }, post: { ...ok, operationId: 'pets_list' } },
        '/users/{user-id}/repos': {
          get: { ...ok, parameters: [{ name: 'user-id', in: 'path', required: true }] },
        },
      }),
    );
    expect(Object.keys(actions)).toEqual(['pets_list', 'pets_list_2', 'get_users_user-id_repos']);
  });
});

describe('operations that cannot become actions', () => {
  it('are skipped with the reason, the others kept', () => {
    const { actions, skipped } = actionsFromOpenApi({
      openapi: '3.1.0',
      info: {},
      paths: {
        '/a/{id}': { get: { operationId: 'undeclaredPathParam' } },
        '/b': {
          get: { operationId: 'unknownScheme', security: [{ nowhere: [] }] },
          post: {
            operationId: 'cookieParam',
            parameters: [{ name: 'sid', in: 'cookie', required: true, schema: { type: 'string' } }],
          },
          put: { operationId: 'fine' },
        },
      },
    });
    expect(Object.keys(actions)).toEqual(['fine']);
    expect(skipped).toEqual([
      { operation: 'undeclaredPathParam', reason: 'its path names {id}, which no parameter declares' },
      {
        operation: 'unknownScheme',
        reason: 'its security names "nowhere", which securitySchemes does not declare',
      },
      { operation: 'cookieParam', reason: 'cookie parameter "sid" is not supported' },
    ]);
  });

  it('keep parameter names that are Object`s own as plain properties', () => {
    const { actions } = actionsFromOpenApi({
      openapi: '3.1.0',
      info: {},
      paths: {
        '/c': {
          get: {
            operationId: 'odd',
            parameters: [
              { name: 'constructor', in: 'query', schema: { type: 'string' } },
              { name: '__proto__', in: 'query', schema: { type: 'string' } },
            ],
          },
        },
      },
    });
    const properties = actions.odd?.inputSchema?.properties as Record<string, unknown>;
    expect(Object.keys(properties)).toEqual(['constructor', '__proto__']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
  });
});

describe('refusals', () => {
  const withBody = (schema: unknown, components: Record<string, unknown> = {}) => ({
    openapi: '3.1.0',
    info: {},
    paths: {
      '/x': { post: { operationId: 'x', requestBody: { content: { 'application/json': { schema } } } } },
    },
    components: { schemas: components },
  });

  it('refuses a $ref to another file or URL without fetching it', () => {
    for (const ref of ['https://evil.example/schema.json', './other.yaml#/Pet']) {
      expect(() => actionsFromOpenApi(withBody({ $ref: ref }))).toThrow(
        new OpenApiError(
          `$ref "${ref}" points outside the description; only references within it (#/components/...) are followed, as fetching other files or URLs would reach addresses the description chose`,
        ),
      );
    }
  });

  it('leaves alone what an operation left out holds', () => {
    const doc = withBody({ $ref: 'https://evil.example/schema.json' });
    (doc.paths as Record<string, unknown>)['/ok'] = { get: { operationId: 'ok' } };
    expect(Object.keys(actionsFromOpenApi(doc, { excludeOperations: ['x'] }).actions)).toEqual(['ok']);
  });

  it('refuses a cycle of $refs that never reaches a schema', () => {
    const cyclic = withBody(
      { $ref: '#/components/schemas/A' },
      { A: { $ref: '#/components/schemas/B' }, B: { $ref: '#/components/schemas/A' } },
    );
    expect(() => actionsFromOpenApi(cyclic)).toThrow(
      '$ref cycle: #/components/schemas/A -> #/components/schemas/B -> #/components/schemas/A never reaches a value',
    );
  });

  it('refuses a $ref that points at nothing', () => {
    expect(() => actionsFromOpenApi(withBody({ $ref: '#/components/schemas/Missing' }))).toThrow(
      '$ref "#/components/schemas/Missing" points at nothing in the description',
    );
  });

  it('refuses a schema that $refs multiply beyond the limit', () => {
    // Each level uses the one below ten times: 10^6 nodes once inlined, from a few lines.
    const levels: Record<string, unknown> = { L0: { type: 'string' } };
    for (let i = 1; i <= 6; i++) {
      levels[`L${i}`] = {
        type: 'object',
        properties: Object.fromEntries(
          Array.from({ length: 10 }, (_, n) => [`p${n}`, { $ref: `#/components/schemas/L${i - 1}` }]),
        ),
      };
    }
    expect(() => actionsFromOpenApi(withBody({ $ref: '#/components/schemas/L6' }, levels))).toThrow(
      'POST /x expands to more than 20000 nodes with its $refs inlined',
    );
  });

  it('refuses Swagger 2, and text that is not a description', () => {
    expect(() => actionsFromOpenApi({ swagger: '2.0', paths: {} })).toThrow(
      'Swagger 2.0 descriptions are not supported: convert it to OpenAPI 3 (e.g. with swagger2openapi)',
    );
    expect(() => actionsFromOpenApi('openapi: [')).toThrow(
      /^the OpenAPI description is neither JSON nor YAML/,
    );
    expect(() => actionsFromOpenApi('title: no version')).toThrow(
      'not an OpenAPI 3.0 or 3.1 description (openapi: null)',
    );
  });
});
