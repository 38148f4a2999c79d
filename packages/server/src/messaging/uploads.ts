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
  }
}

const tooLarge = (detail: string) => new ProblemError(413, 'payload_too_large', detail);

/**
 * Multipart bodies for the routes of this plugin: the fields become the body the route's schema
 * checks (`team_chat` and `messenger` as JSON text), the parts named `files` become
 * `request.uploads`. Limits hold while the body streams in: the part that breaks one ends the
 * request with 413 before the rest is read, and nothing is stored, since storing happens after.
 */
export async function registerUploads(app: App, limits: UploadLimits): Promise<void> {
  app.decorateRequest('uploads', null as unknown as Upload[]);
  app.addHook('onRequest', async (request) => {
    request.uploads = [];
  });
  await app.register(multipart, {
    attachFieldsToBody: 'keyValues',
    throwFileSizeLimit: true,
    limits: { fileSize: limits.fileBytes, files: limits.files, fields: 20, fieldSize: 200_000, parts: 40 },
    async onFile(this: FastifyRequest, part: MultipartFile) {
      if (part.fieldname !== 'files') {
        part.file.resume();
        throw new ProblemError(
          400,
          'validation_failed',
          `files go in the part "files", not "${part.fieldname}"`,
          [{ path: `/body/${part.fieldname}`, message: 'a file part must be named "files"' }],
        );
      }
      // At the limit, busboy would quietly drop the rest of the file: end here instead, so that the
      // answer goes out before the rest of the upload is read.
      part.file.once('limit', () =>
        part.file.destroy(tooLarge(`file "${part.filename}" is larger than ${limits.fileBytes} bytes`)),
      );
      const chunks: Buffer[] = [];
      let size = 0;
      const sent = () => this.uploads.reduce((n, u) => n + u.data.length, 0);
      for await (const chunk of part.file) {
        size += (chunk as Buffer).length;
        if (sent() + size > limits.totalBytes) {
          throw tooLarge(`the files together are larger than ${limits.totalBytes} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
      if (part.file.truncated)
        throw tooLarge(`file "${part.filename}" is larger than ${limits.fileBytes} bytes`);
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
    }
  });
}
