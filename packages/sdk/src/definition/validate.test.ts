import { describe, expect, it } from 'vitest';
import { Connector } from '../runtime/connector.js';
import type { ActionResult, SyncResult } from '../runtime/types.js';
import type { ConnectorDefinition } from './types.js';
import { assertValidDefinition, DefinitionError, validateDefinition } from './validate.js';

const valid = (): ConnectorDefinition => ({
  key: 'code-host',
  name: 'Code host',
  version: '1.2.0',
  faviconDomain: 'github.com',
  authSchema: {
    methods: [
      { type: 'oauth', provider: 'github', requiredScopes: ['repo'], optionalScopes: ['read:org'] },
      { type: 'env_keys', fields: [{ key: 'token', secret: true }] },
    ],
  },
  feeds: {
    issues: {
      key: 'issues',
      name: 'Issues',
      requiredScopes: ['repo'],
      displayNameTemplate: 'Issues of {repo}',
      configSchema: { type: 'object', properties: { repo: { type: 'string' } } },
      eventKinds: {
        issue: {
          entityLinks: [
            {
              entityType: 'member',
              identities: [
                { namespace: 'code_host_login', eventPath: 'payload_data.user.login' },
                { namespace: 'custom:shop_id', eventPath: 'metadata.shop' },
              ],
              traits: { name: { eventPath: 'payload_data.user.name', behavior: 'prefer_non_empty' } },
            },
          ],
        },
      },
    },
  },
  actions: { add_label: { key: 'add_label', name: 'Add label', requiresApproval: false } },
  runtime: { platforms: ['linux'], nix: { packages: ['nixpkgs#ffmpeg'] } },
});

type Mutation = (d: Record<string, any>) => void;

/** Each case: what is wrong, the path it must be reported at, and words the message must hold. */
const CASES: [string, Mutation, string, RegExp][] = [
  ['a missing key', (d) => delete d.key, 'key', /required/],
  ['a key with spaces', (d) => (d.key = 'Code Host'), 'key', /lowercase/],
  ['a missing name', (d) => delete d.name, 'name', /required/],
  ['a two-part version', (d) => (d.version = '1.0'), 'version', /semantic version/],
  ['a v-prefixed version', (d) => (d.version = 'v1.0.0'), 'version', /semantic version/],
  ['a feed key unlike its map key', (d) => (d.feeds.issues.key = 'tickets'), 'feeds.issues.key', /"issues"/],
  [
    'an action key unlike its map key',
    (d) => (d.actions.add_label.key = 'label'),
    'actions.add_label.key',
    /must equal/,
  ],
  [
    'env_keys without fields',
    (d) => (d.authSchema.methods[1].fields = []),
    'authSchema.methods[1].fields',
    /at least one field/,
  ],
  [
    'env_keys with a field key twice',
    (d) => d.authSchema.methods[1].fields.push({ key: 'token' }),
    'authSchema.methods[1].fields[1].key',
    /duplicate/,
  ],
  [
    'an unknown auth method type',
    (d) => (d.authSchema.methods[0] = { type: 'saml' }),
    'authSchema.methods[0].type',
    /none, env_keys, oauth, browser, interactive/,
  ],
  [
    'oauth without a provider',
    (d) => delete d.authSchema.methods[0].provider,
    'authSchema.methods[0].provider',
    /required/,
  ],
  [
    'an oauth token URL that is not http(s)',
    (d) => (d.authSchema.methods[0].tokenUrl = 'ftp://x.example/token'),
    'authSchema.methods[0].tokenUrl',
    /http\(s\) URL/,
  ],
  [
    'an unknown identity namespace',
    (d) => (d.feeds.issues.eventKinds.issue.entityLinks[0].identities[0].namespace = 'code_host_logn'),
    'feeds.issues.eventKinds.issue.entityLinks[0].identities[0].namespace',
    /did you mean "code_host_login".*custom:/,
  ],
  [
    "a namespace that is undefined (Lobu's IDENTITY.EMAIL_DOMAIN, a name without an equivalent here)",
    (d) => (d.feeds.issues.eventKinds.issue.entityLinks[0].identities[0].namespace = undefined),
    'feeds.issues.eventKinds.issue.entityLinks[0].identities[0].namespace',
    /^is required; it is missing or undefined: an IDENTITY name this SDK does not have is undefined \(Lobu's IDENTITY\.EMAIL_DOMAIN has no equivalent here\)\. Use one of IDENTITY\.PHONE, .*IDENTITY\.CODE_HOST_LOGIN, .*or "custom:<name>"/,
  ],
  [
    "Lobu's namespace value written as text",
    (d) => (d.feeds.issues.eventKinds.issue.entityLinks[0].identities[0].namespace = 'github_login'),
    'feeds.issues.eventKinds.issue.entityLinks[0].identities[0].namespace',
    /"github_login" is Lobu's namespace; here it is "code_host_login" \(IDENTITY\.GITHUB_LOGIN gives it\)/,
  ],
  [
    'a custom namespace with no name',
    (d) => (d.feeds.issues.eventKinds.issue.entityLinks[0].identities[1].namespace = 'custom:'),
    'feeds.issues.eventKinds.issue.entityLinks[0].identities[1].namespace',
    /custom namespace/,
  ],
  [
    'an entity link with no identities',
    (d) => (d.feeds.issues.eventKinds.issue.entityLinks[0].identities = []),
    'feeds.issues.eventKinds.issue.entityLinks[0].identities',
    /at least one identity/,
  ],
  [
    'a trait with an unknown behaviour',
    (d) => (d.feeds.issues.eventKinds.issue.entityLinks[0].traits.name.behavior = 'always'),
    'feeds.issues.eventKinds.issue.entityLinks[0].traits.name.behavior',
    /init_only/,
  ],
  [
    'an eventPath with an empty segment',
    (d) => (d.feeds.issues.eventKinds.issue.entityLinks[0].identities[0].eventPath = 'payload_data..login'),
    'feeds.issues.eventKinds.issue.entityLinks[0].identities[0].eventPath',
    /dot path/,
  ],
  [
    'openapiConfig without a specUrl',
    (d) => (d.openapiConfig = { includeTags: ['repos'] }),
    'openapiConfig.specUrl',
    /one of them/,
  ],
  [
    'openapiConfig with operations as a string',
    (d) =>
      (d.openapiConfig = { specUrl: 'https://api.example.com/openapi.json', includeOperations: 'getRepo' }),
    'openapiConfig.includeOperations',
    /array/,
  ],
  [
    'openapiConfig that both includes and excludes',
    (d) =>
      (d.openapiConfig = {
        specUrl: 'https://api.example.com/openapi.json',
        includeOperations: ['a'],
        excludeOperations: ['b'],
      }),
    'openapiConfig',
    /not both/,
  ],
  [
    'nix.packages outside runtime',
    (d) => (d.nix = { packages: ['nixpkgs#ffmpeg'] }),
    'nix',
    /runtime\.nix\.packages/,
  ],
  [
    'a runtime with an unknown platform',
    (d) => (d.runtime.platforms = ['beos']),
    'runtime.platforms[0]',
    /ios|linux/,
  ],
  [
    'a feed scope no oauth method asks for',
    (d) => (d.feeds.issues.requiredScopes = ['admin:org']),
    'feeds.issues.requiredScopes[0]',
    /never granted/,
  ],
  [
    'feed scopes with no oauth method at all',
    (d) => d.authSchema.methods.shift(),
    'feeds.issues.requiredScopes',
    /no oauth method/,
  ],
  [
    'a display name placeholder not in configSchema',
    (d) => (d.feeds.issues.displayNameTemplate = 'Issues of {repository}'),
    'feeds.issues.displayNameTemplate',
    /\{repository\}/,
  ],
  [
    'a configSchema of a string',
    (d) => (d.feeds.issues.configSchema = { type: 'string' }),
    'feeds.issues.configSchema',
    /must describe an object/,
  ],
  [
    'an action without requiresApproval',
    (d) => delete d.actions.add_label.requiresApproval,
    'actions.add_label.requiresApproval',
    /required/,
  ],
  [
    'a faviconDomain with a scheme',
    (d) => (d.faviconDomain = 'https://github.com'),
    'faviconDomain',
    /bare domain/,
  ],
  [
    'openapiConfig with both a specUrl and a spec',
    (d) => (d.openapiConfig = { specUrl: 'https://api.example.com/openapi.json', spec: '{}' }),
    'openapiConfig.specUrl',
    /one of them/,
  ],
  [
    'an mcpConfig header carrying a field no env_keys method declares',
    (d) =>
      (d.mcpConfig = { upstreamUrl: 'https://mcp.example.com/mcp', headers: { 'X-Api-Key': 'API_KEY' } }),
    'mcpConfig.headers["X-Api-Key"]',
    /not a field of an env_keys/,
  ],
  [
    'an mcpConfig header name with a space',
    (d) => (d.mcpConfig = { upstreamUrl: 'https://mcp.example.com/mcp', headers: { 'X Api': 'API_KEY' } }),
    'mcpConfig.headers["X Api"]',
    /header name/,
  ],
  [
    'an mcpConfig without a URL',
    (d) => (d.mcpConfig = { upstreamUrl: 'not a url' }),
    'mcpConfig.upstreamUrl',
    /URL/,
  ],
  ['a misspelt field', (d) => (d.descripton = 'x'), 'descripton', /unknown field/],
  [
    'a configSchema that is not valid JSON Schema',
    (d) => (d.feeds.issues.configSchema = { type: 'object', properties: { repo: { type: 'strnig' } } }),
    'feeds.issues.configSchema',
    /is not valid JSON Schema: properties\.repo\.type/,
  ],
  [
    'an inputSchema whose required is not a list',
    (d) => (d.actions.add_label.inputSchema = { type: 'object', required: 'name' }),
    'actions.add_label.inputSchema',
    /is not valid JSON Schema: required: must be array/,
  ],
  [
    'an inputSchema of a JSON Schema dialect other than 2020-12 (it threw)',
    (d) =>
      (d.actions.add_label.inputSchema = {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
      }),
    'actions.add_label.inputSchema',
    /is not valid JSON Schema: \$schema: "http:\/\/json-schema.org\/draft-07\/schema#" is not JSON Schema 2020-12/,
  ],
  [
    'an interactive method with no timeout sense',
    (d) => d.authSchema.methods.push({ type: 'interactive', timeoutSec: 0 }),
    'authSchema.methods[2].timeoutSec',
    /0/,
  ],
  [
    'a browser method with a bad capture',
    (d) => d.authSchema.methods.push({ type: 'browser', capture: 'screen' }),
    'authSchema.methods[2].capture',
    /cli|cdp/,
  ],
  ['a key with an empty segment', (d) => (d.key = 'acme..notes'), 'key', /segments joined by "\."/],
  ['a key ending with a dot', (d) => (d.key = 'acme.'), 'key', /segments joined by "\."/],
];

describe('validateDefinition', () => {
  it('accepts a complete, valid definition', () => {
    expect(validateDefinition(valid())).toEqual({ valid: true, problems: [] });
    // Namespaced as connectors written for Lobu's SDK are.
    expect(validateDefinition({ ...valid(), key: 'acme.notes' })).toEqual({ valid: true, problems: [] });
  });

  it.each(CASES)('reports %s at its path', (_name, mutate, path, message) => {
    const definition = valid() as Record<string, any>;
    mutate(definition);
    const { valid: ok, problems } = validateDefinition(definition);
    expect(ok).toBe(false);
    const at = problems.filter((p) => p.path === path);
    expect(at, JSON.stringify(problems, null, 2)).toHaveLength(1);
    expect(at[0]?.message).toMatch(message);
  });

  it('reports every problem of one definition in one pass', () => {
    const definition = valid() as Record<string, any>;
    for (const [, mutate] of CASES.slice(0, 8)) mutate(definition);
    const paths = validateDefinition(definition).problems.map((p) => p.path);
    expect(paths).toEqual(
      expect.arrayContaining(['key', 'name', 'version', 'feeds.issues.key', 'actions.add_label.key']),
    );
  });

  it('accepts what real connectors write: a ws:// CDP URL, a cookie domain, a configSchema from $ref', () => {
    const definition = valid() as Record<string, any>;
    definition.authSchema.methods.push({
      type: 'browser',
      requiredDomains: ['.linkedin.com', 'linkedin.com'],
      defaultCdpUrl: 'ws://127.0.0.1:9222/devtools/browser/abc',
    });
    definition.feeds.issues.configSchema = {
      type: 'object',
      allOf: [{ $ref: '#/$defs/repo' }],
      $defs: { repo: {} },
    };
    expect(validateDefinition(definition)).toEqual({ valid: true, problems: [] });
  });

  it('quotes map keys that are not plain names in paths', () => {
    const definition = valid() as Record<string, any>;
    definition.feeds['pull-requests'] = { key: 'pulls', name: 'Pull requests' };
    expect(validateDefinition(definition).problems).toContainEqual({
      path: 'feeds["pull-requests"].key',
      message: 'must equal its key in feeds, "pull-requests" (got "pulls")',
    });
  });

  it('refuses what is not an object at all', () => {
    expect(validateDefinition('rss').problems[0]?.message).toMatch(/object/);
  });

  describe('with the connector', () => {
    class Chat extends Connector {
      readonly definition: ConnectorDefinition = {
        key: 'chat',
        name: 'Chat',
        version: '0.1.0',
        authSchema: { methods: [{ type: 'interactive', expectedArtifact: 'qr' }] },
      };
      async sync(): Promise<SyncResult> {
        return { events: [], checkpoint: null };
      }
      async execute(): Promise<ActionResult> {
        return { success: false, error: 'read-only' };
      }
    }

    it('reports an interactive method on a connector that does not implement authenticate', () => {
      expect(validateDefinition(new Chat()).problems).toEqual([
        {
          path: 'authSchema.methods[0]',
          message: 'an interactive method needs the connector to implement authenticate(ctx); it does not',
        },
      ]);
      expect(() => assertValidDefinition(new Chat())).toThrow(DefinitionError);
    });

    it('accepts it once authenticate is implemented', () => {
      class QrChat extends Chat {
        override async authenticate() {
          return { credentials: { session: 'x' } };
        }
      }
      expect(validateDefinition(new QrChat()).valid).toBe(true);
    });
  });
});
