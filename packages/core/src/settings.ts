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

/** A record whose invalid keys are reported with their own rule's message, not "Invalid key in record". */
function keyedRecord<K extends z.ZodType<string>, V extends z.ZodType>(key: K, value: V) {
  return z.record(key, value, {
    error: (issue) => (issue.code === 'invalid_key' ? issue.issues?.[0]?.message : undefined),
  });
}

/** Control characters in a URL are dropped by URL parsers, so a stored one is never what is called. */
const httpUrl = z
  .string()
  .max(2048)
  // Cc spelled as a range, not \P{Cc}: the OpenAPI document carries the pattern, and JSON Schema
  // validators (spectral's, clients') read it without the `u` flag.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, {
    message: 'must not contain control characters such as CR or LF',
  })
  .pipe(z.url({ protocol: /^https?$/ }));

/** RFC 9110 field names are tokens; values never hold CR, LF or NUL, which would split a request. */
const headerMap = keyedRecord(
  z
    .string()
    .max(200)
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, {
      message: 'must be a header name such as "Authorization" (letters, digits and !#$%&\'*+.^_`|~-)',
    }),
  z
    .string()
    .max(8192)
    .regex(/^[^\r\n\0]*$/, { message: 'must not contain CR, LF or NUL' }),
);

/**
 * Variables that make a process load or run code other than its executable's: the loader's
 * (`LD_*`, `DYLD_*`, glibc's `GCONV_PATH`), `PATH`, which picks the executable, and the start-up
 * hooks of language runtimes and package managers, by prefix where a family has many (`NODE_*` but `NODE_ENV`,
 * `PYTHON*`, `NPM_CONFIG_*`: npm's `script-shell` runs a shell of the caller's choosing).
 */
const FORBIDDEN_ENV =
  /^(LD_|DYLD_|NODE_(?!ENV$)|PYTHON|NPM_CONFIG_|PERL|RUBY|JAVA_|_JAVA_|JDK_JAVA_)|^(PATH|GCONV_PATH|BASH_ENV|ENV|ZDOTDIR|IFS)$/i;

/** True for an environment variable an MCP server's `env` may not set. */
export function isForbiddenMcpEnvKey(name: string): boolean {
  return FORBIDDEN_ENV.test(name);
}

const mcpEnv = keyedRecord(
  z
    .string()
    .max(200)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: 'must be a variable name such as "LOG_LEVEL"' })
    .refine((name) => !isForbiddenMcpEnvKey(name), {
      message:
        'sets a loader or runtime hook (LD_*, DYLD_*, PATH, GCONV_PATH, NODE_*, PYTHON*, NPM_CONFIG_*, PERL*, RUBY*, JAVA_*, ...), which an MCP server may not set',
    }),
  z
    .string()
    .max(8192)
    .regex(/^[^\0]*$/, { message: 'must not contain NUL' }),
);

/**
 * Shells and `env` run whatever command line they are given, so svc never runs one as an MCP
 * server, whatever SVC_MCP_COMMANDS says: the server's executable goes in `command`, its
 * arguments in `args`.
 */
export const MCP_SHELLS: readonly string[] = [
  'sh',
  'ash',
  'bash',
  'dash',
  'zsh',
  'ksh',
  'mksh',
  'csh',
  'tcsh',
  'fish',
  'busybox',
  'env',
  'cmd',
  'cmd.exe',
  'powershell',
  'powershell.exe',
  'pwsh',
];

/** The executable's own name: `/bin/sh` and `sh` are both the shell. */
export function isMcpShell(command: string): boolean {
  const name = command.split(/[\\/]/).pop() ?? command;
  return MCP_SHELLS.includes(name.toLowerCase());
}

const mcpCommand = z
  .string()
  .min(1)
  .max(1000)
  .regex(/^[^\s\0]+$/, {
    message: 'must be one executable name or absolute path, such as "npx"; its arguments go in "args"',
  })
  .refine((command) => !isMcpShell(command), {
    message:
      'is a shell, which svc never runs as an MCP server; name the server\'s executable and put its arguments in "args"',
  });

const SKILL_NAME = /^@?[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*(@[A-Za-z0-9._+-]+)?$/;
/** `https://...` (or `http://`), or a name in a skill registry such as `web-search` or `acme/web-search@1.2.0`. */
const skillSource = z
  .string()
  .max(2048)
  .refine((source) => (source.includes(':') ? httpUrl.safeParse(source).success : SKILL_NAME.test(source)), {
    message:
      'must be an https:// (or http://) URL or a registry name such as "web-search" or "acme/web-search@1.2.0"',
  });

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
  proxyUrl: httpUrl.optional(),
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
    url: httpUrl.optional(),
    command: mcpCommand.optional(),
    args: z
      .array(
        z
          .string()
          .max(4096)
          .regex(/^[^\0]*$/, { message: 'must not contain NUL' }),
      )
      .max(100)
      .optional(),
    headers: headerMap.optional(),
    env: mcpEnv.optional(),
    oauth: z
      .strictObject({
        client_id: z.string().min(1).max(1000),
        client_secret: z.string().max(1000).optional(),
        scopes: z.array(z.string().max(200)).max(100).optional(),
        // The authorization server the credentials may go to; by default the MCP server's origin.
        issuer: httpUrl.optional(),
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

export const mcpServersSchema = keyedRecord(
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
        source: skillSource.optional(),
        enabled: z.boolean().optional(),
      }),
    )
    .max(500),
});

export const toolsConfigSchema = z.strictObject({
  allowed: z.array(toolName).max(1000).optional(),
  denied: z.array(toolName).max(1000).optional(),
  maxCallsPerTurn: z.int().min(1).max(1000).optional(),
  /** The memory tools (memory_search, memory_entities, memory_save): on unless `false`. */
  memory: z.boolean().optional(),
  /** memory_save, which writes events: off unless `true` (and `memory` is not `false`). */
  memorySave: z.boolean().optional(),
});

export const guardrailsSchema = z.strictObject({
  maxInputChars: z.int().min(1).max(10_000_000).optional(),
  maxOutputChars: z.int().min(1).max(10_000_000).optional(),
  blockedTerms: z.array(shortText).max(1000).optional(),
  redactPii: z.boolean().optional(),
});

export const preApprovedToolsSchema = z.array(toolName).max(1000);

export const providerModelPreferencesSchema = keyedRecord(
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

/**
 * Agent turns one process runs at once unless told otherwise (`--concurrency`,
 * `SVC_TURN_CONCURRENCY`). A turn waits on its model for seconds and holds no database connection
 * meanwhile, so what bounds it is memory: see the README's "How many turns a process runs".
 */
export const DEFAULT_TURN_CONCURRENCY = 500;
