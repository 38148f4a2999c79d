import { type RunActionOptions, runAction } from '@svc/connector-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import codeHost from './index.js';
import { type FakeGitHub, startFakeGitHub } from './test/fake-github.js';

let fake: FakeGitHub;

beforeEach(async () => {
  fake = await startFakeGitHub();
});
afterEach(async () => {
  await fake.close();
});

const act = (actionKey: string, input: Record<string, unknown>, options: Partial<RunActionOptions> = {}) =>
  runAction(codeHost, {
    actionKey,
    input,
    config: { repo: fake.repo, apiUrl: fake.url },
    credentials: { provider: 'github', accessToken: fake.token },
    ...options,
  });

const posts = () => fake.requests.filter((r) => r.method === 'POST');

describe('create_issue', () => {
  it('creates the issue, returns its number and URL, and would wait for approval', async () => {
    fake.addIssue();

    const run = await act('create_issue', {
      title: 'Flaky test',
      body: 'It fails *sometimes*',
      labels: ['ci'],
    });

    expect(run.result).toEqual({
      success: true,
      output: { number: 2, url: 'https://github.com/octo/hello-world/issues/2' },
    });
    expect(run.requiresApproval).toBe(true);
    expect(run.outputProblems).toEqual([]);
    expect(fake.items[1]).toMatchObject({
      title: 'Flaky test',
      body: 'It fails *sometimes*',
      labels: ['ci'],
    });
    expect(JSON.parse(posts()[0]?.body ?? '')).toEqual({
      title: 'Flaky test',
      body: 'It fails *sometimes*',
      labels: ['ci'],
    });
    expect(posts()[0]?.headers.authorization).toBe(`Bearer ${fake.token}`);
  });

  it("returns the server's validation message as a failure", async () => {
    fake.failNext({
      status: 422,
      body: {
        message: 'Validation Failed',
        errors: [{ resource: 'Issue', code: 'invalid', field: 'labels' }],
      },
    });

    const run = await act('create_issue', { title: 'x', labels: ['no such label'] });

    expect(run.result).toEqual({
      success: false,
      error: 'POST /repos/octo/hello-world/issues failed (422: Validation Failed (labels invalid))',
    });
  });

  it('does not retry a 502, which may have come after the issue was created', async () => {
    fake.failNext({ status: 502, body: { message: 'Server Error' } });

    const run = await act('create_issue', { title: 'Once only' });

    expect(run.result).toEqual({
      success: false,
      error: 'POST /repos/octo/hello-world/issues failed (502: Server Error)',
    });
    expect(posts()).toHaveLength(1);
  });

  it('fails, rather than throws, on a rejected token, a missing repo or a blank title', async () => {
    const rejected = await act(
      'create_issue',
      { title: 'x' },
      { credentials: { provider: 'github', accessToken: 'gho_old_1234' } },
    );
    expect(rejected.result).toMatchObject({
      success: false,
      error: expect.stringMatching(/rejected the access token/),
    });

    const noRepo = await act('create_issue', { title: 'x' }, { config: { apiUrl: fake.url } });
    expect(noRepo.result).toEqual({
      success: false,
      error: 'connection options is invalid: repo: Invalid input: expected string, received undefined',
    });

    const blank = await act('create_issue', { title: '   ' });
    expect(blank.result).toMatchObject({
      success: false,
      error: expect.stringMatching(/^input is invalid: title:/),
    });
    expect(posts()).toHaveLength(1);
    expect(JSON.stringify([rejected.logs, noRepo.logs, blank.logs])).not.toContain('gho_old_1234');
  });
});

describe('add_label', () => {
  it('adds labels to an issue, keeps those it had, and needs no approval', async () => {
    fake.addIssue({ labels: ['bug'] });

    const run = await act('add_label', { number: 1, labels: ['p1', 'bug'] });

    expect(run.result).toEqual({ success: true, output: { number: 1, labels: ['bug', 'p1'] } });
    expect(run.requiresApproval).toBe(false);
    expect(run.outputProblems).toEqual([]);
    expect(fake.items[0]?.labels).toEqual(['bug', 'p1']);
  });

  it('retries a transient failure, since adding a label twice changes nothing', async () => {
    fake.addIssue();
    fake.failNext({ status: 503, body: { message: 'Unavailable' } });

    const run = await act('add_label', { number: 1, labels: ['triage'] });

    expect(run.result).toEqual({ success: true, output: { number: 1, labels: ['triage'] } });
    expect(posts()).toHaveLength(2);
  });

  it('says which item does not exist', async () => {
    const run = await act('add_label', { number: 99, labels: ['x'] });

    expect(run.result).toEqual({
      success: false,
      error:
        'POST /repos/octo/hello-world/issues/99/labels was not found (404: Not Found): the repository does not exist or the token cannot see it',
    });
  });
});
