// One Node.js program and every dependency in one ESM file, as the server hands out the agent and
// postern-client: a host then needs only Node.js, no npm and no node_modules. Used by
// apps/agent/scripts/bundle.mjs and apps/client/scripts/bundle.mjs.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles `entry` into `outfile` and prints its SHA-256 (the install scripts check downloads against
 * it). `define` and `external` go to esbuild as they are.
 */
export async function bundleNodeProgram({ entry, outfile, define = {}, external = [] }) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // The install scripts refuse an older Node, so the bundle may use what Node 20 has.
    target: 'node20',
    // Workspace packages resolve to their TypeScript sources, as in the tests: no separate build needed.
    conditions: ['source'],
    define,
    external,
    // CommonJS dependencies (commander, pino, ws) call require(); ESM output has no require of its own.
    banner: {
      js: "import { createRequire as __postern_createRequire } from 'node:module';\nconst require = __postern_createRequire(import.meta.url);",
    },
    legalComments: 'eof',
    logLevel: 'warning',
  });
  const sha256 = createHash('sha256').update(readFileSync(outfile)).digest('hex');
  process.stdout.write(`Bundled ${path.relative(process.cwd(), outfile)} (sha256 ${sha256})\n`);
}
