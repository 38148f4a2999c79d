import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../test/fakes/chat-completions.js';
import { ADMIN_PASSWORD, createToken, startTestServer, type TestServer } from '../../test/harness.js';

const LIMITS = { fileBytes: 64 * 1024, totalBytes: 100 * 1024, files: 3 };
let fake: FakeChatCompletions;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeChatCompletions();
  server = await startTestServer({
    secretEnv: { SVC_PROVIDER_OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'sk-files' },
    uploadLimits: LIMITS,
    workers: {},
  });
  await server.call('POST', '/api/default/agents', {
    body: {
      agentId: 'reader',
      name: 'Reader',
      providers: [{ key: 'openai', secret_ref: '$OPENAI_API_KEY' }],
    },
  });
});

async function stored(): Promise<{ messages: number; files: number }> {
  const { rows } = await server.pool.query<{ messages: string; files: string }>(
    'SELECT (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM message_files) AS files',
  );
  return { messages: Number(rows[0]?.messages), files: Number(rows[0]?.files) };
}

/**
 * Streams a multipart body of one big file, `megabytes` long, in pieces, and answers the status
 * and how many bytes had gone out when the answer came: a 413 must come long before the end.
 */
function uploadSlowly(
  bytes: number,
): Promise<{ status: number; body: string; sentWhenAnswered: number; total: number }> {
  const boundary = 'svc-test-boundary';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="platform"\r\n\r\napi\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="content"\r\n\r\nread this\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const total = head.length + bytes + tail.length;
  return new Promise((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const req = httpRequest(`${server.url}/api/v1/agents/reader/messages`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ADMIN_PASSWORD}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': total,
      },
    });
    req.on('response', (res) => {
      answered = true;
      const sentWhenAnswered = sent;
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, sentWhenAnswered, total });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.write(head);
    sent += head.length;
    const piece = Buffer.alloc(16 * 1024, 'x');
    const pump = () => {
      if (answered) return;
      if (sent + piece.length >= total - tail.length) {
        req.end(Buffer.concat([piece.subarray(0, total - tail.length - sent), tail]));
        sent = total;
        return;
      }
      req.write(piece);
      sent += piece.length;
      setTimeout(pump, 5);
    };
    pump();
  });
}

describe('multipart messages', () => {
  it('carry files: stored, given to the model (text as text), listed on the message, downloadable', async () => {
    const form = new FormData();
    form.set('platform', 'api');
    form.set('content', 'Summarise the notes');
    form.set('channel', 'files');
    form.append('files', new Blob(['line one\nline two'], { type: 'text/plain' }), 'notes.txt');
    form.append('files', new Blob([Buffer.from([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }), 'dot.png');
    const before = fake.requests.length;
    const res = await fetch(`${server.url}/api/v1/agents/reader/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_PASSWORD}`, prefer: 'wait=10' },
      body: form,
    });
    const message = (await res.json()) as any;
    expect(res.status, JSON.stringify(message)).toBe(200);
    expect(message.status).toBe('completed');
    expect(message.files.map((f: any) => [f.name, f.contentType, f.size])).toEqual([
      ['notes.txt', 'text/plain', 17],
      ['dot.png', 'image/png', 4],
    ]);
    const content = fake.requests[before]?.body.messages.at(-1)?.content as any[];
    expect(content[0]).toEqual({ type: 'text', text: 'Summarise the notes' });
    expect(content[1]).toEqual({ type: 'text', text: 'File notes.txt (text/plain):\nline one\nline two' });
    expect(content[2].type).toBe('image_url');

    const download = await fetch(`${server.url}${message.files[0].url}`, {
      headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('content-disposition')).toContain("filename*=UTF-8''notes.txt");
    expect(await download.text()).toBe('line one\nline two');
    // Another org's token cannot fetch it.
    expect((await server.call('POST', '/api/orgs', { body: { slug: 'outside' } })).status).toBe(201);
    const foreign = await createToken(server, 'outside', ['messages']);
    const hidden = await fetch(`${server.url}${message.files[0].url}`, {
      headers: { authorization: `Bearer ${foreign.secret}` },
    });
    expect(hidden.status).toBe(404);
  });

  it('answer 413 for a file over the per-file limit before the upload ends, and store nothing', async () => {
    const before = await stored();
    const answer = await uploadSlowly(LIMITS.fileBytes * 20);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'payload_too_large' });
    expect(answer.sentWhenAnswered).toBeLessThan(answer.total / 2);
    expect(await stored()).toEqual(before);
  });

  it('answer 413 when the files together pass the total limit, and store nothing', async () => {
    const before = await stored();
    const form = new FormData();
    form.set('platform', 'api');
    form.set('content', 'three files');
    for (const name of ['a', 'b']) form.append('files', new Blob([Buffer.alloc(60 * 1024)]), `${name}.bin`);
    const res = await fetch(`${server.url}/api/v1/agents/reader/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
      body: form,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).detail).toContain(`together are larger than ${LIMITS.totalBytes}`);
    expect(await stored()).toEqual(before);
  });

  it('check the fields as a JSON body is checked, and refuse a file under another name', async () => {
    const form = new FormData();
    form.set('platform', 'nowhere');
    form.set('content', 'hi');
    const bad = await fetch(`${server.url}/api/v1/agents/reader/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
      body: form,
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).errors[0].path).toBe('/body/platform');
    const misnamed = new FormData();
    misnamed.set('platform', 'api');
    misnamed.set('content', 'hi');
    misnamed.append('attachment', new Blob(['x']), 'x.txt');
    const refused = await fetch(`${server.url}/api/v1/agents/reader/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_PASSWORD}` },
      body: misnamed,
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as any).errors[0].path).toBe('/body/attachment');
  });

  it('refuse an Idempotency-Key replay whose files differ in content, name or type', async () => {
    const form = (data: string, name = 'notes.txt', type = 'text/plain') => {
      const f = new FormData();
      f.set('platform', 'api');
      f.set('content', 'read the notes');
      f.append('files', new Blob([data], { type }), name);
      return f;
    };
    const post = (body: FormData) =>
      fetch(`${server.url}/api/v1/agents/reader/messages`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_PASSWORD}`, 'idempotency-key': 'files-key' },
        body,
      });
    const first = await post(form('version one'));
    expect(first.status).toBe(202);
    const same = await post(form('version one'));
    expect(same.status).toBe(202);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    for (const other of [
      form('version two'),
      form('version one', 'other.txt'),
      form('version one', 'notes.txt', 'text/markdown'),
    ]) {
      const res = await post(other);
      expect(res.status).toBe(422);
      expect(((await res.json()) as any).code).toBe('idempotency_key_reused');
    }
  });

  it('refuse text that cannot be stored as sent, naming its field, and store nothing', async () => {
    const part = (headers: string, value: Buffer | string) =>
      Buffer.concat([
        Buffer.from(`--b\r\n${headers}\r\n\r\n`, 'latin1'),
        Buffer.from(value as never),
        Buffer.from('\r\n'),
      ]);
    const field = (name: string, value: Buffer | string) =>
      part(`Content-Disposition: form-data; name="${name}"`, value);
    const send = (...parts: Buffer[]) =>
      fetch(`${server.url}/api/v1/agents/reader/messages`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${ADMIN_PASSWORD}`,
          'content-type': 'multipart/form-data; boundary=b',
        },
        body: Buffer.concat([...parts, Buffer.from('--b--\r\n')]),
      });
    const platform = field('platform', 'api');
    const cases: [string, Buffer[], string][] = [
      ['invalid UTF-8', [platform, field('content', Buffer.from([0x61, 0xff, 0x62]))], '/body/content'],
      [
        'a surrogate as UTF-8 bytes',
        [platform, field('content', Buffer.from([0x61, 0xed, 0xa0, 0x80]))],
        '/body/content',
      ],
      ['a NUL', [platform, field('content', Buffer.from('a\u0000b'))], '/body/content'],
      [
        'a NUL in a channel',
        [platform, field('content', 'hi'), field('channel', 'a\u0000')],
        '/body/channel',
      ],
      [
        'an escaped NUL in team_chat',
        [
          field('platform', 'team_chat'),
          field('content', 'hi'),
          field('team_chat', '{"channel": "C\\u0000"}'),
        ],
        '/body/team_chat/channel',
      ],
      [
        'a NUL in a file name',
        [
          platform,
          field('content', 'hi'),
          part(`Content-Disposition: form-data; name="files"; filename*=UTF-8''a%00b.txt`, 'x'),
        ],
        '/body/files/0/name',
      ],
      [
        'a file name that is not UTF-8',
        [
          platform,
          field('content', 'hi'),
          part('Content-Disposition: form-data; name="files"; filename="\xff.txt"', 'x'),
        ],
        '/body/files/0/name',
      ],
      [
        'half a surrogate pair in a file name',
        [
          platform,
          field('content', 'hi'),
          part(`Content-Disposition: form-data; name="files"; filename*=utf-16le''%00%D8`, 'x'),
        ],
        '/body/files/0/name',
      ],
    ];
    const before = await stored();
    for (const [what, parts, path] of cases) {
      const res = await send(...parts);
      const body = (await res.json()) as any;
      expect(res.status, what).toBe(400);
      expect(res.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
      expect(body.code, what).toBe('validation_failed');
      expect(body.errors, what).toContainEqual(expect.objectContaining({ path }));
    }
    expect(await stored()).toEqual(before);
    // Well-formed text goes through as sent: 100,000 characters of three bytes each, none lost.
    const long = '語'.repeat(100_000);
    const ok = await send(platform, field('content', long));
    expect(ok.status).toBe(202);
    const { rows } = await server.pool.query('SELECT content FROM messages WHERE id = $1', [
      ((await ok.json()) as any).id,
    ]);
    expect(rows[0].content).toBe(long);
  });
});
