export * from './engagement.js';
export * from './owletto.js';
export * from './taxonomy.js';
