import { defineConfig } from 'vitest/config';

/**
 * Settings every workspace's tests share: resolve `@postern/protocol` (and any workspace package)
 * to its TypeScript source through the "source" export condition, so tests need no build first.
 */
export const sharedConfig = defineConfig({
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
});
