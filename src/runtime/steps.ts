/** Step functions live in src/shared (the store's collection commands use them too). */
export * from '../shared/steps.js';
