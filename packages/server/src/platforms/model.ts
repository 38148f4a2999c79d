import { webhookPath } from '@svc/core';
import pg from 'pg';
import type { AppOptions } from '../http/types.js';

/**
 * What `svc_platform_json` (migrations/003_answers.sql) needs to answer for a platform: the webhook
 * URL prefix, and the names of the variables this server can resolve. Read on every call: the
 * server resolves references from its environment at the moment it uses them.
 */
export function platformAnswerContext(options: Pick<AppOptions, 'secretEnv' | 'basePath' | 'publicUrl'>): {
  webhookBase: string;
  setVars: string[];
} {
  return {
    webhookBase: `${options.publicUrl ?? ''}${options.basePath}${webhookPath('')}`,
    setVars: Object.keys(options.secretEnv).filter((name) => options.secretEnv[name]),
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
