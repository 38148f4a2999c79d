import { Cron } from 'croner';
import { z } from 'zod';
import { ID_PATTERN, ID_RULE, STABLE_ID_MAX_LENGTH, STABLE_ID_PATTERN, slugify } from './ids.js';
import { platformConfigIssues } from './platform-config.js';
import { WHOLE_SECRET_REFERENCE } from './secrets.js';
import { agentConfigSchema, providerKeySchema } from './settings.js';

/** What every mutation answers, so that a client can print exactly what happened. */
export const mutationResultSchema = z.enum(['created', 'updated', 'unchanged']);
export type MutationResult = z.infer<typeof mutationResultSchema>;

export const idSchema = z.string().regex(ID_PATTERN, { message: `must be ${ID_RULE}` });
export const timestampSchema = z.iso.datetime({ offset: true });

// ---- orgs and tokens -------------------------------------------------------------------------

export const orgCreateSchema = z.strictObject({
  slug: idSchema,
  name: z.string().min(1).max(200).optional(),
});
export const orgSchema = z.object({
  slug: z.string(),
  name: z.string(),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type Org = z.infer<typeof orgSchema>;

export const SCOPES = ['read', 'write', 'messages', 'admin'] as const;
export const scopeSchema = z.enum(SCOPES);
export type Scope = z.infer<typeof scopeSchema>;

export const tokenCreateSchema = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[\w .:@-]+$/, { message: 'may hold letters, digits, spaces and _ . : @ -' }),
  scopes: z.array(scopeSchema).min(1).max(SCOPES.length),
  expiresInDays: z.int().min(1).max(3650).optional(),
});
export const tokenSchema = z.object({
  id: z.string(),
  name: z.string(),
  scopes: z.array(scopeSchema),
  createdAt: timestampSchema,
  expiresAt: timestampSchema.nullable(),
  lastUsedAt: timestampSchema.nullable(),
  revokedAt: timestampSchema.nullable(),
});
export type Token = z.infer<typeof tokenSchema>;

// ---- agents ----------------------------------------------------------------------------------

/** An LLM provider of an agent: its key and the reference of its secret, never the secret. */
export const providerSchema = z.strictObject({
  key: providerKeySchema,
  secret_ref: z.string().regex(WHOLE_SECRET_REFERENCE, {
    message:
      'must be a reference such as "$OPENAI_API_KEY", never the value: store the value with "svc secrets set OPENAI_API_KEY"',
  }),
});

export const agentUpsertSchema = z.strictObject({
  agentId: idSchema,
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  /** Absent means none, as an absent description means "". */
  providers: z
    .array(providerSchema)
    .max(20)
    .refine((list) => new Set(list.map((p) => p.key)).size === list.length, {
      message: 'provider keys must be unique',
    })
    .optional(),
});
export type AgentUpsert = z.infer<typeof agentUpsertSchema>;

// ---- platforms -------------------------------------------------------------------------------

export const PLATFORM_TYPES = ['team_chat', 'messenger'] as const;
export const platformTypeSchema = z.enum(PLATFORM_TYPES);

/** Config values are strings, numbers, booleans or lists and tables of them; secrets stay `$REFERENCES`. */
type ConfigValue = string | number | boolean | null | ConfigValue[] | { [key: string]: ConfigValue };
const configValue: z.ZodType<ConfigValue> = z
  .lazy(() =>
    z.union([
      z.string().max(8192),
      z.number(),
      z.boolean(),
      z.null(),
      z.array(configValue).max(200),
      z.record(z.string().max(200), configValue),
    ]),
  )
  // A named component: recursive schemas need a $ref target.
  .meta({
    id: 'PlatformConfigValue',
    description: 'A string, number, boolean or null, or a list or table of such values, nested to any depth',
  });
export const platformConfigSchema = z.record(z.string().min(1).max(200), configValue);

/** A name that slugifies to nothing would vanish from the stable ID (DESIGN.md section 5). */
const platformNameSchema = z
  .string()
  .min(1)
  .max(100)
  .refine(
    (name) => {
      try {
        slugify(name);
        return true;
      } catch {
        return false;
      }
    },
    {
      message:
        'must contain a letter a-z or a digit (accents are dropped), so that it can be part of the stable ID',
    },
  );

/** A platform's fields, each checked on its own; `platformPutSchema` adds what the config must hold. */
export const platformPutFieldsSchema = z.strictObject({
  type: platformTypeSchema,
  name: platformNameSchema.optional(),
  config: platformConfigSchema.default({}).meta({
    description:
      'What the platform reads. team_chat (Slack Events API): signing_secret, bot_token. messenger ' +
      '(Telegram Bot API): bot_token, secret_token. messenger with flavor = "whatsapp" (WhatsApp Cloud ' +
      'API): access_token, app_secret, verify_token, phone_number_id. Each of these but phone_number_id ' +
      'must be a secret reference ($NAME or ${NAME}). One of these keys in another case style (botToken) ' +
      'is refused, naming the key meant; other keys are kept as written.',
  }),
});

/**
 * The body of a platform PUT, and a `[[agents.<id>.platforms]]` entry of svc.toml: the same rule
 * for both, so `svc apply` reports at file:line what the server would refuse.
 */
export const platformPutSchema = platformPutFieldsSchema.superRefine((put, ctx) => {
  for (const issue of platformConfigIssues(put.type, put.config)) {
    ctx.addIssue({ code: 'custom', path: ['config', issue.key], message: issue.message });
  }
});
export type PlatformPut = z.infer<typeof platformPutSchema>;

export const platformProblemSchema = z.object({
  code: z.literal('secret_missing'),
  variable: z.string(),
  path: z.string(),
  message: z.string(),
});

export const platformSchema = z.object({
  stableId: z.string(),
  agentId: z.string(),
  type: platformTypeSchema,
  name: z.string().nullable(),
  config: platformConfigSchema,
  webhookUrl: z.string(),
  status: z.enum(['ok', 'error']),
  problems: z.array(platformProblemSchema),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
});
export type Platform = z.infer<typeof platformSchema>;

export const agentProviderSchema = z.object({
  key: z.string(),
  secret_ref: z.string(),
  status: z.enum(['ok', 'error']),
  problems: z.array(platformProblemSchema),
});

export const agentSchema = z.object({
  agentId: z.string(),
  name: z.string(),
  description: z.string(),
  providers: z.array(agentProviderSchema),
  createdAt: timestampSchema,
  updatedAt: timestampSchema,
  config: agentConfigSchema.optional(),
  platforms: z.array(platformSchema).optional(),
});
export type Agent = z.infer<typeof agentSchema>;

// ---- memory schema (entity types, relationship types, watchers) -------------------------------

const memorySlug = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, {
  message: 'must be lowercase letters, digits, "_" or "-", at most 63',
});

/**
 * A JSON Schema as a bundle writes it (an object). Whether it compiles is checked where it is read
 * (the CLI at file:line, the server before it stores it): zod cannot say what Ajv would.
 */
export const jsonSchemaObjectSchema = z.record(z.string(), z.unknown());

export const entityTypeSchema = z.strictObject({
  slug: memorySlug,
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  /** How a console shows the type: an emoji or an icon name, and a CSS colour; kept as written. */
  icon: z.string().min(1).max(100).optional(),
  color: z.string().min(1).max(50).optional(),
  /** What an entity's metadata (its traits) must be; traits that fail it are not written. */
  metadata_schema: jsonSchemaObjectSchema.optional(),
});

/** One entity type slug, or several: `source: person` or `source: [person, company]`. */
const entityTypeSlugs = z.union([memorySlug, z.array(memorySlug).min(1).max(100)]);

/**
 * Which entity types a relationship of the type may join: a source and a target allowed by one
 * rule. No rules: any two entities.
 */
export const relationshipRuleSchema = z.strictObject({
  source: entityTypeSlugs,
  target: entityTypeSlugs,
});
export type RelationshipRule = z.infer<typeof relationshipRuleSchema>;

/** The slugs a rule's side names, as a list whichever way it was written. */
export const ruleSlugs = (side: string | string[]): string[] => (typeof side === 'string' ? [side] : side);

export const relationshipTypeSchema = z.strictObject({
  slug: memorySlug,
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  /** What a relationship's metadata must be. */
  metadata_schema: jsonSchemaObjectSchema.optional(),
  rules: z.array(relationshipRuleSchema).max(200).optional(),
});

/** Five fields, each at least a minute apart: croner would also accept seconds, which we refuse. */
export const cronSchema = z
  .string()
  .max(200)
  .superRefine((expr, ctx) => {
    const fields = expr.trim().split(/\s+/);
    if (fields.length !== 5) {
      ctx.addIssue({
        code: 'custom',
        message: `must have 5 fields (minute hour day month weekday), got ${fields.length}`,
      });
      return;
    }
    try {
      const runs = new Cron(expr, { timezone: 'UTC', paused: true }).nextRuns(2);
      if (runs.length === 0) ctx.addIssue({ code: 'custom', message: 'never runs' });
    } catch (error) {
      ctx.addIssue({
        code: 'custom',
        message: `is not a valid cron expression: ${(error as Error).message}`,
      });
    }
  });

const timeZone = z.string().refine(
  (tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be an IANA time zone such as "Europe/Berlin"' },
);

/** Where a watcher's window reads from; every field narrows it (all of the org's events when absent). */
export const watcherSourceSchema = z
  .strictObject({
    name: z.string().min(1).max(200).optional(),
    /** A connector key: events of every connection of it. */
    connector: z.string().min(1).max(200).optional(),
    /** A feed key of that connector (or of any connector). */
    feed: z.string().min(1).max(200).optional(),
    /** Events linked to entities of this type. */
    entity_type: memorySlug.optional(),
  })
  .refine((s) => s.connector !== undefined || s.feed !== undefined || s.entity_type !== undefined, {
    message: 'a source names at least one of connector, feed or entity_type',
  });
export type WatcherSource = z.infer<typeof watcherSourceSchema>;

/**
 * Where a watcher's result is posted: a chat platform of the watcher's agent (its stable id) and a
 * channel there. Lobu's `canvas`, `notification` and `both` are accepted as written: the result is
 * kept and shown (as it always is) and posted nowhere.
 */
export const notificationChannelSchema = z.union([
  z.enum(['canvas', 'notification', 'both']),
  z.strictObject({
    platform: z.string().min(1).max(200),
    channel: z.string().min(1).max(200),
    thread: z.string().min(1).max(200).optional(),
  }),
]);
export type NotificationChannel = z.infer<typeof notificationChannelSchema>;

/**
 * Why an `extraction_schema` that compiles still cannot be one: a watcher's result is stored as an
 * object, so the root must describe one. `null` when it is fine.
 */
export function extractionSchemaRootProblem(schema: Record<string, unknown>): string | null {
  if (schema.type !== 'object') return 'the root must be "type": "object"';
  const properties = schema.properties;
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties))
    return 'the root must have "properties": the fields of the result';
  return null;
}

export const watcherSchema = z.strictObject({
  slug: memorySlug,
  name: z.string().min(1).max(200),
  schedule: cronSchema,
  prompt: z.string().min(1).max(20_000),
  agent: idSchema,
  timezone: timeZone.optional(),
  description: z.string().max(2000).optional(),
  /** The result must be an object valid against it (root `type: object`). */
  extraction_schema: jsonSchemaObjectSchema.optional(),
  tags: z.array(z.string().min(1).max(100)).max(100).optional(),
  sources: z.array(watcherSourceSchema).max(100).optional(),
  notification_channel: notificationChannelSchema.optional(),
  /** Windows closer together than this are merged into one (the next waits). */
  min_cooldown_seconds: z
    .int()
    .min(0)
    .max(366 * 86_400)
    .optional(),
});

export const MEMORY_KINDS = ['entity_type', 'relationship_type', 'watcher'] as const;
export const memoryKindSchema = z.enum(MEMORY_KINDS);
export type MemoryKind = z.infer<typeof memoryKindSchema>;

const upsertOperationSchema = z.discriminatedUnion('kind', [
  z.strictObject({ action: z.literal('upsert'), kind: z.literal('entity_type'), item: entityTypeSchema }),
  z.strictObject({
    action: z.literal('upsert'),
    kind: z.literal('relationship_type'),
    item: relationshipTypeSchema,
  }),
  z.strictObject({ action: z.literal('upsert'), kind: z.literal('watcher'), item: watcherSchema }),
]);

export const entitySchemaOperationSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('list'), kind: memoryKindSchema.optional() }),
  upsertOperationSchema,
  z.strictObject({ action: z.literal('delete'), kind: memoryKindSchema, slug: memorySlug }),
]);
export type EntitySchemaOperation = z.infer<typeof entitySchemaOperationSchema>;

const stored = { createdAt: timestampSchema, updatedAt: timestampSchema };
export const storedEntityTypeSchema = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  icon: z.string().nullable(),
  color: z.string().nullable(),
  metadata_schema: jsonSchemaObjectSchema.nullable(),
  ...stored,
});
export const storedRelationshipTypeSchema = z.object({
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  metadata_schema: jsonSchemaObjectSchema.nullable(),
  rules: z.array(z.object({ source: entityTypeSlugs, target: entityTypeSlugs })).nullable(),
  ...stored,
});
export const storedWatcherSchema = z.object({
  slug: z.string(),
  name: z.string(),
  schedule: z.string(),
  prompt: z.string(),
  agent: z.string(),
  timezone: z.string().nullable(),
  description: z.string().nullable(),
  extraction_schema: jsonSchemaObjectSchema.nullable(),
  tags: z.array(z.string()).nullable(),
  sources: z.array(z.record(z.string(), z.unknown())).nullable(),
  notification_channel: z.union([z.string(), z.record(z.string(), z.unknown())]).nullable(),
  min_cooldown_seconds: z.number().nullable(),
  ...stored,
});

// ---- the apply manifest: what the latest `svc apply` to an org declared -----------------------

/** Ids of one kind in a manifest, at most: far above any project, far below the body limit. */
export const APPLY_MANIFEST_MAX_IDS = 10_000;

/** A list of ids of one kind: each valid, none twice (the order does not matter; it is kept sorted). */
const idList = (item: z.ZodType<string>) =>
  z
    .array(item)
    .max(APPLY_MANIFEST_MAX_IDS)
    .superRefine((ids, ctx) => {
      const seen = new Set<string>();
      ids.forEach((id, index) => {
        if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [index], message: `"${id}" is listed twice` });
        seen.add(id);
      });
    });

export const stableIdSchema = z.string().max(STABLE_ID_MAX_LENGTH).regex(STABLE_ID_PATTERN, {
  message: 'must be a stable platform ID: {agentId}-{type}[-{name}], slugified (e.g. "support-team-chat")',
});

/** A project's label as people read it (its folder's name): any text but control characters. */
const projectLabelSchema = z
  .string()
  .min(1)
  .max(200)
  // Cc spelled as a range, not \P{Cc}: the OpenAPI document carries the pattern, and JSON Schema
  // validators (spectral's, clients') read it without the `u` flag.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing them is the point
  .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, { message: 'may not hold control characters' });

/**
 * The body of `PUT /api/:org/apply-manifest`, which `svc apply` sends after a successful apply:
 * the ids of every resource the project declares (never a value, never a secret), so that the
 * server can tell what apply manages from drift. Each platform belongs to a declared agent.
 */
export const applyManifestPutSchema = z
  .strictObject({
    project: projectLabelSchema
      .nullable()
      .optional()
      .describe("the project's name or folder name, for display; absent is null"),
    agents: idList(idSchema).describe('agentIds'),
    platforms: idList(stableIdSchema).describe('stable platform IDs'),
    entityTypes: idList(memorySlug).describe('entity type slugs'),
    relationshipTypes: idList(memorySlug).describe('relationship type slugs'),
    watchers: idList(memorySlug).describe('watcher slugs'),
  })
  .superRefine((manifest, ctx) => {
    // Zod runs this even when an entry failed its own check, which is reported already: only
    // valid ids are compared (and lists, though a list of another type stops zod before this). Each `-` of a stable ID may end its agent's part: linear in the ids.
    const valid = (id: unknown, pattern: RegExp): id is string => typeof id === 'string' && pattern.test(id);
    if (!Array.isArray(manifest.agents) || !Array.isArray(manifest.platforms)) return;
    const agents = new Set(manifest.agents.filter((id) => valid(id, ID_PATTERN)).map((id) => slugify(id)));
    const ofAnAgent = (stableId: string) =>
      [...stableId.matchAll(/-/g)].some((dash) => agents.has(stableId.slice(0, dash.index)));
    manifest.platforms.forEach((stableId, index) => {
      if (valid(stableId, STABLE_ID_PATTERN) && !ofAnAgent(stableId)) {
        ctx.addIssue({
          code: 'custom',
          path: ['platforms', index],
          message: `"${stableId}" is the platform of no agent in "agents" (a stable ID starts with its agent's ID)`,
        });
      }
    });
  });
export type ApplyManifestPut = z.infer<typeof applyManifestPutSchema>;

/** What the server holds: the lists sorted, and when this declaration was first applied. */
export const applyManifestSchema = z.object({
  project: z.string().nullable(),
  agents: z.array(z.string()),
  platforms: z.array(z.string()),
  entityTypes: z.array(z.string()),
  relationshipTypes: z.array(z.string()),
  watchers: z.array(z.string()),
  appliedAt: timestampSchema.describe(
    'when the apply that declared exactly this was made: an apply that declares the same again writes nothing',
  ),
});
export type ApplyManifest = z.infer<typeof applyManifestSchema>;
