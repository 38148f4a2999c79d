import { recordIdSchema } from '@svc/core';
import { z } from 'zod';
import { iso } from '../http/common.js';
import type { RelationshipRow } from './queries.js';

/** A relationship as the API answers it, in its list, its creation and its entities' pages. */
export const relationshipSchema = z.object({
  id: recordIdSchema,
  type: z.string().describe('the relationship type slug'),
  sourceEntityId: recordIdSchema,
  targetEntityId: recordIdSchema,
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});

export const toRelationship = (row: RelationshipRow) => ({
  id: Number(row.id),
  type: row.relationship_type,
  sourceEntityId: Number(row.source_entity_id),
  targetEntityId: Number(row.target_entity_id),
  metadata: row.metadata,
  createdAt: iso(row.created_at),
});
