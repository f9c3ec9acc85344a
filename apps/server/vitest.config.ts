import { defineProject, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedConfig,
  defineProject({
    test: {
      name: 'server',
      environment: 'node',
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      // A PostgreSQL database per test worker (when the tests run on PostgreSQL too): see the file.
      setupFiles: ['src/test-support/postgres-per-worker.ts'],
    },
  }),
);
