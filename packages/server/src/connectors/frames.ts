/**
 * The channel between the server and a connector's child: length-prefixed JSON frames over a
 * socket (the child's fd 3), not Node's IPC. Node's IPC channel parses whatever arrives, however
 * large, before anyone can look at it: a child that sends a 150 MB line costs the server that
 * much and more. Here the length comes first, so a frame over the cap is refused before it is
 * read, and the reader never holds more than one frame.
 *
 * Both sides import this file: it uses nothing but Node.
 */
import type { Duplex } from 'node:stream';

/** Frames the server takes from a child: a batch of events is far below it. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Objects and arrays inside each other, at most: an event's metadata is far from it. */
export const MAX_DEPTH = 64;

/** Whether the JSON text in `body` nests objects and arrays deeper than `limit`. */
function nestedDeeperThan(body: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c)
        i++; // a backslash: the next byte is escaped
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x7b || byte === 0x5b) {
      if (++depth > limit) return true;
    } else if (byte === 0x7d || byte === 0x5d) depth--;
  }
  return false;
}

export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length);
  return Buffer.concat([header, body]);
}

export interface FrameReader {
  /** Stops reading (the socket is left to its owner). */
  close(): void;
}

/**
 * Reads frames from `stream`, each parsed as JSON and handed to `onFrame` in order. A frame over
 * `maxBytes` or one that is not JSON calls `onError` once with why, and nothing more is read.
 */
export function readFrames(
  stream: Duplex,
  onFrame: (message: unknown, bytes: number) => void,
  onError: (why: string) => void,
  maxBytes = MAX_FRAME_BYTES,
  maxDepth = MAX_DEPTH,
): FrameReader {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let failed = false;
  const fail = (why: string) => {
    if (failed) return;
    failed = true;
    chunks = [];
    stream.off('data', onData);
    onError(why);
  };
  const take = (bytes: number): Buffer => {
    const all = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, buffered);
    chunks = all.length > bytes ? [all.subarray(bytes)] : [];
    buffered = all.length - bytes;
    return all.subarray(0, bytes);
  };
  const peekLength = (): number => {
    if ((chunks[0] as Buffer).length < 4) chunks = [Buffer.concat(chunks, buffered)];
    return (chunks[0] as Buffer).readUInt32BE(0);
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    buffered += chunk.length;
    while (!failed && buffered >= 4) {
      const length = peekLength();
      if (length > maxBytes) {
        fail(`sent a message of ${megabytes(length)}, over the ${megabytes(maxBytes)} limit`);
        return;
      }
      if (buffered < 4 + length) return;
      take(4);
      const body = take(length);
      // JSON.parse takes any depth, but whatever walks the result recursively (JSON.stringify,
      // a schema) overflows the stack on it: refused before it is parsed.
      if (nestedDeeperThan(body, maxDepth)) {
        fail(`sent a message nested deeper than ${maxDepth} levels`);
        return;
      }
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch {
        fail('sent a message that is not JSON');
        return;
      }
      try {
        onFrame(message, length);
      } catch (error) {
        fail(
          `sent a message the server could not read (${error instanceof Error ? error.message : String(error)})`,
        );
      }
    }
  };
  stream.on('data', onData);
  return {
    close() {
      failed = true;
      chunks = [];
      stream.off('data', onData);
    },
  };
}

const megabytes = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.round(bytes / 1024)} KB`
    : `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
