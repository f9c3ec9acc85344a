import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

/**
 * System tests drive the built product and real tools (Chromium now; ipset, iptables, haproxy and
 * slapd as they arrive). One file at a time: they start servers and browsers.
 */
export default mergeConfig(
  sharedConfig,
  defineConfig({
    test: {
      name: 'system',
      root: import.meta.dirname,
      include: ['**/*.system.test.ts'],
      environment: 'node',
      testTimeout: 60_000,
      hookTimeout: 90_000,
      fileParallelism: false,
    },
  }),
);
