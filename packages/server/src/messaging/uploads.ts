import { isUtf8 } from 'node:buffer';
import multipart, { type MultipartFile } from '@fastify/multipart';
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

/** A form field's text, from its bytes: UTF-8 (RFC 7578), refused rather than repaired. */
async function readField(part: MultipartFile): Promise<string> {
  const path = at(part.fieldname);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of part.file) {
    size += (chunk as Buffer).length;
    if (size > MAX_FIELD_BYTES)
      throw tooLarge(`the field "${part.fieldname}" is larger than ${MAX_FIELD_BYTES} bytes`);
    chunks.push(chunk as Buffer);
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
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: true,
    isPartAFile: () => true,
    // The limits of files and of fields are kept below, each kind its own; these only bound both.
    limits: {
      fileSize: Math.max(limits.fileBytes, MAX_FIELD_BYTES) + 1,
      files: limits.files + MAX_FIELDS,
      parts: 40,
    },
    async onFile(this: FastifyRequest, part: MultipartFile) {
      const self = part as unknown as { value: unknown; filename: string | undefined };
      if (self.filename === undefined) {
        if (part.fieldname === 'files') {
          part.file.resume();
          throw refused('/body/files', 'a part "files" must be a file, with a filename');
        }
        this.uploadFields++;
        if (this.uploadFields > MAX_FIELDS) throw tooLarge(`a message has at most ${MAX_FIELDS} fields`);
        // The body the route sees, as @fastify/multipart builds it from `value`.
        self.value = await readField(part);
        return;
      }
      if (part.fieldname !== 'files') {
        part.file.resume();
        throw new ProblemError(
          400,
          'validation_failed',
          `files go in the part "files", not "${part.fieldname}"`,
          [{ path: `/body/${part.fieldname}`, message: 'a file part must be named "files"' }],
        );
      }
      if (this.uploads.length >= limits.files) {
        part.file.resume();
        throw tooLarge(`a message has at most ${limits.files} files`);
      }
      checkFileFacts(part, this.uploads.length);
      const fileTooLarge = () => tooLarge(`file "${part.filename}" is larger than ${limits.fileBytes} bytes`);
      // At its limit, busboy would quietly drop the rest of the file: end here instead, so that the
      // answer goes out before the rest of the upload is read.
      part.file.once('limit', () => part.file.destroy(fileTooLarge()));
      const chunks: Buffer[] = [];
      let size = 0;
      const sent = () => this.uploads.reduce((n, u) => n + u.data.length, 0);
      for await (const chunk of part.file) {
        size += (chunk as Buffer).length;
        if (size > limits.fileBytes) throw fileTooLarge();
        if (sent() + size > limits.totalBytes) {
          throw tooLarge(`the files together are larger than ${limits.totalBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      if (part.file.truncated) throw fileTooLarge();
      this.uploads.push({ name: part.filename, contentType: part.mimetype, data: Buffer.concat(chunks) });
      // Not in the body: the files are `request.uploads`.
      (part as unknown as { value: unknown }).value = undefined;
    },
  });
  // Form fields are text: the routing objects come as JSON text; the file parts leave no trace.
  app.addHook('preValidation', async (request) => {
    if (!request.isMultipart()) return;
    const body = request.body as Record<string, unknown>;
    delete body.files;
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
