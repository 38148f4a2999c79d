/**
 * Malformed requests that answered 500 (issue 16): the fuzz walk sends each as an explicit example
 * of its operation, and a test checks the exact problem each gets now.
 */
import type { ProblemCode } from '@svc/core';
import { formData } from './malformed.js';
import type { Fixtures, FuzzRequest } from './requests.js';

export interface KnownCase {
  name: string;
  operationId: string;
  request: (fixtures: Fixtures) => FuzzRequest;
  status: number;
  code: ProblemCode;
  /** A JSON Pointer that one of `errors[]` names. */
  errorPath?: string;
}

const cursor = (position: unknown) => Buffer.from(JSON.stringify(position)).toString('base64url');
const NIL = '00000000-0000-0000-0000-000000000000';

const get = (broken: string, params: Record<string, string>, query: string): FuzzRequest => ({
  broken,
  params,
  query,
  headers: {},
  caller: 'admin_password',
});

const agent = (f: Fixtures) => ({ agentId: f.agentId! });
const conversation = (f: Fixtures) => ({ agentId: f.agentId!, conversationId: f.conversationId! });

const message = (contentType: string, body: string) => (f: Fixtures) => ({
  broken: `multipart ${contentType}`,
  params: agent(f),
  query: '',
  headers: { 'content-type': contentType },
  body,
  caller: 'admin_password' as const,
});

const FORM = formData({ platform: 'api', content: 'hi' }, 'b0und');

const badCursor = (name: string, operationId: string, position: unknown, params: (f: Fixtures) => any) => ({
  name,
  operationId,
  request: (f: Fixtures) => get(name, params(f), `cursor=${cursor(position)}`),
  status: 400,
  code: 'validation_failed' as const,
  errorPath: '/querystring/cursor',
});

const badTime = (name: string, query: string) => ({
  name,
  operationId: 'listEvents',
  request: (f: Fixtures) => get(name, { org: f.org! }, query),
  status: 400,
  code: 'validation_failed' as const,
  errorPath: `/querystring/${query.split('=')[0]}`,
});

export const KNOWN_CASES: KnownCase[] = [
  badCursor('conversations: cursor of month 13', 'listConversations', ['2024-13-45 99:99:99+00', NIL], agent),
  badCursor('conversations: cursor in year 0', 'listConversations', ['0000-01-01 00:00:00+00', NIL], agent),
  badCursor(
    'conversations: cursor whose id is no uuid',
    'listConversations',
    ['2024-01-01 00:00:00+00', 'x'],
    agent,
  ),
  badCursor(
    'conversation messages: cursor of February 30',
    'listConversationMessages',
    ['2024-02-30 00:00:00+00', NIL],
    conversation,
  ),
  badCursor(
    'conversation messages: cursor in year 0',
    'listConversationMessages',
    ['0000-12-31 23:59:59.999999+00', NIL],
    conversation,
  ),
  // As a Number, one microsecond before PostgreSQL's first time rounds to it and passed the range check.
  badCursor('events: keyset cursor before 4714 BC', 'listEvents', ['-210866803200000001', '1'], (f) => ({
    org: f.org!,
  })),
  badCursor('runs: keyset cursor before 4714 BC', 'listRuns', ['-210866803200000007', '1'], (f) => ({
    org: f.org!,
  })),
  badTime('events: since in year 0', 'since=0000-01-01T00:00:00Z'),
  badTime('events: until in year 0', 'until=0000-01-01T00:00:00Z'),
  {
    name: 'message: multipart without a boundary',
    operationId: 'sendMessage',
    request: message('multipart/form-data', FORM),
    status: 400,
    code: 'malformed_multipart',
  },
  {
    name: 'message: multipart with an empty boundary',
    operationId: 'sendMessage',
    request: message('multipart/form-data; boundary=', FORM),
    status: 400,
    code: 'malformed_multipart',
  },
  {
    name: 'message: multipart with another boundary',
    operationId: 'sendMessage',
    request: message('multipart/form-data; boundary=other', FORM),
    status: 400,
    code: 'malformed_multipart',
  },
  {
    name: 'message: multipart never closed',
    operationId: 'sendMessage',
    request: message(
      'multipart/form-data; boundary=b0und',
      formData({ platform: 'api', content: 'hi' }, 'b0und', false),
    ),
    status: 400,
    code: 'malformed_multipart',
  },
];
