import { describe, expect, it } from 'vitest';
import { DefinitionTextError, definitionFromUrl, parseDefinitionText } from './definition-text';

/** A definition pasted into the console, read as the CLI reads a file. */

const failure = (text: string) =>
  parseDefinitionText(text).then(
    () => {
      throw new Error('expected the text to be refused');
    },
    (error: Error) => {
      expect(error).toBeInstanceOf(DefinitionTextError);
      return error.message;
    },
  );

describe('a pasted definition', () => {
  it('reads YAML and JSON, with requiresApproval taken apart', async () => {
    const yaml =
      'key: notes\nname: Notes\nversion: 1.0.0\nmcpConfig:\n  upstreamUrl: https://mcp.example/mcp\nrequiresApproval:\n  wipe: true\n';
    const { locate, ...body } = await parseDefinitionText(yaml);
    expect(locate('/definition/mcpConfig/upstreamUrl')).toBe('line 5');
    expect(locate('/body/requiresApproval/wipe')).toBe('line 7');
    // A field the text lacks: where its parent is.
    expect(locate('/definition/mcpConfig/headers')).toBe('line 4');
    expect(body).toEqual({
      definition: {
        key: 'notes',
        name: 'Notes',
        version: '1.0.0',
        mcpConfig: { upstreamUrl: 'https://mcp.example/mcp' },
      },
      requiresApproval: { wipe: true },
    });
    const json = await parseDefinitionText('  {\n  "key": "notes",\n  "feeds": {}\n}');
    expect(json.definition).toEqual({ key: 'notes', feeds: {} });
    expect(json.locate('/definition/feeds')).toBe('line 3');
  });

  it('names the line and column of a syntax error', async () => {
    expect(await failure('{\n  "key": "notes",\n}')).toMatch(/^JSON, line 3, column 1: /);
    expect(await failure('key: notes\nkey: again\n')).toBe('YAML, line 2, column 1: Map keys must be unique');
  });

  it('refuses an empty text, a list and approvals that are not booleans', async () => {
    expect(await failure('  ')).toBe('paste a connector definition (JSON or YAML)');
    expect(await failure('- key: notes')).toMatch(/^the text is not a mapping/);
    expect(await failure('key: notes\nrequiresApproval: {wipe: maybe}')).toMatch(
      /^requiresApproval must map action keys to true or false/,
    );
  });

  it('builds a definition from a URL, a key and a name', () => {
    expect(
      definitionFromUrl('openapi', { key: ' pets ', name: 'Pets', url: 'https://api.example/openapi.json' }),
    ).toEqual({
      definition: {
        key: 'pets',
        name: 'Pets',
        version: '1.0.0',
        openapiConfig: { specUrl: 'https://api.example/openapi.json' },
      },
    });
    expect(
      definitionFromUrl('mcp', { key: 'notes', name: 'Notes', url: 'https://mcp.example/mcp' }).definition,
    ).toMatchObject({
      mcpConfig: { upstreamUrl: 'https://mcp.example/mcp' },
    });
  });
});
