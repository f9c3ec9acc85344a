export * from './process.js';
export * from './wait.js';
export * from './ports.js';
export * from './paths.js';
export * from './certificate.js';
