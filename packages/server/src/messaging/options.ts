import type { Pool } from 'pg';
import type { RateLimit } from './rate-limit.js';
import type { StreamTimings } from './sse.js';
import type { UploadLimits } from './uploads.js';

/** What the messaging routes (messages, conversations) need from the server that mounts them. */
export interface MessagingOptions {
  pool: Pool;
  /** Mount prefix such as `/svc`, or `''`: message and stream URLs carry it. */
  basePath: string;
  /** Multipart limits (SVC_UPLOAD_MAX_FILE_BYTES, SVC_UPLOAD_MAX_TOTAL_BYTES); absent: 10 MiB, 25 MiB, 10 files. */
  uploadLimits?: UploadLimits;
  /** SSE ping and poll intervals (tests shorten them). */
  streamTimings?: StreamTimings;
  /** Messages each token may send (`SVC_MESSAGES_RATE_LIMIT`); `null`: no limit; absent: the default. */
  messageRateLimit?: RateLimit | null;
}
