import { defineConfig } from 'vitest/config';

/** `npm run test:unit`: every workspace's unit, component and API tests in one run. */
export default defineConfig({
  test: {
    projects: ['packages/protocol', 'apps/server', 'apps/agent', 'apps/web'],
  },
});
