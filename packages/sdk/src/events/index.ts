export * from './engagement.js';
export * from './taxonomy.js';
