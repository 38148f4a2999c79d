import { isUtf8 } from 'node:buffer';
import multipart, { type Multipart, type MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problem.js';
import type { App } from '../http/types.js';

/** Upload limits (DESIGN.md section 9): `SVC_UPLOAD_MAX_FILE_BYTES`, `SVC_UPLOAD_MAX_TOTAL_BYTES`. */
export interface UploadLimits {
  fileBytes: number;
  totalBytes: number;
  files: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  fileBytes: 10 * 1024 * 1024,
  totalBytes: 25 * 1024 * 1024,
  files: 10,
};

export interface Upload {
  name: string;
  contentType: string;
  data: Buffer;
}

declare module 'fastify' {
  interface FastifyRequest {
    uploads: Upload[];
    /** Form fields read so far. */
    uploadFields: number;
  }
}

const tooLarge = (detail: string) => new ProblemError(413, 'payload_too_large', detail);
/** `/body/<name>...` as a JSON pointer (RFC 6901). */
const at = (...names: string[]) =>
  `/body/${names.map((n) => n.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`;
const refused = (path: string, message: string) =>
  new ProblemError(400, 'validation_failed', `the request body is not valid: ${path}`, [{ path, message }]);

/** Form fields a message may have (its JSON body's fields, each once, with room to spare). */
const MAX_FIELDS = 20;
/** The largest field: `content` is at most 100,000 UTF-16 code units, 300,000 bytes of UTF-8. */
const MAX_FIELD_BYTES = 400_000;

/** NUL, or half of a surrogate pair: text PostgreSQL cannot store (a NUL in text, either in jsonb). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this looks for.
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function unstorable(text: string): string | null {
  const found = UNSTORABLE.exec(text);
  if (!found) return null;
  return found[0] === '\u0000'
    ? `holds a NUL character at character ${found.index}, which cannot be stored; remove it`
    : `holds half of a UTF-16 surrogate pair at character ${found.index}; send well-formed Unicode text`;
}

/**
 * What busboy throws for a body that is not multipart as its Content-Type says (no boundary,
 * another boundary, cut short) is the client's mistake. The plugin's own errors carry a status
 * (its limits are 413) and ours are problems already: those pass as they are.
 */
function malformedForm(error: unknown): unknown {
  if (error instanceof ProblemError || (error as { statusCode?: unknown }).statusCode !== undefined) {
    return error;
  }
  return new ProblemError(
    400,
    'malformed_multipart',
    `the body is not the multipart/form-data its Content-Type announces: ${(error as Error).message}`,
  );
}

/** The parts of a form; reading them is where a malformed body shows. */
async function* partsOf(request: FastifyRequest): AsyncGenerator<Multipart> {
  const parts = request.parts();
  for (;;) {
    let next: IteratorResult<Multipart>;
    try {
      next = await parts.next();
    } catch (error) {
      throw malformedForm(error);
    }
    if (next.done) return;
    yield next.value;
  }
}

/** A part's bytes; a body cut short ends the part's stream with busboy's error. */
async function* chunksOf(part: MultipartFile): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of part.file) yield chunk as Buffer;
  } catch (error) {
    throw malformedForm(error);
  }
}

/** A form field's text, from its bytes: UTF-8 (RFC 7578), refused rather than repaired. */
async function readField(part: MultipartFile): Promise<string> {
  const path = at(part.fieldname);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of chunksOf(part)) {
    size += chunk.length;
    if (size > MAX_FIELD_BYTES)
      throw tooLarge(`the field "${part.fieldname}" is larger than ${MAX_FIELD_BYTES} bytes`);
    chunks.push(chunk);
  }
  const bytes = Buffer.concat(chunks);
  if (!isUtf8(bytes)) throw refused(path, 'is not valid UTF-8; send form fields as UTF-8 text');
  const text = bytes.toString('utf8');
  const problem = unstorable(text);
  if (problem) throw refused(path, problem);
  return text;
}

/**
 * A file's name and type as they can be stored. busboy has decoded the name already, bad UTF-8 to
 * U+FFFD: a name holding one is refused, since the name the client meant is lost (a name that
 * truly holds U+FFFD is refused with it). A type is a MIME type: printable ASCII.
 */
function checkFileFacts(part: MultipartFile, index: number): void {
  const problem =
    unstorable(part.filename) ??
    (part.filename.includes('\uFFFD')
      ? 'is not valid UTF-8 (or holds U+FFFD, what invalid UTF-8 decodes to); send file names as UTF-8'
      : null);
  if (problem) throw refused(`/body/files/${index}/name`, `the file name ${problem}`);
  if (!/^[\x20-\x7e]*$/.test(part.mimetype)) {
    throw refused(
      `/body/files/${index}/contentType`,
      'the content type is not a MIME type (printable ASCII)',
    );
  }
}

/** A file part, read into `request.uploads` within the limits; a part that breaks one is refused. */
async function readFile(request: FastifyRequest, part: MultipartFile, limits: UploadLimits): Promise<void> {
  if (part.fieldname !== 'files') {
    part.file.resume();
    throw new ProblemError(
      400,
      'validation_failed',
      `files go in the part "files", not "${part.fieldname}"`,
      [{ path: `/body/${part.fieldname}`, message: 'a file part must be named "files"' }],
    );
  }
  if (request.uploads.length >= limits.files) {
    part.file.resume();
    throw tooLarge(`a message has at most ${limits.files} files`);
  }
  checkFileFacts(part, request.uploads.length);
  const fileTooLarge = () => tooLarge(`file "${part.filename}" is larger than ${limits.fileBytes} bytes`);
  // At its limit, busboy would quietly drop the rest of the file: end here instead, so that the
  // answer goes out before the rest of the upload is read.
  part.file.once('limit', () => part.file.destroy(fileTooLarge()));
  const chunks: Buffer[] = [];
  let size = 0;
  const sent = () => request.uploads.reduce((n, u) => n + u.data.length, 0);
  for await (const chunk of chunksOf(part)) {
    size += chunk.length;
    if (size > limits.fileBytes) throw fileTooLarge();
    if (sent() + size > limits.totalBytes) {
      throw tooLarge(`the files together are larger than ${limits.totalBytes} bytes`);
    }
    chunks.push(chunk);
  }
  if (part.file.truncated) throw fileTooLarge();
  request.uploads.push({ name: part.filename, contentType: part.mimetype, data: Buffer.concat(chunks) });
}

/** The form's fields as the body the route's schema checks: a field sent twice becomes a list. */
async function readForm(request: FastifyRequest, limits: UploadLimits): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  for await (const part of partsOf(request)) {
    const file = part as MultipartFile;
    if ((file as { filename: string | undefined }).filename !== undefined) {
      await readFile(request, file, limits);
      continue;
    }
    if (part.fieldname === 'files') {
      file.file.resume();
      throw refused('/body/files', 'a part "files" must be a file, with a filename');
    }
    request.uploadFields++;
    if (request.uploadFields > MAX_FIELDS) throw tooLarge(`a message has at most ${MAX_FIELDS} fields`);
    const text = await readField(file);
    const earlier = body[part.fieldname];
    body[part.fieldname] = earlier === undefined ? text : [earlier, text].flat();
  }
  return body;
}

/**
 * Multipart bodies for the routes of this plugin: the fields become the body the route's schema
 * checks (`team_chat` and `messenger` as JSON text), the parts named `files` become
 * `request.uploads`. Limits hold while the body streams in: the part that breaks one ends the
 * request with 413 before the rest is read, and nothing is stored, since storing happens after.
 * Every part is read as bytes, fields too (busboy would decode a field's bad UTF-8 to U+FFFD,
 * silently): text that cannot be stored as sent is refused, naming its field.
 */
export async function registerUploads(app: App, limits: UploadLimits): Promise<void> {
  app.decorateRequest('uploads', null as unknown as Upload[]);
  app.decorateRequest('uploadFields', 0);
  app.addHook('onRequest', async (request) => {
    request.uploads = [];
    request.uploadFields = 0;
  });
  await app.register(multipart, {
    throwFileSizeLimit: true,
    isPartAFile: () => true,
    // The limits of files and of fields are kept below, each kind its own; these only bound both.
    limits: {
      fileSize: Math.max(limits.fileBytes, MAX_FIELD_BYTES) + 1,
      files: limits.files + MAX_FIELDS,
      parts: 40,
    },
  });
  // Form fields are text: the routing objects come as JSON text; the file parts leave no trace.
  app.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    const body = await readForm(request, limits);
    request.body = body;
    for (const key of ['team_chat', 'messenger']) {
      if (typeof body[key] !== 'string') continue;
      try {
        body[key] = JSON.parse(body[key] as string);
      } catch {
        throw new ProblemError(400, 'validation_failed', `the field "${key}" must be JSON`, [
          { path: `/body/${key}`, message: 'not JSON' },
        ]);
      }
      // JSON escapes reach what the bytes could not: "\u0000", "\ud800".
      const routing = body[key];
      if (routing === null || typeof routing !== 'object') continue;
      for (const [name, value] of Object.entries(routing)) {
        const problem = typeof value === 'string' ? unstorable(value) : null;
        if (problem) throw refused(at(key, name), problem);
      }
    }
  });
}
