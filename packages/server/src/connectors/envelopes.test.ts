/**
 * The parent's own sorting of what a child sends (the child runs connector code: it may send
 * anything): an identity under a namespace that is undefined is refused naming its field, an
 * Owletto-era envelope is mapped as the SDK's harness maps it.
 */
import { describe, expect, it } from 'vitest';
import { sortEnvelopes } from './envelopes.js';

const star = {
  origin_id: 'star-1',
  origin_type: 'star',
  payload_text: 'octocat starred',
  occurred_at: '2026-11-20T09:00:00Z',
};

describe('sortEnvelopes', () => {
  it('refuses an identity whose namespace arrived undefined (absent from the JSON), naming its field', () => {
    const sent = JSON.parse(
      JSON.stringify([
        { ...star, metadata: { identities: [{ namespace: 'code_host_login', identifier: 'octocat' }] } },
        {
          ...star,
          origin_id: 'star-2',
          metadata: { identities: [{ namespace: undefined, identifier: 'hubot' }] },
        },
        {
          ...star,
          origin_id: 'star-3',
          payload_data: { stargazer: { identity: { namespace: 'github_login', identifier: 'x' } } },
        },
      ]),
    );
    const { events, rejected } = sortEnvelopes(sent, null);
    expect(events.map((e) => e.origin_id)).toEqual(['star-1']);
    expect(rejected).toEqual([
      {
        origin_id: 'star-2',
        reason: expect.stringMatching(/^metadata\.identities\[0\]\.namespace: is missing or undefined: /),
      },
      {
        origin_id: 'star-3',
        reason: expect.stringMatching(
          /^payload_data\.stargazer\.identity\.namespace: "github_login" is Lobu's namespace; here it is "code_host_login"/,
        ),
      },
    ]);
  });

  it('maps an Owletto-era envelope and names the fields it had; refuses one with both names of a field', () => {
    const owletto = {
      external_id: 'hn_1',
      content: 'A story',
      published_at: '2026-11-20T09:00:00Z',
      kind: 'star',
      parent_external_id: 'hn_0',
    };
    const {
      events,
      rejected,
      owletto: fields,
    } = sortEnvelopes([owletto, { ...owletto, external_id: 'hn_2', origin_id: 'hn_2' }], { star: {} });
    expect(events).toEqual([
      {
        origin_id: 'hn_1',
        payload_text: 'A story',
        occurred_at: '2026-11-20T09:00:00Z',
        origin_type: 'star',
        origin_parent_id: 'hn_0',
      },
    ]);
    expect(fields).toEqual(['external_id', 'content', 'published_at', 'kind', 'parent_external_id']);
    expect(rejected).toEqual([
      {
        origin_id: 'hn_2',
        reason:
          'external_id: is the Owletto-era name of origin_id, which this envelope has too: keep only origin_id',
      },
    ]);
  });
});
