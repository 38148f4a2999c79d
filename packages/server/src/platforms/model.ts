import { webhookPath } from '@svc/core';
import pg from 'pg';
import type { AppOptions, OrgRef } from '../http/types.js';

/**
 * What `svc_platform_json` (migrations/004_secrets.sql) needs to answer for a platform: the webhook
 * URL prefix, and the names this org may reference that resolve now. Read on every call: references
 * resolve at the moment they are used, and secrets change.
 */
export async function platformAnswerContext(
  options: Pick<AppOptions, 'secrets' | 'basePath' | 'publicUrl'>,
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
