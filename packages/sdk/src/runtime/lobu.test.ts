/**
 * Connectors written for Lobu's SDK, run through the harness as the server runs them: a read-only
 * `ConnectorRuntime` without `execute`, Lobu's `IDENTITY` names, and Owletto-era envelopes.
 */
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../definition/validate.js';
import type { EventEnvelope } from '../events/envelope.js';
import { OWLETTO_ENVELOPE_FIELDS } from '../events/owletto.js';
import { EnvelopeError } from '../harness/check.js';
import { runAction } from '../harness/run-action.js';
import { runSync } from '../harness/run-sync.js';
import { IDENTITY, identityNamespaceProblem, LOBU_IDENTITY_ALIASES } from '../identity/namespaces.js';
import { ConnectorRuntime, defineConnector, isConnector } from './connector.js';
import type { SyncResult } from './types.js';

/** Lobu's read-only connector: it writes no `execute`, and hands back whatever `events` it is given. */
function readOnly(events: unknown[]) {
  return new (class Feed extends ConnectorRuntime {
    readonly definition = {
      key: 'lobu.feed',
      name: 'Feed',
      version: '1.0.0',
      feeds: { items: { key: 'items', name: 'Items' } },
    };
    async sync(): Promise<SyncResult> {
      return { events: events as EventEnvelope[], checkpoint: null };
    }
  })();
}

describe("ConnectorRuntime's default execute", () => {
  it('answers any action of a connector without execute with a failure result, as Lobu does', async () => {
    const connector = readOnly([]);
    expect(isConnector(connector)).toBe(true);
    expect(await connector.execute({ actionKey: 'post', input: {}, credentials: null, config: {} })).toEqual({
      success: false,
      error: 'Actions not supported: connector "lobu.feed" has no actions (asked for "post")',
    });
    // The harness refuses an action the definition lacks before it reaches execute.
    await expect(runAction(connector, { actionKey: 'post' })).rejects.toThrow(/post/);
  });
});

describe("Lobu's IDENTITY names", () => {
  it("are aliases of the spec's namespaces", () => {
    expect(IDENTITY.GITHUB_LOGIN).toBe('code_host_login');
    expect(IDENTITY.GITHUB_USER_ID).toBe(IDENTITY.CODE_HOST_USER_ID);
    expect(IDENTITY.GITHUB_REPO_ID).toBe(IDENTITY.CODE_HOST_REPO_ID);
    expect(IDENTITY.GITHUB_REPO_FULL_NAME).toBe(IDENTITY.CODE_HOST_REPO_FULL_NAME);
    expect(IDENTITY.SLACK_USER_ID).toBe(IDENTITY.TEAM_CHAT_USER_ID);
    expect(IDENTITY.WA_JID).toBe(IDENTITY.MESSAGING_JID);
    expect(IDENTITY.GOOGLE_CONTACT_ID).toBe(IDENTITY.CONTACTS_CONTACT_ID);
    for (const value of Object.values(LOBU_IDENTITY_ALIASES))
      expect(identityNamespaceProblem(value)).toBeNull();
    expect((IDENTITY as Record<string, unknown>).EMAIL_DOMAIN).toBeUndefined();
  });

  it('link identities in an envelope under the spec namespace, and refuse one that is undefined, naming its field', async () => {
    const identified = (namespace: unknown) => ({
      origin_id: 'star-1',
      payload_text: 'octocat starred',
      occurred_at: '2026-11-20T09:00:00Z',
      metadata: {
        identities: [
          { namespace: IDENTITY.GITHUB_USER_ID, identifier: '583231' },
          { namespace, identifier: 'octocat' },
        ],
      },
    });
    const good = await runSync(readOnly([identified(IDENTITY.GITHUB_LOGIN)]), { feedKey: 'items' });
    expect(good.events[0]?.metadata).toEqual({
      identities: [
        { namespace: 'code_host_user_id', identifier: '583231' },
        { namespace: 'code_host_login', identifier: 'octocat' },
      ],
    });
    // Lobu's EMAIL_DOMAIN has no equivalent: undefined here, as in a connector that names it.
    const undefinedName = (IDENTITY as Record<string, unknown>).EMAIL_DOMAIN;
    const refused = await runSync(readOnly([identified(undefinedName)]), { feedKey: 'items' }).catch(
      (e) => e,
    );
    expect(refused).toBeInstanceOf(EnvelopeError);
    expect(refused.message).toMatch(
      /events\[0\]\.metadata\.identities\[1\]\.namespace: is missing or undefined: an IDENTITY name this SDK does not have is undefined \(Lobu's IDENTITY\.EMAIL_DOMAIN has no equivalent here\)/,
    );
    // As JSON carries it to the server: the key is gone, the identity still refused.
    const sent = JSON.parse(JSON.stringify(identified(undefined)));
    const alsoRefused = await runSync(readOnly([sent]), { feedKey: 'items' }).catch((e) => e);
    expect(alsoRefused.message).toMatch(
      /events\[0\]\.metadata\.identities\[1\]\.namespace: is missing or undefined/,
    );
    const lobuValue = await runSync(readOnly([identified('github_login')]), { feedKey: 'items' }).catch(
      (e) => e,
    );
    expect(lobuValue.message).toMatch(/"github_login" is Lobu's namespace; here it is "code_host_login"/);
  });
});

describe('Owletto-era envelopes', () => {
  const owletto = {
    external_id: 'hn_story_1',
    title: 'Show HN',
    content: 'A story',
    author: 'pg',
    url: 'https://news.ycombinator.com/item?id=1',
    published_at: new Date(Date.UTC(2026, 10, 20, 9)),
    kind: 'story',
    score: 40,
    parent_external_id: undefined,
    metadata: { points: 12 },
  };

  it("are mapped to the spec's fields, with a warning in the run's log naming the mapping", async () => {
    const run = await runSync(readOnly([owletto, { ...owletto, external_id: 'hn_story_2' }]), {
      feedKey: 'items',
    });
    expect(run.events[0]).toEqual({
      origin_id: 'hn_story_1',
      title: 'Show HN',
      payload_text: 'A story',
      author_name: 'pg',
      source_url: 'https://news.ycombinator.com/item?id=1',
      occurred_at: '2026-11-20T09:00:00.000Z',
      origin_type: 'story',
      score: 40,
      metadata: { points: 12 },
    });
    const warnings = run.logs.filter((entry) => entry.level === 'warn').map((entry) => entry.msg);
    expect(warnings).toEqual([
      "events use the Owletto-era envelope; mapped to the spec's fields: external_id → origin_id, content → payload_text, published_at → occurred_at, url → source_url, author → author_name, kind → origin_type. Rename them in the connector: this mapping is for connectors written before the spec",
    ]);
    expect(Object.keys(OWLETTO_ENVELOPE_FIELDS)).toContain('parent_external_id');
  });

  it('are refused naming both fields when they also have the spec name, and naming a field with no equivalent', async () => {
    const both = await runSync(readOnly([{ ...owletto, origin_id: 'x' }]), { feedKey: 'items' }).catch(
      (e) => e,
    );
    expect(both.message).toMatch(
      /events\[0\]\.external_id: is the Owletto-era name of origin_id, which this envelope has too: keep only origin_id/,
    );
    const extra = await runSync(readOnly([{ ...owletto, engagement: 3 }]), { feedKey: 'items' }).catch(
      (e) => e,
    );
    expect(extra.message).toMatch(
      /events\[0\]\.engagement: is not a field of EventEnvelope, nor one of the Owletto-era fields mapped to it; put it in metadata/,
    );
  });
});

describe("Lobu's defineConnector spelling", () => {
  it('takes each feed and action key from its place, and an action without requiresApproval needs approval', async () => {
    const connector = defineConnector({
      key: 'lobu.notes',
      name: 'Notes',
      version: '1.0.0',
      feeds: {
        notes: {
          name: 'Notes',
          async sync() {
            const note = { origin_id: 'n1', payload_text: 'first note', occurred_at: '2026-11-20T09:00:00Z' };
            return { events: [note], checkpoint: { after: 'n1' } };
          },
        },
      },
      actions: {
        archive: { name: 'Archive', execute: async () => ({ success: true, output: { archived: true } }) },
        read: { name: 'Read', requiresApproval: false, execute: async () => ({ success: true }) },
      },
    });
    expect(validateDefinition(connector)).toEqual({ valid: true, problems: [] });
    expect(connector.definition.feeds?.notes?.key).toBe('notes');
    expect(connector.definition.actions?.archive).toMatchObject({ key: 'archive', requiresApproval: true });
    expect(connector.definition.actions?.read).toMatchObject({ key: 'read', requiresApproval: false });
    const synced = await runSync(connector, { feedKey: 'notes' });
    expect(synced.events.map((e) => e.payload_text)).toEqual(['first note']);
  });
});
