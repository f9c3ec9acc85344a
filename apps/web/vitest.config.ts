import { defineProject, mergeConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { sharedConfig } from '../../vitest.shared.js';

export default mergeConfig(
  sharedConfig,
  defineProject({
    plugins: [react()],
    test: {
      name: 'web',
      environment: 'jsdom',
      include: ['src/**/*.test.{ts,tsx}'],
      setupFiles: ['src/test-support/setup-tests.ts'],
    },
  }),
);
