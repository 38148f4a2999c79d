import { problemSchema } from '@svc/core';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';

/** One named component, so that a generated client has one problem type to narrow errors to. */
const problem = problemSchema.meta({ id: 'Problem' });

/** A documented error answer: always `application/problem+json`, as `sendProblem` sends it. */
export const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problem } },
});

/** Problem answers documented on every route (the error handler sends them). */
export const problemResponses = {
  400: problemResponse('The request is not valid'),
  401: problemResponse('Missing or bad credentials'),
  403: problemResponse('The credentials lack the needed scope'),
  404: problemResponse('No such resource in this org'),
};

/** The body of a POST or DELETE that takes none. */
export const noBody = z.strictObject({}).nullish().describe('no fields; the body may be left out');

/**
 * The id of a stored row in a path, documented as the integer its record carries so that a
 * generated client passes a record's id as it is. Read as text, as it always was: a value that
 * names no row (`abc`, `1.0`, `-1`) is a 404, like any other id that is not there.
 */
export const recordIdParam = z.string().max(20).meta({ type: 'integer', minimum: 1, maxLength: undefined });

/** The id of a stored row as a query filter: digits only, else a 400 that says so. */
export const recordIdFilter = z
  .string()
  .regex(/^\d{1,18}$/, { message: 'must be a numeric id' })
  .meta({ type: 'integer', minimum: 1, pattern: undefined });

export const orgParams = z.object({ org: z.string().max(100).describe('org slug') });

/**
 * A point in time that a client sends: RFC 3339 with an offset, years 0001 to 9999. The format
 * lets year 0000 through, which PostgreSQL does not have: refused here rather than by the database.
 */
export const instantSchema = z.iso
  .datetime({ offset: true })
  .refine((text) => !text.startsWith('0000-'), 'year 0000 does not exist; send a year from 0001 to 9999');

export const iso = (value: Date | string): string => new Date(value).toISOString();
export const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : iso(value));

/**
 * Sends JSON text built elsewhere (by PostgreSQL) as it is: Fastify passes a string with a JSON
 * content type through without serializing it again. The route's response schema still documents
 * it, and the tests check such answers against that schema.
 */
export function sendJsonText(reply: FastifyReply, json: string): FastifyReply {
  return reply.type('application/json').send(json as never);
}
