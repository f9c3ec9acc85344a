import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** `npm run test:unit`: every workspace's unit, component and API tests in one run. */
export default defineConfig({
  test: {
    // One test worker per core, not Vitest's default of one fewer: much of the run waits rather than
    // computes (PostgreSQL, the commands the CLI tests start, lock and retry deadlines), and on a
    // two-core CI machine the default is a single worker that leaves the second core idle.
    maxWorkers: availableParallelism(),
    projects: [
      'packages/protocol',
      'apps/server',
      'apps/agent',
      'apps/client',
      'apps/web',
      'apps/web/vitest.isolated.config.ts',
      // Tests of the repository's own tooling (the layering lint rules).
      { test: { name: 'lint', include: ['tests/lint/**/*.test.ts'], environment: 'node' } },
    ],
  },
});
