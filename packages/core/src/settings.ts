import { z } from 'zod';

/**
 * The 13 agent settings (spec: "Agent settings"). Every object is strict, so a misspelt key is an
 * error at the field instead of a setting that silently does nothing.
 */

const domain = z
  .string()
  .max(253)
  .regex(/^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/, {
    message:
      'must be a lowercase domain name such as "api.example.com"; the wildcard form is "*.example.com"',
  });
const shortText = z.string().min(1).max(200);
const toolName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.:/*-]+$/, {
    message: 'must be a tool name such as "github.create_issue" or "mcp:docs/*"',
  });
const stringMap = z.record(z.string().min(1).max(200), z.string().max(8192));
export const providerKeySchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: 'must be a provider key such as "openai" or "anthropic"' });
/** `provider/model`, e.g. `anthropic/claude-sonnet-4` or `openai/gpt-4.1-mini`. */
const qualifiedModel = z
  .string()
  .max(200)
  .regex(/^[a-z0-9][a-z0-9_-]*\/[^\s]+$/, {
    message: 'must be "provider/model", e.g. "openai/gpt-4.1-mini"',
  });

export const networkConfigSchema = z.strictObject({
  allowedDomains: z.array(domain).max(1000).optional(),
  deniedDomains: z.array(domain).max(1000).optional(),
});

export const egressConfigSchema = z.strictObject({
  mode: z.enum(['direct', 'proxy', 'none']),
  proxyUrl: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  allowedPorts: z.array(z.int().min(1).max(65535)).max(100).optional(),
});

export const nixConfigSchema = z.strictObject({
  packages: z
    .array(
      z
        .string()
        .regex(/^[A-Za-z0-9_.+-]+$/, {
          message: 'must be a package attribute such as "jq" or "python3Packages.requests"',
        })
        .max(200),
    )
    .max(500),
  channel: z.string().max(100).optional(),
});

export const mcpServerSchema = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    command: z.string().min(1).max(1000).optional(),
    args: z.array(z.string().max(4096)).max(100).optional(),
    headers: stringMap.optional(),
    env: stringMap.optional(),
    oauth: z
      .strictObject({
        client_id: z.string().min(1).max(1000),
        client_secret: z.string().max(1000).optional(),
        scopes: z.array(z.string().max(200)).max(100).optional(),
      })
      .optional(),
  })
  .superRefine((server, ctx) => {
    if ((server.url === undefined) === (server.command === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'set exactly one of "url" or "command"', path: ['url'] });
    }
    if (server.url !== undefined && server.args !== undefined) {
      ctx.addIssue({ code: 'custom', message: '"args" applies to a "command" server only', path: ['args'] });
    }
  });

export const mcpServersSchema = z.record(
  z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: 'must be an MCP server id such as "github"' }),
  mcpServerSchema,
);

export const skillsConfigSchema = z.strictObject({
  skills: z
    .array(
      z.strictObject({
        name: z
          .string()
          .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, { message: 'must be a skill name such as "web-search"' }),
        source: z.string().max(2048).optional(),
        enabled: z.boolean().optional(),
      }),
    )
    .max(500),
});

export const toolsConfigSchema = z.strictObject({
  allowed: z.array(toolName).max(1000).optional(),
  denied: z.array(toolName).max(1000).optional(),
  maxCallsPerTurn: z.int().min(1).max(1000).optional(),
});

export const guardrailsSchema = z.strictObject({
  maxInputChars: z.int().min(1).max(10_000_000).optional(),
  maxOutputChars: z.int().min(1).max(10_000_000).optional(),
  blockedTerms: z.array(shortText).max(1000).optional(),
  redactPii: z.boolean().optional(),
});

export const preApprovedToolsSchema = z.array(toolName).max(1000);

export const providerModelPreferencesSchema = z.record(
  providerKeySchema,
  z.strictObject({
    model: z.string().min(1).max(200),
    fallbackModels: z.array(z.string().min(1).max(200)).max(20).optional(),
    temperature: z.number().min(0).max(2).optional(),
    maxOutputTokens: z.int().min(1).max(1_000_000).optional(),
  }),
);

export const modelSelectionSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('auto'), providers: z.array(providerKeySchema).max(20).optional() }),
  z.strictObject({ mode: z.literal('pinned'), model: qualifiedModel }),
]);

/** 256 KiB of Markdown is far beyond a useful system prompt, and bounds what one agent can store. */
export const MARKDOWN_MAX_CHARS = 262_144;

/**
 * The largest JSON request body the server takes. Three Markdown settings at their limit can pass it
 * together, so the CLI splits a settings PATCH that would (PATCH merges, so the result is the same).
 */
export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;
const markdown = z.string().max(MARKDOWN_MAX_CHARS);

export const settingSchemas = {
  networkConfig: networkConfigSchema,
  egressConfig: egressConfigSchema,
  nixConfig: nixConfigSchema,
  mcpServers: mcpServersSchema,
  skillsConfig: skillsConfigSchema,
  toolsConfig: toolsConfigSchema,
  guardrails: guardrailsSchema,
  preApprovedTools: preApprovedToolsSchema,
  providerModelPreferences: providerModelPreferencesSchema,
  modelSelection: modelSelectionSchema,
  'IDENTITY.md': markdown,
  'SOUL.md': markdown,
  'USER.md': markdown,
} as const;

export type SettingKey = keyof typeof settingSchemas;
export const SETTING_KEYS = Object.keys(settingSchemas) as SettingKey[];

/** The whole configuration object: every setting, `null` when unset. */
export const agentConfigSchema = z.strictObject(
  Object.fromEntries(SETTING_KEYS.map((k) => [k, settingSchemas[k].nullable()])) as {
    [K in SettingKey]: z.ZodNullable<(typeof settingSchemas)[K]>;
  },
);
export type AgentConfig = z.infer<typeof agentConfigSchema>;

/** A PATCH body: a key present replaces that setting, `null` clears it, an absent key is untouched. */
export const agentConfigPatchSchema = agentConfigSchema.partial();
export type AgentConfigPatch = z.infer<typeof agentConfigPatchSchema>;
