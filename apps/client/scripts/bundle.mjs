// Builds dist/postern-client.mjs: the client and every dependency in one ESM file, which the server
// hands out at /api/agent/postern-client.mjs and the install script puts in /opt/postern-agent. A
// machine then needs only Node.js, no npm and no node_modules.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const CLIENT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `--outfile FILE` builds elsewhere (the install script's test); the build writes dist/.
const outfileFlag = process.argv.indexOf('--outfile');
const OUTFILE =
  outfileFlag === -1
    ? path.join(CLIENT_DIR, 'dist', 'postern-client.mjs')
    : path.resolve(process.argv[outfileFlag + 1]);
const { version } = JSON.parse(readFileSync(path.join(CLIENT_DIR, 'package.json'), 'utf8'));

await build({
  entryPoints: [path.join(CLIENT_DIR, 'src', 'main.ts')],
  outfile: OUTFILE,
  bundle: true,
  platform: 'node',
  format: 'esm',
  // The install script refuses an older Node, so the bundle may use what Node 20 has.
  target: 'node20',
  // Workspace packages resolve to their TypeScript sources, as in the tests: no separate build needed.
  conditions: ['source'],
  // The bundle has no package.json beside it: the version is written in (src/version.ts).
  define: { __POSTERN_CLIENT_VERSION__: JSON.stringify(version) },
  // commander is CommonJS and calls require(); ESM output has no require of its own.
  banner: {
    js: "import { createRequire as __postern_createRequire } from 'node:module';\nconst require = __postern_createRequire(import.meta.url);",
  },
  legalComments: 'eof',
  logLevel: 'warning',
});

const sha256 = createHash('sha256').update(readFileSync(OUTFILE)).digest('hex');
process.stdout.write(`Bundled ${path.relative(process.cwd(), OUTFILE)} (sha256 ${sha256})\n`);
