import { defineProject, mergeConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { sharedConfig } from '../../vitest.shared.js';
import { SRC_ALIAS } from './vite.config';

export default mergeConfig(
  sharedConfig,
  defineProject({
    plugins: [react()],
    resolve: { alias: [SRC_ALIAS] },
    test: {
      name: 'web',
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}'],
      setupFiles: ['src/test-support/setup-tests.ts'],
      // Page tests click through whole dialogs against the fake API; see setup-tests.ts for why.
      testTimeout: 20_000,
    },
  }),
);
