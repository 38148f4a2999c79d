import { beforeAll, describe, expect, it } from 'vitest';
import { slackEventCallback, slackHeaders, slackMessage } from '../../test/fakes/slack.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { putChatPlatforms } from '../../test/platform-configs.js';
import { enqueueMessage } from '../messaging/queries.js';
import { versionedPlatform } from './platform-hints.js';

/**
 * A webhook call is checked under its platform as last read, with its secrets as last read (sealed),
 * without reading either again, and its message is inserted only while the platform, its org and
 * those secrets are still that version: changed or deleted since, they are read anew, and the call
 * checked again under them.
 */

const SECRETS = {
  SLACK_SIGNING_SECRET: 'slack-signing-secret-value',
  SLACK_SIGNING_SECRET_2: 'second-slack-signing-secret',
  SLACK_BOT_TOKEN: 'xoxb-slack-bot-token-value',
  TG_BOT_TOKEN: '123456:telegram-bot-token-value',
  TG_SECRET_TOKEN: 'telegram-secret-token-value',
  WA_ACCESS_TOKEN: 'whatsapp-access-token-value',
  WA_APP_SECRET: 'whatsapp-app-secret-value',
  WA_VERIFY_TOKEN: 'whatsapp-verify-token-value',
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await server.call('POST', '/api/default/agents', { body: { agentId: 'chat', name: 'Chat' } });
  await putChatPlatforms(server, 'chat', SECRETS, '1098765432');
});

let ts = 1_700_000_000;
/** A new Slack message in `channel`, signed with `secret`, to platform `stableId`. */
function fromSlack(stableId: string, secret: string, channel = 'C0HINTS', text = 'hi') {
  const event = slackMessage({ channel, text, ts: `${++ts}.000100` });
  const raw = JSON.stringify(slackEventCallback({ eventId: `Ev${ts}`, event }));
  return server.call('POST', `/api/v1/webhooks/${stableId}`, { raw, headers: slackHeaders(secret, raw) });
}

const stored = async (text: string) =>
  Number(
    (await server.pool.query('SELECT count(*) AS n FROM messages WHERE content = $1', [text])).rows[0].n,
  );

const setSigningSecret = (reference: string) =>
  server.call('PUT', '/api/default/agents/chat/platforms/by-stable-id/chat-team-chat', {
    body: { type: 'team_chat', config: { signing_secret: reference, bot_token: '$SLACK_BOT_TOKEN' } },
  });

describe('a platform as last read', () => {
  it('changed since: the call is checked under the platform as it is now', async () => {
    expect((await fromSlack('chat-team-chat', SECRETS.SLACK_SIGNING_SECRET)).body).toMatchObject({
      queued: 1,
    });
    expect((await setSigningSecret('$SLACK_SIGNING_SECRET_2')).status).toBeLessThan(300);
    try {
      const taken = await fromSlack(
        'chat-team-chat',
        SECRETS.SLACK_SIGNING_SECRET_2,
        'C0HINTS',
        'under the new',
      );
      expect(taken).toMatchObject({ status: 200, body: { queued: 1, duplicates: 0 } });
      expect(await stored('under the new')).toBe(1);
      const refused = await fromSlack(
        'chat-team-chat',
        SECRETS.SLACK_SIGNING_SECRET,
        'C0HINTS',
        'under the old',
      );
      expect(refused).toMatchObject({ status: 401, body: { code: 'webhook_signature_invalid' } });
      expect(await stored('under the old')).toBe(0);
    } finally {
      await setSigningSecret('$SLACK_SIGNING_SECRET');
    }
    // Changed back, the last one read is stale again: the old secret is taken once more.
    const back = await fromSlack('chat-team-chat', SECRETS.SLACK_SIGNING_SECRET, 'C0HINTS', 'back again');
    expect(back).toMatchObject({ status: 200, body: { queued: 1 } });
  });

  it('its secret changed or deleted since: checked with the secret as it is now', async () => {
    expect((await fromSlack('chat-team-chat', SECRETS.SLACK_SIGNING_SECRET)).body).toMatchObject({
      queued: 1,
    });
    const put = (value: string) =>
      server.call('PUT', '/api/default/secrets/SLACK_SIGNING_SECRET', { body: { value } });
    expect((await put('rotated-signing-secret')).status).toBeLessThan(300);
    try {
      const old = await fromSlack('chat-team-chat', SECRETS.SLACK_SIGNING_SECRET, 'C0ROT', 'old secret');
      expect(old).toMatchObject({ status: 401, body: { code: 'webhook_signature_invalid' } });
      const rotated = await fromSlack('chat-team-chat', 'rotated-signing-secret', 'C0ROT', 'new secret');
      expect(rotated).toMatchObject({ status: 200, body: { queued: 1 } });
      // Deleted: the sealed copy last read no longer checks anything.
      expect((await server.call('DELETE', '/api/default/secrets/SLACK_SIGNING_SECRET')).status).toBeLessThan(
        300,
      );
      const gone = await fromSlack('chat-team-chat', 'rotated-signing-secret', 'C0ROT', 'no secret');
      expect(gone).toMatchObject({ status: 503, body: { code: 'secret_missing' } });
      expect(await stored('old secret')).toBe(0);
      expect(await stored('no secret')).toBe(0);
    } finally {
      await put(SECRETS.SLACK_SIGNING_SECRET);
    }
    expect((await fromSlack('chat-team-chat', SECRETS.SLACK_SIGNING_SECRET)).body).toMatchObject({
      queued: 1,
    });
  });

  it('deleted since: 404, nothing queued', async () => {
    await server.pool.query(
      `INSERT INTO platforms (stable_id, type, config, org_id, agent_id)
       SELECT 'chat-team-chat-gone', type, config, org_id, agent_id FROM platforms WHERE stable_id = 'chat-team-chat'`,
    );
    const first = await fromSlack('chat-team-chat-gone', SECRETS.SLACK_SIGNING_SECRET, 'C0GONE', 'before');
    expect(first).toMatchObject({ status: 200, body: { queued: 1 } });
    await server.pool.query("DELETE FROM platforms WHERE stable_id = 'chat-team-chat-gone'");
    const after = await fromSlack('chat-team-chat-gone', SECRETS.SLACK_SIGNING_SECRET, 'C0GONE', 'after');
    expect(after).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await stored('after')).toBe(0);
  });

  it('not the version the call was checked with: nothing is written, not even the receipt', async () => {
    const platform = await versionedPlatform(server.pool, 'chat-team-chat');
    if (!platform) throw new Error('no platform');
    const announcer = { announce() {}, close: async () => {} };
    const input = (version: string) => ({
      orgId: platform.org.id,
      agentId: platform.agentId,
      body: {
        platform: 'team_chat' as const,
        content: 'versioned',
        team_chat: { channel: 'C0V', thread: '1.1' },
      },
      idempotencyKey: null,
      requestHash: 'h',
      files: [],
      budget: null,
      guardrails: platform.guardrails,
      fromPlatform: {
        dedupKey: 'C0V:1.1',
        replyTo: {
          stableId: 'chat-team-chat',
          kind: 'team_chat' as const,
          to: { channel: 'C0V', thread_ts: '1.1' },
        },
        version,
      },
    });
    expect(await enqueueMessage(server.pool, announcer, input(`${platform.version}x`))).toBe(
      'platform_changed',
    );
    const receipts = await server.pool.query("SELECT 1 FROM webhook_receipts WHERE dedup_key = 'C0V:1.1'");
    expect(receipts.rowCount).toBe(0);
    expect(await stored('versioned')).toBe(0);
    // Under the platform's version, the same message is taken (not a duplicate), then a duplicate.
    expect(await enqueueMessage(server.pool, announcer, input(platform.version))).toMatchObject({
      replayed: false,
    });
    expect(await enqueueMessage(server.pool, announcer, input(platform.version))).toBe('duplicate');
    expect(await stored('versioned')).toBe(1);
  });
});
