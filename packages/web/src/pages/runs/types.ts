import type { paths } from '../../api/schema';

type Answer<Op> = Op extends { responses: { 200: { content: { 'application/json': infer T } } } } ? T : never;

export type Run = Answer<paths['/api/{org}/runs/{runId}']['get']>['run'];
export type LogLine = Answer<paths['/api/{org}/runs/{runId}/logs']['get']>['lines'][number];

/** A run in one of these statuses has ended: nothing about it changes any more. */
export const ENDED = new Set(['completed', 'failed', 'cancelled', 'timeout']);
