export * from './ids.js';
export * from './messages.js';
export * from './platform-config.js';
export * from './problems.js';
export * from './resources.js';
export * from './secrets.js';
export * from './settings.js';
