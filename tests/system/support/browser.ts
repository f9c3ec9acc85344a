import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from 'playwright-core';
import { inject } from 'vitest';
import { REPO_ROOT } from '@postern/test-support';
import { CHROMIUM_PATH } from './requirements.js';

/** Where screenshots of each screen are kept as test artifacts. */
export const SCREENSHOT_DIR = path.join(REPO_ROOT, 'test-results', 'screenshots');

/**
 * Debian's Chromium, headless, with the flags that keep it off the network: no background
 * connections, no component updates, no QUIC. Never a downloaded browser; `executablePath` may name
 * a wrapper that starts it somewhere else (inside a network namespace).
 *
 * Only files of the Chromium lane (named *.chromium.system.test.ts) may start it: that lane runs one
 * file at a time, so two browsers never render side by side (tests/system/vitest.config.ts).
 */
export async function launchChromium(executablePath = CHROMIUM_PATH): Promise<Browser> {
  if (!inject('chromiumLane')) {
    throw new Error(
      'Only *.chromium.system.test.ts files start Chromium: rename this file so it runs in the Chromium lane.',
    );
  }
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  return browser.newContext({ locale: 'en-AU', ...options });
}

export function screenshotPath(name: string): string {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}
