import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { REPO_ROOT } from '@postern/test-support';
import { launchChromium, newContext } from './browser.js';
import { startPosternServer, type PosternServer, type StoreChoice } from './postern-server.js';
import { missingBuild, missingChromium, requireTool } from './requirements.js';

/** A built Postern server and a Chromium to drive it, shared by the tests of one file. */
export interface Portal {
  server: PosternServer;
  browser: Browser;
  /** A page in a fresh browser context (its own cookies and storage); closed with the file. */
  newPage: (options?: BrowserContextOptions) => Promise<Page>;
}

/**
 * Registers the hooks that start the server and Chromium for a describe block, skipping (or, with
 * POSTERN_REQUIRE_SYSTEM_TESTS=1, failing) every test when something is missing. `alsoMissing`
 * names other tools the block needs; `arrange` runs once the portal is up (create users, settings).
 */
export function usePortal(
  options: {
    alsoMissing?: () => string | null;
    settings?: Record<string, string>;
    /** PostgreSQL by default (when the test database is set), so real browsers exercise both stores. */
    store?: StoreChoice;
    arrange?: (portal: Portal) => Promise<void>;
  } = {},
): () => Portal {
  const missing = missingChromium() ?? missingBuild(REPO_ROOT) ?? options.alsoMissing?.() ?? null;
  let portal: Portal | undefined;
  const pages: Page[] = [];

  beforeAll(async () => {
    if (missing !== null) return;
    const server = await startPosternServer(options.settings, options.store ?? 'postgres');
    const browser = await launchChromium().catch(async (error: unknown) => {
      await server.stop();
      throw error;
    });
    portal = {
      server,
      browser,
      newPage: async (contextOptions) => {
        const page = await (await newContext(browser, contextOptions)).newPage();
        pages.push(page);
        return page;
      },
    };
    await options.arrange?.(portal);
  });
  afterAll(async () => {
    await portal?.browser.close();
    await portal?.server.stop();
  });
  beforeEach((context) => requireTool(context, missing));

  return () => {
    if (portal === undefined) throw new Error('the server or browser did not start');
    return portal;
  };
}
