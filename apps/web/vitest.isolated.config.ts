import { defineProject, mergeConfig } from 'vitest/config';
import { ISOLATED_TESTS, webTestConfig } from './vitest.config';

/** The few web tests that must start from freshly loaded modules, each file in its own. */
export default mergeConfig(
  webTestConfig,
  defineProject({ test: { name: 'web-isolated', include: [ISOLATED_TESTS], isolate: true } }),
);
