import { defineConfig, defineProject, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.js';

/** Files that start Chromium end in this; support/browser.ts refuses to start it for any other file. */
export const CHROMIUM_TESTS = '**/*.chromium.system.test.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** True in the Chromium lane, the only one whose files may start Chromium (support/browser.ts). */
    chromiumLane: boolean;
  }
}

const lane = (name: string, include: string[], exclude: string[], chromiumLane: boolean) =>
  mergeConfig(
    sharedConfig,
    defineProject({
      test: {
        name,
        root: import.meta.dirname,
        include,
        exclude: ['**/node_modules/**', ...exclude],
        environment: 'node',
        testTimeout: 60_000,
        hookTimeout: 90_000,
        // One file at a time within a lane: each starts servers, agents and (in the Chromium lane) a
        // browser, and two Chromium pages rendering at once on two cores would starve each other.
        fileParallelism: false,
        provide: { chromiumLane },
      },
    }),
  );

/**
 * System tests drive the built product and real tools (Chromium, ipset, iptables, HAProxy, slapd,
 * SimpleSAMLphp). They run in two lanes side by side (scripts/test-system.mjs starts one Vitest per
 * lane, as Vitest runs every single-worker project in one shared sequence): the Chromium files one
 * after another, and the rest one after another. Files in different lanes share nothing: each
 * makes its own uniquely named namespaces, temporary directories, PostgreSQL schema and ports.
 */
export default defineConfig({
  test: {
    projects: [
      lane('system-chromium', [CHROMIUM_TESTS], [], true),
      lane('system', ['**/*.system.test.ts'], [CHROMIUM_TESTS], false),
    ],
  },
});
