import { defineProject, mergeConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { sharedConfig } from '../../vitest.shared.js';
import { SRC_ALIAS } from './vite.config';

/** What the web app's two test projects share: React, the `@/` alias, jsdom and the test setup. */
export const webTestConfig = mergeConfig(
  sharedConfig,
  defineProject({
    plugins: [react()],
    resolve: { alias: [SRC_ALIAS] },
    test: {
      environment: 'jsdom',
      setupFiles: ['src/test-support/setup-tests.ts'],
      // Page tests click through whole dialogs against the fake API; see setup-tests.ts for why.
      testTimeout: 20_000,
    },
  }),
);

/** Tests that need modules loaded afresh (a lazy route never loaded yet) end in .isolated.test.tsx. */
export const ISOLATED_TESTS = 'src/**/*.isolated.test.{ts,tsx}';

/**
 * The web tests share one module graph per worker (`isolate: false`): React, Mantine and i18next load
 * once, not once per file, which halves the suite's time. What a test changes globally the setup
 * file resets after each test (DOM, storage, notifications, language, stubs and mocks).
 */
export default mergeConfig(
  webTestConfig,
  defineProject({
    test: {
      name: 'web',
      include: ['src/**/*.test.{ts,tsx}'],
      exclude: [ISOLATED_TESTS],
      isolate: false,
    },
  }),
);
