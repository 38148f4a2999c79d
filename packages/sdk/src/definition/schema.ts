/**
 * zod schemas of what crosses a process boundary as a definition: the connector's definition with
 * its feeds, actions and auth methods. Strict objects, so that a misspelt field is reported rather
 * than ignored. Checks that span fields (map keys, scopes, templates) live in `validate.ts`.
 */

import { z } from 'zod';
import { AUTH_METHOD_TYPES } from '../auth/types.js';
import { DEVICE_PLATFORMS, ENTITY_TRAIT_BEHAVIORS } from './types.js';

/** Semantic Versioning 2.0.0, the official pattern. */
const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
/** `notes`, `acme-crm`, or namespaced with dots as other SDKs' connectors are (`acme.notes`). */
const KEY = /^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)*$/;
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
/** A domain, or a cookie domain with its leading dot. */
const COOKIE_DOMAIN = new RegExp(`^\\.?${DOMAIN.source.slice(1)}`, 'i');
/** `payload_data.user.login`: dot-separated names, no empty segment. */
const DOT_PATH = /^[A-Za-z_$][\w$-]*(\.[\w$-]+)*$/;

const text = z.string().min(1, 'must be a non-empty string');
const key = z
  .string()
  .regex(
    KEY,
    'must be lowercase letters, digits, "-" or "_", starting with a letter or digit, in segments joined by "." (acme.notes)',
  );
const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const strings = z.array(text);
/** A JSON Schema object; its content is the author's, only its being an object is checked here. */
const jsonSchema = z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' });
const scope = z.enum(['connection', 'organization']);

const envField = z.strictObject({
  key: text,
  label: z.string().optional(),
  description: z.string().optional(),
  example: z.string().optional(),
  secret: z.boolean().optional(),
  required: z.boolean().optional(),
});

const authMethod = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('none') }),
    z.strictObject({
      type: z.literal('env_keys'),
      required: z.boolean().optional(),
      scope: scope.optional(),
      fields: z.array(envField).min(1, 'env_keys needs at least one field'),
      description: z.string().optional(),
    }),
    z.strictObject({
      type: z.literal('oauth'),
      provider: text,
      requiredScopes: z.array(z.string()),
      optionalScopes: z.array(z.string()).optional(),
      required: z.boolean().optional(),
      description: z.string().optional(),
      scope: scope.optional(),
      authorizationUrl: httpUrl.optional(),
      tokenUrl: httpUrl.optional(),
      userinfoUrl: httpUrl.optional(),
      authParams: z.record(z.string(), z.string()).optional(),
      tokenEndpointAuthMethod: z.enum(['client_secret_post', 'client_secret_basic', 'none']).optional(),
      usePkce: z.boolean().optional(),
      loginScopes: z.array(z.string()).optional(),
      clientIdKey: z.string().optional(),
      clientSecretKey: z.string().optional(),
      setupInstructions: z.string().optional(),
      loginProvisioning: z.strictObject({ autoCreateConnection: z.boolean().optional() }).optional(),
    }),
    z.strictObject({
      type: z.literal('browser'),
      required: z.boolean().optional(),
      description: z.string().optional(),
      capture: z.enum(['cli', 'cdp']).optional(),
      // `.example.com` is how cookie domains are written; it means the domain and its subdomains.
      requiredDomains: z
        .array(z.string().regex(COOKIE_DOMAIN, 'must be a domain such as example.com or .example.com'))
        .optional(),
      // Either the HTTP endpoint (`/json/version` is asked for the socket) or the socket itself.
      defaultCdpUrl: z
        .url({ protocol: /^(https?|wss?)$/, error: 'must be an http(s) or ws(s) URL' })
        .optional(),
    }),
    z.strictObject({
      type: z.literal('interactive'),
      required: z.boolean().optional(),
      description: z.string().optional(),
      scope: scope.optional(),
      expectedArtifact: z.enum(['qr', 'code', 'redirect', 'prompt', 'status']).optional(),
      timeoutSec: z.number().int().positive().optional(),
    }),
  ],
  { error: `type must be one of ${AUTH_METHOD_TYPES.join(', ')}` },
);

const entityLinkRule = z.strictObject({
  entityType: text,
  autoCreate: z.boolean().optional(),
  titlePath: z.string().regex(DOT_PATH, 'must be a dot path such as payload_data.title').optional(),
  identities: z
    .array(
      z.strictObject({
        namespace: text,
        eventPath: z.string().regex(DOT_PATH, 'must be a dot path such as payload_data.user.login'),
        matchOnly: z.boolean().optional(),
      }),
    )
    .min(1, 'an entity link needs at least one identity'),
  traits: z
    .record(
      z.string(),
      z.strictObject({
        eventPath: z.string().regex(DOT_PATH, 'must be a dot path such as payload_data.user.name'),
        behavior: z.enum(ENTITY_TRAIT_BEHAVIORS),
      }),
    )
    .optional(),
});

export const feedDefinitionSchema = z.strictObject({
  key: text,
  name: text,
  description: z.string().optional(),
  requiredScopes: z.array(z.string()).optional(),
  displayNameTemplate: z.string().optional(),
  configSchema: jsonSchema.optional(),
  userManaged: z.boolean().optional(),
  eventKinds: z
    .record(
      z.string(),
      z.strictObject({
        description: z.string().optional(),
        metadataSchema: jsonSchema.optional(),
        entityLinks: z.array(entityLinkRule).optional(),
      }),
    )
    .optional(),
});

export const actionDefinitionSchema = z.strictObject({
  key: text,
  name: text,
  requiresApproval: z.boolean({ error: 'requiresApproval must be true or false' }),
  description: z.string().optional(),
  annotations: z
    .strictObject({
      destructiveHint: z.boolean().optional(),
      openWorldHint: z.boolean().optional(),
      idempotentHint: z.boolean().optional(),
    })
    .optional(),
  inputSchema: jsonSchema.optional(),
  outputSchema: jsonSchema.optional(),
});

export const connectorDefinitionSchema = z.strictObject({
  key,
  name: text,
  description: z.string().optional(),
  version: z.string().regex(SEMVER, 'must be a semantic version such as 1.0.0'),
  authSchema: z.strictObject({ methods: z.array(authMethod) }).optional(),
  feeds: z.record(z.string(), feedDefinitionSchema).optional(),
  actions: z.record(z.string(), actionDefinitionSchema).optional(),
  optionsSchema: jsonSchema.optional(),
  faviconDomain: z.string().regex(DOMAIN, 'must be a bare domain such as github.com').optional(),
  mcpConfig: z
    .strictObject({
      upstreamUrl: httpUrl,
      // svc's: header name -> the env_keys field whose value it carries to the upstream.
      headers: z.record(z.string(), text).optional(),
    })
    .optional(),
  openapiConfig: z
    .strictObject({
      specUrl: httpUrl.optional(),
      // svc's: the description itself (JSON or YAML text, or the parsed object), instead of specUrl.
      spec: z.union([text, z.record(z.string(), z.unknown())]).optional(),
      includeOperations: strings.optional(),
      excludeOperations: strings.optional(),
      includeTags: strings.optional(),
      serverUrl: httpUrl.optional(),
    })
    .optional(),
  requiredCapability: z.string().optional(),
  runtime: z
    .strictObject({
      platforms: z.array(z.enum(DEVICE_PLATFORMS)).min(1, 'name at least one platform, or omit runtime'),
      scopes: z.array(z.string()).optional(),
      nix: z.strictObject({ packages: strings.optional() }).optional(),
    })
    .optional(),
});
