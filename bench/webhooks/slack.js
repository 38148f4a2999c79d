// Slack's side of the webhooks benchmark: Events API calls signed as Slack signs them, and a Web API
// on 127.0.0.1 answering chat.postMessage as Slack does, noting when each post arrives.
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';

/** A person's message in `channel`, as an Events API `event_callback` delivers it. */
export function slackMessageEvent({ channel, ts, text }) {
  return {
    token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
    team_id: 'T0BENCH',
    context_team_id: 'T0BENCH',
    api_app_id: 'A0BENCH',
    event: { type: 'message', user: 'U0HUMAN', text, ts, channel, event_ts: ts, channel_type: 'channel' },
    type: 'event_callback',
    event_id: `Ev${ts.replace('.', '')}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: 'T0BENCH',
        user_id: 'U0BENCHBOT',
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

/** The headers Slack sends with `raw`: `v0=` HMAC-SHA256 of `v0:{timestamp}:{raw}`, signed now. */
export function slackHeaders(signingSecret, raw) {
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac('sha256', signingSecret).update(`v0:${timestamp}:${raw}`).digest('hex');
  return {
    'content-type': 'application/json',
    'x-slack-request-timestamp': String(timestamp),
    'x-slack-signature': `v0=${signature}`,
  };
}

/**
 * `POST /api/chat.postMessage` with the bot token as `Authorization: Bearer`, answered
 * `{ok: true, channel, ts, message}`, or Slack's `{ok: false, error}` (`not_authed`,
 * `invalid_auth`, `invalid_json`, `channel_not_found`, `no_text`). `posted(channel, thread)` resolves
 * with the `performance.now()` at which the post for that thread arrived, and its text.
 */
export async function startFakeSlack(botToken) {
  const waiting = new Map();
  const arrived = new Map();
  const refused = [];
  let sequence = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const answer = (status, body) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify(body));
      };
      const refuse = (error, status = 200) => {
        refused.push(error);
        answer(status, { ok: false, error });
      };
      if (req.method !== 'POST' || req.url !== '/api/chat.postMessage') return refuse('unknown_method', 404);
      const bearer = req.headers.authorization?.replace(/^Bearer /, '');
      if (!bearer) return refuse('not_authed');
      if (bearer !== botToken) return refuse('invalid_auth');
      let body;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return refuse('invalid_json');
      }
      const { channel, text, thread_ts } = body;
      if (typeof channel !== 'string' || channel === '') return refuse('channel_not_found');
      if (typeof text !== 'string' || text === '') return refuse('no_text');
      sequence += 1;
      const ts = `${Math.floor(Date.now() / 1000)}.${String(sequence).padStart(6, '0')}`;
      const key = `${channel}:${thread_ts ?? ''}`;
      const post = { at, text };
      arrived.set(key, post);
      waiting.get(key)?.(post);
      answer(200, {
        ok: true,
        channel,
        ts,
        message: { type: 'message', user: 'U0BENCHBOT', bot_id: 'B0BENCH', text, ts, thread_ts },
      });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    refused,
    /** The reply in `thread` of `channel`: when it arrived, and its text; rejects after `timeoutMs`. */
    posted(channel, thread, timeoutMs = 10_000) {
      const key = `${channel}:${thread}`;
      if (arrived.has(key)) return Promise.resolve(arrived.get(key));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(key);
          const why = refused.length > 0 ? `; the fake Slack refused: ${refused.slice(-3).join(', ')}` : '';
          reject(new Error(`no reply reached the fake Slack in ${channel} within ${timeoutMs} ms${why}`));
        }, timeoutMs);
        waiting.set(key, (post) => {
          clearTimeout(timer);
          waiting.delete(key);
          resolve(post);
        });
      });
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
