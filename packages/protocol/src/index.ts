export * from './limits.js';
export * from './errors.js';
export * from './envelope.js';
export * from './auth.js';
export * from './grants.js';
export * from './audit.js';
export * from './status.js';
export * from './version.js';
