export * from './namespaces.js';
export * from './normalize.js';
