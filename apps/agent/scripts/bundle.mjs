// Builds dist/postern-agent.mjs: the agent and every dependency in one ESM file, which the server
// hands out at /api/agent/postern-agent.mjs and the install script puts in /opt/postern-agent. A host
// then needs only Node.js, no npm and no node_modules.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const AGENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUTFILE = path.join(AGENT_DIR, 'dist', 'postern-agent.mjs');

await build({
  entryPoints: [path.join(AGENT_DIR, 'src', 'main.ts')],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // The install script refuses an older Node, so the bundle may use what Node 20 has.
  target: 'node20',
  // Workspace packages resolve to their TypeScript sources, as in the tests: no separate build needed.
  conditions: ['source'],
  // ws loads these native speed-ups if present and works without them; never bundle native code.
  external: ['bufferutil', 'utf-8-validate'],
  // CommonJS dependencies (commander, pino, ws) call require(); ESM output has no require of its own.
  banner: {
    js: "import { createRequire as __postern_createRequire } from 'node:module';\nconst require = __postern_createRequire(import.meta.url);",
  },
  legalComments: 'eof',
  logLevel: 'warning',
});

const sha256 = createHash('sha256').update(readFileSync(OUTFILE)).digest('hex');
process.stdout.write(`Bundled ${path.relative(process.cwd(), OUTFILE)} (sha256 ${sha256})\n`);
