export { buildApp, type RegisteredRoute } from './http/app.js';
export type { AppOptions } from './http/types.js';
export { type RunningServer, type ServerSettings, startServer } from './server.js';
export { type RunningWorker, startWorker, type WorkerSettings } from './worker-process.js';
