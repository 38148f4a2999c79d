/**
 * Checks of the memory model that zod cannot make: JSON Schemas that must compile, relationship
 * rules that must name declared entity types, and watchers' notification channels that must name
 * a platform of the watcher's agent. Each problem is reported where it is written.
 */

import { invalidSchemaProblems, schemaLimitProblems } from '@svc/connector-sdk';
import { extractionSchemaRootProblem, ruleSlugs } from '@svc/core';
import type { Bundles } from './bundles.js';
import { type Context, renderPath, report } from './issues.js';
import type { TomlPath } from './toml-locator.js';

const SCHEMA_HINT =
  'write a JSON Schema (draft 2020-12), for example {type: object, properties: {email: {type: string}}}';

/**
 * A `metadata_schema` or `extraction_schema` that would not compile, at the line of the part that
 * is wrong when the problem names one (`properties.email.type`), else at the schema.
 */
export function reportSchemaProblems(
  ctx: Context,
  at: TomlPath,
  schema: Record<string, unknown> | undefined,
  options: { objectRoot?: boolean } = {},
): void {
  if (schema === undefined) return;
  // Limits first: compiling an oversized schema is itself what they guard against.
  const limits = schemaLimitProblems(schema);
  const problems = limits.length > 0 ? limits : invalidSchemaProblems(schema);
  for (const problem of problems) {
    const colon = problem.indexOf(': ');
    const where = problem.slice(0, colon);
    const inside = where === '(schema)' ? [] : where.split('.');
    const path = [...at, ...inside];
    report(
      ctx,
      path,
      'value',
      `${renderPath(path)}: is not valid JSON Schema: ${problem.slice(colon + 2)}`,
      SCHEMA_HINT,
    );
  }
  const root = options.objectRoot && problems.length === 0 ? extractionSchemaRootProblem(schema) : null;
  if (root) {
    report(
      ctx,
      at,
      'value',
      `${renderPath(at)}: ${root}`,
      "a watcher's result is stored as an object: type: object, with properties naming its fields",
    );
  }
}

/** Every slug a relationship type's rules name must be an entity type the project declares. */
export function checkRules(bundles: Bundles): void {
  const declared = new Set(bundles.entities.map((e) => e.item.slug));
  const known = [...declared].map((slug) => `"${slug}"`).join(', ');
  for (const { item, ctx, path } of bundles.relationships) {
    for (const [r, rule] of (item.rules ?? []).entries()) {
      for (const side of ['source', 'target'] as const) {
        const written = rule[side];
        ruleSlugs(written).forEach((slug, j) => {
          if (declared.has(slug)) return;
          const at = [...path, 'rules', r, side, ...(typeof written === 'string' ? [] : [j])];
          report(
            ctx,
            at,
            'value',
            `${renderPath(at)}: relationship type "${item.slug}" allows entity type "${slug}", which no bundle declares`,
            known
              ? `declared entity types: ${known}; declare "${slug}" under entities: or fix the name`
              : `no bundle declares entity types; declare "${slug}" under entities:`,
          );
        });
      }
    }
  }
}

/**
 * A watcher posting to a chat platform must name one of its agent's platforms (by stable ID).
 * `platforms` holds each agent's stable IDs; an agent absent from it is not checked (svc.toml has
 * problems there, reported on their own).
 */
export function checkNotificationChannels(bundles: Bundles, platforms: Map<string, string[]>): void {
  for (const { item, ctx, path } of bundles.watchers) {
    const channel = item.notification_channel;
    if (typeof channel !== 'object') continue;
    const declared = platforms.get(item.agent);
    if (!declared || declared.includes(channel.platform)) continue;
    const at = [...path, 'notification_channel', 'platform'];
    report(
      ctx,
      at,
      'value',
      `${renderPath(at)}: watcher "${item.slug}" posts to platform "${channel.platform}", which is not a platform of agent "${item.agent}"`,
      declared.length > 0
        ? `the stable IDs of its platforms: ${declared.map((id) => `"${id}"`).join(', ')}`
        : `agent "${item.agent}" has no platforms in svc.toml; add one with [[agents.${item.agent}.platforms]]`,
    );
  }
}
