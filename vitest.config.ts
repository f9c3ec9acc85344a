import { defineConfig } from 'vitest/config';

/** `npm run test:unit`: every workspace's unit, component and API tests in one run. */
export default defineConfig({
  test: {
    projects: [
      'packages/protocol',
      'apps/server',
      'apps/agent',
      'apps/web',
      'apps/web/vitest.isolated.config.ts',
      // Tests of the repository's own tooling (the layering lint rules).
      { test: { name: 'lint', include: ['tests/lint/**/*.test.ts'], environment: 'node' } },
    ],
  },
});
