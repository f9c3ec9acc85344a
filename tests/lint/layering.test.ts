import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';

/*
 * Proves that every layering rule in eslint.config.js still fires, so that an edit dropping or
 * weakening one fails here. The real config is used, with type-aware linting switched off: the
 * files below are made up and belong to no tsconfig.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: path.join(ROOT, 'eslint.config.js'),
  overrideConfig: [{ files: ['**/*.{ts,tsx}'], ...tseslint.configs.disableTypeChecked }],
});

/** The no-restricted-imports messages ESLint reports for `source` as the file `file`. */
async function layeringErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === 'no-restricted-imports')
    .map((message) => message.message);
}

/** [file, import specifier] pairs that each break one layering rule. */
const FORBIDDEN: [rule: string, file: string, specifier: string][] = [
  ['web ↛ server (package)', 'apps/web/src/lib/api/fake.ts', '@postern/server'],
  ['web ↛ server (relative)', 'apps/web/src/lib/api/fake.ts', '../../../../server/src/grants/agent-sync.js'],
  ['web ↛ server (via apps/)', 'apps/web/src/pages/admin/X/fake.tsx', '../../../../../../apps/server/src/x.js'],
  ['web ↛ agent (package)', 'apps/web/src/features/acls/fake.ts', '@postern/agent/src/run.js'],
  ['web ↛ agent (relative)', 'apps/web/src/features/acls/fake.ts', '../../../../agent/src/run.js'],
  ['agent ↛ server (package)', 'apps/agent/src/run-fake.ts', '@postern/server'],
  ['agent ↛ server (relative)', 'apps/agent/src/runtime/fake.ts', '../../../server/src/store/schema.js'],
  ['agent ↛ server test code', 'apps/agent/src/test-support/fake.ts', '../../../server/test/helpers.js'],
  ['agent ↛ server from a driver', 'apps/agent/src/drivers/ipset/fake.ts', '../../../../server/src/x.js'],
  ['client ↛ server (package)', 'apps/client/src/fake.ts', '@postern/server'],
  ['client ↛ server (relative)', 'apps/client/src/fake.ts', '../../server/src/grants/grants.routes.js'],
  ['client ↛ agent (package)', 'apps/client/src/fake.ts', '@postern/agent/src/run.js'],
  [
    'client ↛ agent (relative)',
    'apps/client/src/test-support/fake.ts',
    '../../../agent/src/test-support/manual-clock.js',
  ],
  ['client ↛ web (package)', 'apps/client/src/fake.ts', '@postern/web'],
  ['client ↛ web (via apps/)', 'apps/client/src/fake.ts', '../../../apps/web/src/lib/api/client.js'],
  ['agent ↛ client', 'apps/agent/src/run-fake.ts', '@postern/client'],
  ['web ↛ client', 'apps/web/src/lib/api/fake.ts', '../../../../client/src/api-client.js'],
  ['protocol ↛ client', 'packages/protocol/src/fake.ts', '@postern/client'],
  ['protocol ↛ server', 'packages/protocol/src/fake.ts', '../../../apps/server/src/app-context.js'],
  ['protocol ↛ server (package)', 'packages/protocol/src/fake.ts', '@postern/server'],
  ['protocol ↛ web', 'packages/protocol/src/fake.ts', '../../../apps/web/src/lib/api/client.js'],
  ['protocol ↛ agent', 'packages/protocol/src/fake.ts', '@postern/agent'],
  ['repo ↛ routes', 'apps/server/src/agents/fake.repo.ts', './agents.routes.js'],
  ['repo ↛ service', 'apps/server/src/agents/fake.repo.ts', '../grants/grants.service.js'],
  ['repo ↛ http/', 'apps/server/src/agents/fake.repo.ts', '../http/request-auth.js'],
  ['nested repo ↛ http/', 'apps/server/src/agents/deep/fake.repo.ts', '../../http/route-access.js'],
  ['server lib ↛ a feature', 'apps/server/src/lib/fake.ts', '../grants/grants.repo.js'],
  ['server lib ↛ http/', 'apps/server/src/lib/fake.ts', '../http/request-auth.js'],
  ['server lib ↛ the context', 'apps/server/src/lib/fake.ts', '../app-context.js'],
  ['driver ↛ runtime', 'apps/agent/src/drivers/fake.ts', '../runtime/agent-runtime.js'],
  ['nested driver ↛ runtime', 'apps/agent/src/drivers/haproxy/fake.ts', '../../runtime/index.js'],
  ['feature ↛ page', 'apps/web/src/features/acls/fake.ts', '../../pages/user/Home/Home.js'],
  ['feature component ↛ page', 'apps/web/src/features/acls/components/Fake.tsx', '../../../pages/admin/X.js'],
  ['feature ↛ page (alias)', 'apps/web/src/features/acls/fake.ts', '@/pages/admin/AdminHome/AdminHome'],
  ['feature ↛ app (alias)', 'apps/web/src/features/knocs/fake.ts', '@/app/routes/route-table'],
  ['feature ↛ app (relative)', 'apps/web/src/features/knocs/fake.ts', '../../app/routes/route-types.js'],
  ['feature component ↛ app', 'apps/web/src/features/banners/components/Fake.tsx', '../../../app/query-client'],
];

/** Imports that look alike but are allowed. */
const ALLOWED: [why: string, file: string, specifier: string][] = [
  ['web may import protocol', 'apps/web/src/features/acls/fake.ts', '@postern/protocol'],
  ['the client may import protocol', 'apps/client/src/fake.ts', '@postern/protocol'],
  ['the client may import its own code', 'apps/client/src/fake.ts', './api-client.js'],
  ['the client may import test-support', 'apps/client/src/fake.test.ts', '@postern/test-support'],
  ['web may import its own lib', 'apps/web/src/features/acls/fake.ts', '../../lib/api/client.js'],
  ['a page may import a feature', 'apps/web/src/pages/user/Home/fake.tsx', '../../../features/acls/acl-view.js'],
  ['a feature may import the route paths', 'apps/web/src/features/knocs/fake.ts', '@/lib/route-paths'],
  ['a feature file named app…', 'apps/web/src/features/knoc-wizard/update/fake.ts', '../application-kind'],
  ['a page may import the route types', 'apps/web/src/pages/admin/Knocs/fake.tsx', '@/app/routes/route-types'],
  ['a driver file named runtime-…', 'apps/agent/src/drivers/haproxy/fake.ts', './runtime-target.js'],
  ['the runtime may import drivers', 'apps/agent/src/runtime/fake.ts', '../drivers/driver.js'],
  ['a repo may import another repo', 'apps/server/src/agents/fake.repo.ts', '../sessions/sessions.repo.js'],
  ['a repo may import the store', 'apps/server/src/agents/fake.repo.ts', '../store/schema.js'],
  ['a service may import the errors', 'apps/server/src/agents/fake.service.ts', '../errors.js'],
  ['server lib may import lib', 'apps/server/src/lib/fake.ts', './clock.js'],
  ['server lib may import the errors', 'apps/server/src/lib/fake.ts', '../errors.js'],
  ['server code may import a service', 'apps/server/src/agents/agents.routes.ts', './agents.service.js'],
];

describe('layering lint rules', () => {
  it.each(FORBIDDEN)('%s: %s importing %s is reported', async (_rule, file, specifier) => {
    const errors = await layeringErrors(file, `import { x } from '${specifier}';\nexport const y = x;\n`);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('Layering:');
  });

  it.each(FORBIDDEN)('%s: catches type-only imports and re-exports too (%s, %s)', async (_rule, file, specifier) => {
    const source = `import type { X } from '${specifier}';\nexport type Y = X;\nexport { z } from '${specifier}';\n`;
    expect(await layeringErrors(file, source)).toHaveLength(2);
  });

  it.each(ALLOWED)('%s: %s importing %s is not reported', async (_why, file, specifier) => {
    expect(await layeringErrors(file, `import { x } from '${specifier}';\nexport const y = x;\n`)).toEqual([]);
  });
});
