import { describe, expect, it } from 'vitest';
import { parseChildMessage } from '../connectors/child-messages.js';
import { checkArtifact, MAX_ARTIFACT_BYTES } from './artifacts.js';

/** What the parent takes of a child's artifacts and results: the SDK's shapes and the server's bounds. */
describe('an artifact from the child', () => {
  it('is taken when it is one of the spec’s', () => {
    for (const artifact of [
      { type: 'qr', value: 'pair://x', expiresAt: '2026-01-01T00:00:00Z', instructions: 'scan' },
      { type: 'code', value: 'ABCD' },
      { type: 'redirect', url: 'https://example.com/a', mode: 'popup', awaitSignal: 'back' },
      { type: 'prompt', fields: [{ key: 'p', label: 'Password', kind: 'password' }], submitSignal: 'login' },
      { type: 'status', message: 'working' },
    ]) {
      expect(checkArtifact(artifact)).toEqual(artifact);
    }
  });

  it('is refused, saying where, when it is not', () => {
    const why = (artifact: unknown) => (checkArtifact(artifact) as Error).message;
    expect(why({ type: 'qr' })).toMatch(/\(value: /);
    expect(why({ type: 'qr', value: 'x', colour: 'red' })).toMatch(/colour/);
    expect(why({ type: 'banner', text: 'x' })).toMatch(
      /type must be one of qr, code, redirect, prompt, status/,
    );
    expect(why({ type: 'redirect', url: 'javascript:alert(1)', mode: 'popup', awaitSignal: 'b' })).toMatch(
      /url/,
    );
    expect(
      why({ type: 'prompt', fields: [{ key: 'a', label: 'A', kind: 'text' }], submitSignal: 'a/../b' }),
    ).toMatch(/signal: a signal name is 1 to 64/);
    const fields = Array.from({ length: 21 }, (_, i) => ({ key: `f${i}`, label: 'F', kind: 'text' }));
    expect(why({ type: 'prompt', fields, submitSignal: 's' })).toMatch(/at most 20 fields/);
    expect(why({ type: 'qr', value: 'x'.repeat(MAX_ARTIFACT_BYTES) })).toMatch(/at most 16 KB/);
    expect(why(null)).toMatch(/does not take/);
  });
});

describe('an auth message from the child', () => {
  it('is checked like every other', () => {
    expect(
      parseChildMessage({ type: 'artifact', seq: 1, artifact: { type: 'status', message: 'm' } }, null),
    ).toEqual({
      type: 'artifact',
      seq: 1,
      artifact: { type: 'status', message: 'm' },
    });
    expect(parseChildMessage({ type: 'await', seq: 2, name: 'otp', timeoutMs: null }, null)).toMatchObject({
      type: 'await',
    });
    expect(parseChildMessage({ type: 'await', seq: 2, name: '../x', timeoutMs: null }, null)).toBeInstanceOf(
      Error,
    );
    expect(parseChildMessage({ type: 'authenticated', result: { credentials: {} } }, null)).toBeInstanceOf(
      Error,
    );
    expect(
      parseChildMessage({ type: 'authenticated', result: { credentials: { t: 'x'.repeat(70_000) } } }, null),
    ).toBeInstanceOf(Error);
    expect(
      parseChildMessage(
        { type: 'authenticated', result: { credentials: { t: 'x' }, metadata: { account_id: 'a' } } },
        null,
      ),
    ).toEqual({ type: 'authenticated', result: { credentials: { t: 'x' }, metadata: { account_id: 'a' } } });
  });
});
