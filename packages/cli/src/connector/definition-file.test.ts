import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDefinitionFile, readDefinitionFile } from './definition-file.js';

/** A definition file read as `svc connector install` reads it, before anything is sent. */

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-definition-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

async function failure(path: string): Promise<string> {
  try {
    await readDefinitionFile(path);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the file to be refused');
}

const PETSTORE_YAML = `key: petstore
name: Petstore
version: 1.0.0
openapiConfig:
  specUrl: https://api.example/openapi.yaml
  includeTags: [pets]
authSchema:
  methods:
    - type: env_keys
      fields:
        - key: api_key
          secret: true
requiresApproval:
  listPets: true
`;

describe('a definition file', () => {
  it('is a .json, .yaml or .yml file', () => {
    expect(['a.json', 'b.yaml', 'c.YML', './d/e.yml'].map(isDefinitionFile)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['a.ts', 'rss', 'yaml', 'a.json.ts'].map(isDefinitionFile)).toEqual([false, false, false, false]);
  });

  it('reads YAML into the definition, with requiresApproval apart, and locates paths at their lines', async () => {
    const path = await file('petstore.yaml', PETSTORE_YAML);
    const read = await readDefinitionFile(path);
    expect(read.definition).toEqual({
      key: 'petstore',
      name: 'Petstore',
      version: '1.0.0',
      openapiConfig: { specUrl: 'https://api.example/openapi.yaml', includeTags: ['pets'] },
      authSchema: { methods: [{ type: 'env_keys', fields: [{ key: 'api_key', secret: true }] }] },
    });
    expect(read.requiresApproval).toEqual({ listPets: true });
    expect(read.locate(['openapiConfig', 'includeTags'])).toBe(`${path}:6:3`);
    expect(read.locate(['authSchema', 'methods', 0, 'fields', 0, 'secret'])).toBe(`${path}:12:11`);
    expect(read.locate(['authSchema', 'methods', 0])).toBe(`${path}:9:7`);
    // A field the file lacks: where its parent is, the place to add it.
    expect(read.locate(['openapiConfig', 'serverUrl'])).toBe(`${path}:4:1`);
  });

  it('reads JSON, and names the line and column of a syntax error', async () => {
    const good = await file(
      'notes.json',
      JSON.stringify({ key: 'notes', name: 'Notes', version: '1.0.0' }, null, 2),
    );
    expect((await readDefinitionFile(good)).definition).toMatchObject({ key: 'notes' });
    expect((await readDefinitionFile(good)).requiresApproval).toBeUndefined();
    const bad = await file('bad.json', '{\n  "key": "notes",\n  "name": "Notes",\n}\n');
    expect((await failure(bad)).split('\n')).toEqual([
      `${bad}:4:1: Expected double-quoted property name`,
      `fix the JSON in ${bad} and install it again`,
    ]);
    const cut = await file('cut.json', '{\n  "key": ');
    expect((await failure(cut)).split('\n')[0]).toBe(`${cut}:2:10: Unexpected end of the file`);
  });

  it('names the line and column of a YAML syntax error and of a key given twice', async () => {
    const bad = await file('bad.yaml', 'key: notes\nname: [Notes\nversion: 1.0.0\n');
    expect(await failure(bad)).toMatch(
      new RegExp(
        `^${bad}:3:1: Flow sequence in block collection must be sufficiently indented and end with a ]\\nfix the YAML in ${bad} and install it again$`,
      ),
    );
    const twice = await file('twice.yml', 'key: notes\nname: Notes\nkey: other\n');
    expect((await failure(twice)).split('\n')[0]).toBe(`${twice}:3:1: Map keys must be unique`);
  });

  it('refuses what is not a mapping, and a requiresApproval that is not booleans, at its line', async () => {
    const list = await file('list.yaml', '- key: notes\n');
    expect(await failure(list)).toBe(
      `${list}: holds a list, not a connector definition: write a mapping with key, name, version and openapiConfig or mcpConfig`,
    );
    const approvals = await file('approvals.yaml', 'key: notes\nrequiresApproval:\n  wipe: yes please\n');
    expect(await failure(approvals)).toBe(
      `${approvals}:3:3: requiresApproval.wipe must be true or false, not the string "yes please" (requiresApproval: {createPet: true, listPets: false})`,
    );
    const notMap = await file('not-map.yaml', 'key: notes\nrequiresApproval: [wipe]\n');
    expect(await failure(notMap)).toMatch(
      new RegExp(`^${notMap}:2:1: requiresApproval must map action keys`),
    );
  });

  it('says what to do about a missing, empty or folder path', async () => {
    expect(await failure(join(dir, 'missing.yaml'))).toBe(
      `no file ${join(dir, 'missing.yaml')}; give the path of the connector's definition (.json, .yaml or .yml)`,
    );
    expect(await failure(await file('empty.yaml', '\n'))).toBe(
      `${join(dir, 'empty.yaml')} is empty: nothing to install`,
    );
  });
});
