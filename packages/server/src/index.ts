export {
  type AppOptions,
  appOptionsFromEnv,
  buildApp,
  type RegisteredRoute,
  type RunningSvc,
  type SvcSettings,
  startSvc,
} from './app.js';
export {
  keepRequiredCookies,
  normaliseDomain,
  readCdpCookies,
  type SessionCookie,
} from './connections/browser-cookies.js';
export { type RunningServer, type ServerSettings, startServer } from './server.js';
export { type RunningWorker, startWorker, type WorkerSettings } from './worker-process.js';
