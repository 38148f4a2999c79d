export {
  EnvelopeError,
  type EnvelopeProblem,
  envelopeProblems,
  MAX_ENVELOPE_BYTES,
  readEnvelope,
  wireProblem,
} from './check.js';
export { HarnessError, SyncFailedError } from './inputs.js';
export { type ActionRun, type RunActionOptions, runAction } from './run-action.js';
export { type RunSyncOptions, runSync, type SyncRun } from './run-sync.js';
