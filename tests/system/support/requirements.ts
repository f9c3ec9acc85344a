import { existsSync } from 'node:fs';
import type { TestContext } from 'vitest';

/** CI sets this: a missing tool is then a failure, never a silent skip. */
export const SYSTEM_TESTS_REQUIRED = process.env.POSTERN_REQUIRE_SYSTEM_TESTS === '1';

/**
 * Skips the test (saying why) when `missing` names something this machine lacks, or fails it when
 * system tests are required.
 */
export function requireTool(context: TestContext, missing: string | null): void {
  if (missing === null) return;
  if (SYSTEM_TESTS_REQUIRED) throw new Error(`system test prerequisite missing: ${missing}`);
  context.skip(`skipped: ${missing} (install it, or see .ci/run)`);
}

export const CHROMIUM_PATH = process.env.POSTERN_CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Null when Debian's Chromium is installed, else what is missing. */
export function missingChromium(): string | null {
  return existsSync(CHROMIUM_PATH) ? null : `Chromium at ${CHROMIUM_PATH} (apt-get install chromium)`;
}

/** Null when the built app exists, else what is missing. */
export function missingBuild(root: string): string | null {
  for (const file of ['apps/server/dist/main.js', 'apps/web/dist/index.html']) {
    if (!existsSync(`${root}/${file}`)) return `the build (${file}); run npm run build`;
  }
  return null;
}
