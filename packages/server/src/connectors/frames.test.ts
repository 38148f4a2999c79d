import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeFrame, readFrames } from './frames.js';

/** A frame of `body` as it is, JSON or not. */
function rawFrame(body: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

/** The channel's framing: whole messages in order however the bytes arrive, and a cap read first. */
describe('frames', () => {
  it('hands over each message whole and in order, however the stream cuts the bytes', () => {
    const messages = [{ type: 'log', n: 1 }, { text: 'é'.repeat(1000) }, [1, 2, 3], null];
    const bytes = Buffer.concat(messages.map(encodeFrame));
    for (const step of [1, 3, 4, 5, 7, 64, bytes.length]) {
      const stream = new PassThrough();
      const seen: unknown[] = [];
      readFrames(
        stream,
        (message) => seen.push(message),
        (why) => expect.fail(why),
      );
      for (let at = 0; at < bytes.length; at += step) stream.write(bytes.subarray(at, at + step));
      expect(seen, `in pieces of ${step}`).toEqual(messages);
    }
  });

  it('refuses a frame over the cap from its length alone, once, and reads nothing after', () => {
    const stream = new PassThrough();
    const seen: unknown[] = [];
    const errors: string[] = [];
    readFrames(
      stream,
      (message) => seen.push(message),
      (why) => errors.push(why),
      1024,
    );
    stream.write(encodeFrame({ ok: true }));
    const head = Buffer.alloc(4);
    head.writeUInt32BE(150 * 1024 * 1024);
    stream.write(head);
    stream.write(encodeFrame({ after: true }));
    expect(seen).toEqual([{ ok: true }]);
    expect(errors).toEqual(['sent a message of 150 MB, over the 1 KB limit']);
  });

  it('refuses a frame that is not JSON', () => {
    const stream = new PassThrough();
    const errors: string[] = [];
    readFrames(
      stream,
      () => expect.fail('no message'),
      (why) => errors.push(why),
    );
    stream.write(rawFrame(Buffer.from('{not json')));
    expect(errors).toEqual(['sent a message that is not JSON']);
  });

  it('refuses a frame nested deeper than the cap before parsing it', () => {
    const stream = new PassThrough();
    const errors: string[] = [];
    readFrames(
      stream,
      () => expect.fail('no message'),
      (why) => errors.push(why),
    );
    stream.write(
      rawFrame(Buffer.from(`{"a":"[[[[ in a string","b":${'['.repeat(200_000)}${']'.repeat(200_000)}}`)),
    );
    expect(errors).toEqual(['sent a message nested deeper than 64 levels']);
  });

  it('ends the reading when a listener cannot take a message, instead of throwing in the server', () => {
    const stream = new PassThrough();
    const errors: string[] = [];
    readFrames(
      stream,
      () => {
        throw new RangeError('Maximum call stack size exceeded');
      },
      (why) => errors.push(why),
    );
    stream.write(encodeFrame({ type: 'log' }));
    expect(errors).toEqual(['sent a message the server could not read (Maximum call stack size exceeded)']);
  });
});
