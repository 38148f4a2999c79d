import { webhookPath } from '@svc/core';
import pg from 'pg';
import type { OrgRef } from '../http/types.js';
import type { SecretResolver } from '../secrets/resolve.js';

/** What a platform's answer is built with: where webhooks are reached, and the org's secrets. */
export interface PlatformAnswerOptions {
  /** Mount prefix such as `/svc`, or `''`. */
  basePath: string;
  /** Absolute origin that clients reach the server at, for webhook URLs. */
  publicUrl?: string;
  secrets: SecretResolver;
}

/**
 * What `svc_platform_json` (migrations/004_secrets.sql) needs to answer for a platform: the webhook
 * URL prefix, and the names this org may reference that resolve now. Read on every call: references
 * resolve at the moment they are used, and secrets change.
 */
export async function platformAnswerContext(
  options: PlatformAnswerOptions,
  org: OrgRef,
): Promise<{ webhookBase: string; setVars: string[] }> {
  return {
    webhookBase: `${options.publicUrl ?? ''}${options.basePath}${webhookPath('')}`,
    setVars: [...(await options.secrets.available(org))],
  };
}

const JSON_OID = 114;
/** Leaves `json` columns as the text PostgreSQL sent, for answers passed through unparsed. */
export const rawJson = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === JSON_OID
      ? (value: string) => value
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};
